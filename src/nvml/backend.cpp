// SPDX-License-Identifier: MIT
#include "nvml/backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "nvml/accounting.h"
#include "nvml/device_query.h"
#include "nvml/device_reader.h"
#include "nvml/device_samples.h"
#include "nvml/gpm.h"
#include "nvml/library.h"
#include "nvml/mig.h"
#include "nvml/process_utilization.h"
#include "nvml/processes.h"
#include "nvml/status.h"
#include "nvml/vgpu.h"
#include "nvml/xid_events.h"

namespace gpumeter::nvml {
namespace {

// The library's own text for a code when it has one, else our name for it.
std::string explain(const EntryPoints& api, abi::Return code) {
  const char* text = api.error_string ? api.error_string.fn(code) : nullptr;
  if (text == nullptr || *text == '\0') return describe_return(code);
  return fmt::format("{} ({})", text, describe_return(code));
}

class NvmlSource final : public GpuSource, public AccountingControl {
 public:
  NvmlSource(Library library, bool keep_exited_accounting)
      : library_(std::move(library)),
        keep_exited_accounting_(keep_exited_accounting),
        gpm_(library_.api()),
        xid_(library_.api()) {}
  NvmlSource(const NvmlSource&) = delete;
  NvmlSource& operator=(const NvmlSource&) = delete;
  ~NvmlSource() override {
    gpm_.release();  // samples and sets belong to the library: free them before it shuts down
    xid_.release();
    if (api().shutdown) api().shutdown.fn();
  }

  std::string_view name() const noexcept override { return "nvml"; }
  std::expected<GpuReading, Error> read() override;
  std::expected<GpuReading, Error> read_inventory() override;
  Maybe<std::vector<PidGpuSample>> drain_process_utilization(
      std::uint32_t device_index, std::optional<TimeUs> last_seen_us) override;
  Maybe<std::vector<BufferedSample>> drain_device_samples(
      std::uint32_t device_index, DeviceBuffer buffer, std::optional<TimeUs> last_seen_us) override;
  Maybe<GpuMemoryHeld> process_memory(Pid pid, std::span<const std::uint32_t> devices) override;
  AccountingControl* accounting_control() noexcept override { return this; }
  std::expected<void, AccountingRefusal> set_accounting_mode(std::uint32_t device_index,
                                                             bool enabled) override;
  std::expected<void, AccountingRefusal> clear_accounting(std::uint32_t device_index) override;
  Maybe<void> clear_vgpu_accounting(std::uint32_t instance) override {
    return nvml::clear_vgpu_accounting(api(), instance);
  }

 private:
  // Runs `change` on a query of the device, or says why there is none.
  template <class Change>
  std::expected<void, AccountingRefusal> change_accounting(std::uint32_t device_index,
                                                           Change&& change);
  const EntryPoints& api() const noexcept { return library_.api(); }
  std::expected<unsigned, Error> device_count() const;
  // Every device, each read by `read_one`, with the driver's versions.
  std::expected<GpuReading, Error> read_each(Device (NvmlSource::*read_one)(unsigned));
  Device read_device(unsigned index);
  Device read_device_inventory(unsigned index);
  Device unreachable_device(unsigned index, Unavailable reason) const;
  DeviceIdentity identity_of(DeviceQuery& query, unsigned index);

  Library library_;
  // Identity per index, kept after the first read in which it settled: it does not change
  // while the driver stays loaded, and a GPU that falls off the bus still shows who it was.
  std::map<unsigned, DeviceIdentity> identities_;
  // What each device's vGPU drains consumed so far, by index.
  std::map<unsigned, VgpuDrainState> vgpu_drains_;
  // Each device's accounting records kept from the last read, by index.
  bool keep_exited_accounting_;
  std::map<unsigned, AccountingCache> accounting_caches_;
  GpmReader gpm_;  // after library_: it refers to the library's entry points
  XidWatch xid_;   // likewise
};

std::expected<unsigned, Error> NvmlSource::device_count() const {
  unsigned count = 0;
  const abi::Return code = api().device_count.fn(&count);
  if (code == abi::kSuccess) return count;
  return std::unexpected(
      Error{ErrorCode::driver_failed, fmt::format("NVML ({}) could not count the GPUs: {}",
                                                  library_.path(), explain(api(), code))});
}

std::expected<GpuReading, Error> NvmlSource::read_each(Device (NvmlSource::*read_one)(unsigned)) {
  auto count = device_count();
  if (!count) return std::unexpected(std::move(count.error()));
  GpuReading reading;
  reading.driver = read_driver_info(api());
  reading.devices.reserve(*count);
  for (unsigned index = 0; index < *count; ++index)
    reading.devices.push_back((this->*read_one)(index));
  return reading;
}

std::expected<GpuReading, Error> NvmlSource::read() {
  xid_.drain();  // before the devices: each one's counts then include all that is waiting
  return read_each(&NvmlSource::read_device);
}

std::expected<GpuReading, Error> NvmlSource::read_inventory() {
  return read_each(&NvmlSource::read_device_inventory);
}

// Identity and memory: what `info` shows, with nothing else asked of the driver.
Device NvmlSource::read_device_inventory(unsigned index) {
  abi::Device handle = nullptr;
  const abi::Return code = api().handle_by_index.fn(index, &handle);
  if (code != abi::kSuccess) return unreachable_device(index, to_unavailable(code));
  DeviceQuery query(api(), handle);
  Device device;
  device.identity = identity_of(query, index);
  device.state = read_memory_state(query);
  device.processes = std::unexpected(Unavailable::not_supported);
  device.accounting = std::unexpected(Unavailable::not_supported);
  device.vgpu = std::unexpected(Unavailable::not_supported);
  device.mig = std::unexpected(Unavailable::not_supported);
  if (query.lost()) {
    device.state = absent_state(Unavailable::gpu_lost);
    device.lost = true;
  }
  return device;
}

Device NvmlSource::read_device(unsigned index) {
  abi::Device handle = nullptr;
  const abi::Return code = api().handle_by_index.fn(index, &handle);
  if (code != abi::kSuccess) {
    accounting_caches_.erase(index);
    return unreachable_device(index, to_unavailable(code));
  }
  DeviceQuery query(api(), handle);
  Device device;
  device.identity = identity_of(query, index);
  device.state = read_state(query);
  device.processes = read_processes(query);
  device.accounting =
      read_accounting(query, keep_exited_accounting_ ? &accounting_caches_[index] : nullptr);
  device.vgpu = read_vgpu_host(query, vgpu_drains_[index]);
  device.mig = read_mig(query);
  if (device.mig && device.mig->enabled) mark_mig_restrictions(device.state);
  gpm_.read(index, query, device.state, device.mig ? &device.mig->devices : nullptr);
  xid_.read(index, query, device.state);
  if (query.lost()) {
    // Whatever was read before the loss showed is stale: only identity stays.
    device.state = absent_state(Unavailable::gpu_lost);
    device.processes = std::unexpected(Unavailable::gpu_lost);
    device.accounting = std::unexpected(Unavailable::gpu_lost);
    device.vgpu = std::unexpected(Unavailable::gpu_lost);
    device.mig = std::unexpected(Unavailable::gpu_lost);
    device.lost = true;
    accounting_caches_.erase(index);  // a GPU back from a reset starts with a new buffer
  }
  return device;
}

Maybe<std::vector<PidGpuSample>> NvmlSource::drain_process_utilization(
    std::uint32_t device_index, std::optional<TimeUs> last_seen_us) {
  abi::Device handle = nullptr;
  const abi::Return code = api().handle_by_index.fn(device_index, &handle);
  if (code != abi::kSuccess) return std::unexpected(to_unavailable(code));
  DeviceQuery query(api(), handle);
  auto samples = read_process_utilization(query, last_seen_us);
  if (!samples && samples.error() == Unavailable::not_supported) {
    // In MIG mode the driver keeps no per-process utilisation: say so.
    const Maybe<MigState> mig = read_mig_mode_only(query);
    if (mig && mig->enabled) return std::unexpected(Unavailable::mig);
  }
  return samples;
}

Maybe<std::vector<BufferedSample>> NvmlSource::drain_device_samples(
    std::uint32_t device_index, DeviceBuffer buffer, std::optional<TimeUs> last_seen_us) {
  abi::Device handle = nullptr;
  const abi::Return code = api().handle_by_index.fn(device_index, &handle);
  if (code != abi::kSuccess) return std::unexpected(to_unavailable(code));
  DeviceQuery query(api(), handle);
  return read_device_samples(query, buffer, last_seen_us);
}

Maybe<GpuMemoryHeld> NvmlSource::process_memory(Pid pid, std::span<const std::uint32_t> devices) {
  // Only the library's entry points and per-call queries: NVML is thread-safe, and nothing
  // of this object that read() changes is touched.
  GpuMemoryHeld held;
  for (const std::uint32_t index : devices) {
    abi::Device handle = nullptr;
    if (api().handle_by_index.fn(index, &handle) != abi::kSuccess) continue;
    DeviceQuery query(api(), handle);
    const Maybe<std::vector<GpuProcess>> processes = read_processes(query);
    if (!processes) continue;
    const auto it = std::ranges::find(*processes, pid, &GpuProcess::pid);
    std::uint64_t& bytes = held[index];
    if (it == processes->end()) continue;
    // Listed without a figure (the driver's "N/A"): what it holds cannot be told.
    if (!it->used_memory_bytes) return std::unexpected(it->used_memory_bytes.error());
    bytes = *it->used_memory_bytes;
  }
  if (held.empty()) return std::unexpected(Unavailable::not_supported);
  return held;
}

template <class Change>
std::expected<void, AccountingRefusal> NvmlSource::change_accounting(std::uint32_t device_index,
                                                                     Change&& change) {
  abi::Device handle = nullptr;
  const abi::Return code = api().handle_by_index.fn(device_index, &handle);
  if (code == abi::kErrorInvalidArgument) return std::unexpected(AccountingRefusal::no_such_gpu);
  if (means_gpu_lost(code)) return std::unexpected(AccountingRefusal::gpu_lost);
  if (code != abi::kSuccess) return std::unexpected(AccountingRefusal::error);
  DeviceQuery query(api(), handle);
  return change(query);
}

std::expected<void, AccountingRefusal> NvmlSource::set_accounting_mode(std::uint32_t device_index,
                                                                       bool enabled) {
  return change_accounting(
      device_index, [&](DeviceQuery& query) { return nvml::set_accounting_mode(query, enabled); });
}

std::expected<void, AccountingRefusal> NvmlSource::clear_accounting(std::uint32_t device_index) {
  return change_accounting(device_index,
                           [](DeviceQuery& query) { return nvml::clear_accounting(query); });
}

DeviceIdentity NvmlSource::identity_of(DeviceQuery& query, unsigned index) {
  if (auto cached = identities_.find(index); cached != identities_.end()) return cached->second;
  DeviceIdentity identity = read_identity(query, index);
  if (identity_is_settled(identity)) identities_.emplace(index, identity);
  return identity;
}

// A device whose handle could not be had: it still appears, with every value absent for
// the reason, and with its earlier identity when there is one.
Device NvmlSource::unreachable_device(unsigned index, Unavailable reason) const {
  Device device;
  const auto cached = identities_.find(index);
  device.identity = cached != identities_.end() ? cached->second : absent_identity(index, reason);
  device.state = absent_state(reason);
  device.processes = std::unexpected(reason);
  device.accounting = std::unexpected(reason);
  device.vgpu = std::unexpected(reason);
  device.mig = std::unexpected(reason);
  device.lost = reason == Unavailable::gpu_lost;
  return device;
}

std::expected<void, Error> initialise(const Library& library) {
  const abi::Return code = library.api().init.fn();
  if (code == abi::kSuccess) return {};
  return std::unexpected(Error{
      ErrorCode::driver_failed,
      fmt::format("NVML ({}) was loaded but could not be initialised: {}. Is the NVIDIA kernel "
                  "module loaded, and may this user open /dev/nvidia*?",
                  library.path(), explain(library.api(), code))});
}

}  // namespace

std::expected<std::unique_ptr<GpuSource>, Error> open_nvml_source(const NvmlOptions& options) {
  auto library = Library::open(options.library_path);
  if (!library) return std::unexpected(std::move(library.error()));
  if (auto ok = initialise(*library); !ok) return std::unexpected(std::move(ok.error()));
  return std::make_unique<NvmlSource>(std::move(*library), options.keep_exited_accounting);
}

}  // namespace gpumeter::nvml

// SPDX-License-Identifier: MIT
#include "jetson/source.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "core/wall_clock.h"
#include "jetson/board.h"
#include "jetson/engines.h"
#include "jetson/gpu_devfreq.h"
#include "jetson/nvmap.h"
#include "jetson/rails.h"
#include "jetson/thermal.h"

namespace gpumeter::jetson {
namespace {

// The memory controller's clock (debugfs, root): BPMP's on TX2, Xavier and Orin, the clock
// framework's override on Nano.
constexpr std::array<std::string_view, 2> kEmcRates{
    "/sys/kernel/debug/bpmp/debug/clk/emc/rate",
    "/sys/kernel/debug/clk/override.emc/clk_rate",
};

// The memory controller's activity (actmon's average over its window, in kHz of busy cycles):
// the central actmon in debugfs on Orin, the sysfs average on older boards.
constexpr std::array<std::string_view, 2> kEmcActivity{
    "/sys/kernel/debug/cactmon/mc_all",
    "/sys/kernel/actmon_avg_activity/mc_all",
};

Maybe<double> emc_clock_mhz(const Sysfs& sysfs) {
  Maybe<std::int64_t> hz = std::unexpected(Unavailable::not_supported);
  for (const std::string_view path : kEmcRates) {
    hz = sysfs.integer(path);
    if (hz || hz.error() != Unavailable::not_supported) break;
  }
  if (!hz) return std::unexpected(hz.error());
  return static_cast<double>(*hz) / 1e6;
}

// The memory controller's load, percent: its busy cycles (kHz) over its clock (MHz x 1000).
Maybe<double> emc_load_percent(const Sysfs& sysfs, const Maybe<double>& clock_mhz) {
  Maybe<std::int64_t> khz = std::unexpected(Unavailable::not_supported);
  for (const std::string_view path : kEmcActivity) {
    khz = sysfs.integer(path);
    if (khz || khz.error() != Unavailable::not_supported) break;
  }
  if (!khz) return std::unexpected(khz.error());
  if (!clock_mhz) return std::unexpected(clock_mhz.error());
  if (*clock_mhz <= 0) return std::unexpected(Unavailable::error);
  return std::clamp(static_cast<double>(*khz) / (*clock_mhz * 10.0), 0.0, 100.0);
}

// The integrated GPU has no UUID of its own; history and the master tell GPUs apart by one,
// so gpumeter makes a stable one from the module's serial number (or, where the device tree
// has none, the installation's machine id). Never shaped like NVML's "GPU-..." UUIDs.
Maybe<std::string> board_uuid(const Sysfs& sysfs, const Board& board) {
  if (board.serial && !board.serial->empty()) return "JETSON-" + *board.serial;
  const auto machine = sysfs.text("/etc/machine-id");
  if (machine && !machine->empty()) return "JETSON-MACHINE-" + *machine;
  return std::unexpected(Unavailable::not_supported);
}

template <class T>
Maybe<double> as_double(const Maybe<T>& value) {
  if (!value) return std::unexpected(value.error());
  return static_cast<double>(*value);
}

class JetsonSource final : public GpuSource {
 public:
  JetsonSource(Sysfs sysfs, GpuDevfreq gpu, std::function<TimeUs()> now)
      : sysfs_(std::move(sysfs)), gpu_(std::move(gpu)), now_(std::move(now)) {}

  std::string_view name() const noexcept override { return "jetson"; }

  std::expected<GpuReading, Error> read() override {
    // nvmap's list, read once a round: the processes' GPU memory and, where /proc/meminfo has
    // no NvMapMemUsed, the GPU's.
    const Maybe<std::vector<NvmapClient>> clients = read_nvmap_clients(sysfs_);
    GpuReading reading = read_inventory_now(&clients);
    Device& device = reading.devices.front();
    DeviceState& state = device.state;
    const GpuFigures gpu = read_gpu(sysfs_, gpu_);
    state[DeviceMetric::utilization_gpu] = gpu.load_percent;
    // One clock drives the GPCs: the graphics and SM clocks are the same figure.
    state[DeviceMetric::clock_graphics] = gpu.clock_mhz;
    state[DeviceMetric::clock_sm] = gpu.clock_mhz;
    state[DeviceMetric::clock_graphics_max] = gpu.max_clock_mhz;
    state[DeviceMetric::clock_sm_max] = gpu.max_clock_mhz;
    state[DeviceMetric::clock_memory] = emc_clock_mhz(sysfs_);
    state[DeviceMetric::utilization_memory] =
        emc_load_percent(sysfs_, state[DeviceMetric::clock_memory]);
    std::vector<TemperatureSensor> zones = read_thermal_zones(sysfs_);
    state[DeviceMetric::temperature] = gpu_temperature(zones);
    std::vector<PowerRail> rails = read_rails(sysfs_);
    read_power(state, rails);
    device.board = BoardSensors{std::move(rails), std::move(zones), read_engines(sysfs_)};
    read_processes(device, clients);
    return reading;
  }

  std::expected<GpuReading, Error> read_inventory() override { return read_inventory_now(nullptr); }

  Maybe<GpuMemoryHeld> process_memory(Pid pid, std::span<const std::uint32_t> devices) override {
    if (std::ranges::find(devices, 0U) == devices.end()) {
      return std::unexpected(Unavailable::not_supported);
    }
    const auto clients = read_nvmap_clients(sysfs_);
    if (!clients) return std::unexpected(clients.error());
    const auto found = std::ranges::find(*clients, pid, &NvmapClient::pid);
    return GpuMemoryHeld{{0, found == clients->end() ? 0 : found->bytes}};
  }

 private:
  // The board, its release and the memory it shares with the CPU.
  // `clients`: nvmap's list when the caller read it; null to read it only where needed.
  GpuReading read_inventory_now(const Maybe<std::vector<NvmapClient>>* clients) const {
    const Board board = read_board(sysfs_);
    GpuReading reading;
    if (board.l4t_release) {
      reading.driver.driver_version = "L4T " + *board.l4t_release;
    } else {
      reading.driver.driver_version = std::unexpected(board.l4t_release.error());
    }
    reading.driver.nvml_version = std::unexpected(Unavailable::not_supported);
    reading.driver.cuda_driver_version = std::unexpected(Unavailable::not_supported);
    Device& device = reading.devices.emplace_back();
    device.identity.index = 0;
    device.identity.uuid = board_uuid(sysfs_, board);
    device.identity.name = board.model;
    device.identity.serial = board.serial;
    device.identity.pci_bus_id = std::unexpected(Unavailable::not_supported);
    device.identity.minor_number = std::unexpected(Unavailable::not_supported);
    device.identity.architecture = board.architecture;
    device.identity.compute_capability = board.compute_capability;
    for (auto& metric : device.state.metrics) metric = std::unexpected(Unavailable::not_supported);
    read_memory(device.state, clients);
    device.state.compute_mode = std::unexpected(Unavailable::not_supported);
    device.state.persistence_mode = std::unexpected(Unavailable::not_supported);
    device.processes = std::unexpected(Unavailable::not_supported);
    return reading;
  }

  // The GPU shares the CPU's memory: all of it is the GPU's to allocate, what nvmap holds is
  // the GPU's in use (the kernel's own count, or nvmap's per-process total), what the kernel
  // could still hand out is free.
  void read_memory(DeviceState& state, const Maybe<std::vector<NvmapClient>>* read_clients) const {
    const auto meminfo = sysfs_.text("/proc/meminfo");
    const SharedMemory memory = meminfo ? parse_meminfo(*meminfo) : SharedMemory{};
    state[DeviceMetric::memory_total] = as_double(memory.total);
    state[DeviceMetric::memory_free] = as_double(memory.available);
    state[DeviceMetric::memory_used] = as_double(memory.nvmap_used);
    if (!memory.nvmap_used) {
      const auto clients = read_clients != nullptr ? *read_clients : read_nvmap_clients(sysfs_);
      if (clients) {
        double used = 0;
        for (const NvmapClient& client : *clients) used += static_cast<double>(client.bytes);
        state[DeviceMetric::memory_used] = used;
      } else {
        state[DeviceMetric::memory_used] = std::unexpected(clients.error());
      }
    }
  }

  // The module's input rail, and the energy it drew since this source opened (the mean of
  // two readings times the time between them: the rails are read, not buffered).
  void read_power(DeviceState& state, const std::vector<PowerRail>& rails) {
    const std::optional<PowerRail> input = input_rail(rails);
    if (!input) return;  // not_supported, as read_inventory_now() left it
    state[DeviceMetric::power_draw] = input->watts;
    if (!input->watts) return;
    const TimeUs now = now_ ? now_() : wall_clock_us();
    if (last_power_) {
      const double seconds = static_cast<double>(now - last_power_->time_us) / kUsPerSecond;
      if (seconds > 0) energy_joules_ += (last_power_->watts + *input->watts) / 2.0 * seconds;
    }
    last_power_ = PowerReading{now, *input->watts};
    state[DeviceMetric::energy] = energy_joules_;
  }

  // Per-process GPU memory from nvmap; without root the list is absent, said as such.
  static void read_processes(Device& device, const Maybe<std::vector<NvmapClient>>& clients) {
    if (!clients) {
      device.processes = std::unexpected(clients.error());
      return;
    }
    std::vector<GpuProcess> processes;
    processes.reserve(clients->size());
    for (const NvmapClient& client : *clients) {
      GpuProcess process;
      process.pid = client.pid;
      process.used_memory_bytes = client.bytes;
      processes.push_back(process);
    }
    device.processes = std::move(processes);
  }

  struct PowerReading {
    TimeUs time_us = 0;
    double watts = 0;
  };

  Sysfs sysfs_;
  GpuDevfreq gpu_;
  std::function<TimeUs()> now_;
  std::optional<PowerReading> last_power_;
  double energy_joules_ = 0;
};

}  // namespace

bool is_tegra_board(const std::filesystem::path& root) {
  return is_tegra(Sysfs(root));
}

std::expected<std::unique_ptr<GpuSource>, Error> open_jetson_source(JetsonOptions options) {
  Sysfs sysfs(options.root);
  const std::string where = options.root == "/" ? "" : " under " + options.root.string();
  if (!is_tegra(sysfs)) {
    return std::unexpected(
        Error{ErrorCode::library_not_found,
              fmt::format("not a Jetson board{} (no nvidia,tegra device tree, no "
                          "/etc/nv_tegra_release)",
                          where)});
  }
  std::optional<GpuDevfreq> gpu = find_gpu(sysfs);
  if (!gpu) {
    return std::unexpected(
        Error{ErrorCode::library_not_found,
              fmt::format("no integrated GPU found{} (no /sys/class/devfreq entry whose device is "
                          "the GPU)",
                          where)});
  }
  return std::make_unique<JetsonSource>(std::move(sysfs), std::move(*gpu), std::move(options.now));
}

}  // namespace gpumeter::jetson

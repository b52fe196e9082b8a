// SPDX-License-Identifier: MIT
#include "sim/lib/library.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>

#include "sim/clock.h"
#include "sim/machine_clock.h"

namespace gpumeter::sim::lib {

Library& Library::instance() {
  static Library library;
  return library;
}

bool Library::caller_privileged() const {
  return scenario().driver.privileged.value_or(::geteuid() == 0);
}

Library::Library() : handles_(kMaxDevices), mig_handles_(kMaxDevices * kMaxMigSlots) {
  for (std::size_t i = 0; i < kMaxDevices; ++i) handles_[i].index = i;
  for (std::size_t i = 0; i < mig_handles_.size(); ++i) {
    mig_handles_[i].index = i / kMaxMigSlots;
    mig_handles_[i].mig_slot = static_cast<unsigned>(i % kMaxMigSlots);
  }
}

SimUs Library::now() const {
  return now_us() - epoch_us_;
}

void Library::report(const std::string& message) {
  if (!reported_.insert(message).second) return;
  std::fprintf(stderr, "gpumeter simulator: %s\n", message.c_str());
}

namespace {

// A path the same file is named by from this process, however it was given ("" if none).
std::string absolute_path(const std::filesystem::path& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? std::string{} : absolute.lexically_normal().string();
}

}  // namespace

const GpumeterSimHostSide& Library::host_side(const std::string& path) {
  auto loaded = load_scenario(path);
  if (!loaded) {
    prepared_.reset();
    host_side_ = HostSideExport::failed(loaded.error().message);
  } else {
    host_side_ = HostSideExport::of(*loaded);
    prepared_ = Prepared{absolute_path(path), std::move(*loaded)};
  }
  return host_side_->side();
}

abi::Return Library::load() {
  const char* path = std::getenv(kScenarioVariable);
  if (path == nullptr || *path == '\0') {
    report(std::string(kScenarioVariable) + " is not set: it must name a scenario file");
    return abi::kErrorDriverNotLoaded;
  }
  std::expected<Scenario, Error> loaded =
      prepared_ && !prepared_->path.empty() && prepared_->path == absolute_path(path)
          ? std::move(prepared_->scenario)
          : load_scenario(path);
  prepared_.reset();
  if (!loaded) {
    report(loaded.error().message);
    return abi::kErrorUnknown;
  }
  if (loaded->jetson) {
    // A Jetson board (Nano, TX2, Xavier) has no NVML driver to answer: its files are read.
    report(std::string(path) +
           ": a Jetson board's scenario, which has no NVML: read it with gpumeter "
           "--simulate-jetson");
    return abi::kErrorDriverNotLoaded;
  }
  if (loaded->devices.size() > kMaxDevices) {
    report(std::string(path) + ": the simulator supports at most 64 devices");
    return abi::kErrorUnknown;
  }
  if (!call_log_.open()) report(std::string(kCallLogVariable) + ": the file cannot be opened");
  loaded_ = std::make_unique<Loaded>(std::move(*loaded));
  // A newly loaded driver starts with the scenario's modes (or the state file's).
  accounting_state_ = {};
  vgpu_sized_.clear();
  vgpu_cleared_.clear();
  return abi::kSuccess;
}

namespace {

// Seconds since this process started (/proc/self/stat's start time against CLOCK_BOOTTIME):
// unlike the library's own state, it survives the library being closed and opened again.
double process_age_s() {
  std::ifstream stat("/proc/self/stat");
  std::string text;
  std::getline(stat, text);
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  // After the command: the state is field 3, the start time field 22.
  for (int i = 3; i < 22 && fields >> field; ++i) {
  }
  unsigned long long start_ticks = 0;
  if (!(fields >> start_ticks)) return 0;
  timespec boot{};
  ::clock_gettime(CLOCK_BOOTTIME, &boot);
  const double up = static_cast<double>(boot.tv_sec) + static_cast<double>(boot.tv_nsec) / 1e9;
  return up - static_cast<double>(start_ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace

// $GPUMETER_SIM_EPOCH_US, read at every first nvmlInit (tests step it between sessions);
// else the machine's clock (sim/machine_clock.h), joined once and kept for the life of the
// process. A malformed variable is said, not silently replaced.
std::int64_t Library::choose_epoch() {
  if (auto fixed = epoch_from_environment()) return *fixed;
  if (std::getenv(kEpochVariable) != nullptr) {
    report(std::string(kEpochVariable) +
           " is not a whole number of microseconds; using the machine's clock instead");
  }
  if (!machine_epoch_) {
    machine_epoch_ = machine_epoch(std::getenv(kScenarioVariable), history_lead_s(scenario()));
    if (!machine_epoch_->warning.empty()) report(machine_epoch_->warning);
  }
  return machine_epoch_->epoch_us;
}

abi::Return Library::init(bool legacy_v1) {
  if (references_ > 0) {
    ++references_;
    return abi::kSuccess;
  }
  if (const abi::Return loaded = load(); loaded != abi::kSuccess) return loaded;
  if (const auto& code = scenario().faults.init_code) return static_cast<abi::Return>(*code);
  if (process_age_s() < scenario().faults.init_fails_for_s) return abi::kErrorDriverNotLoaded;
  epoch_us_ = choose_epoch();
  call_costs_ = call_costs_from_environment().value_or(scenario().driver.call_costs);
  energy_.assign(scenario().devices.size(), EnergyMeter{0, 0});
  for (std::size_t i = 0; i < energy_.size(); ++i)
    energy_[i].mj = scenario().devices[i].energy_offset_mj;
  call_counts_.clear();
  if (legacy_v1) {
    for (std::size_t i = 0; i < scenario().devices.size(); ++i) {
      if (timeline().lost(i, seconds(now()))) return abi::kErrorGpuIsLost;
    }
  }
  references_ = 1;
  return abi::kSuccess;
}

abi::Return Library::shutdown() {
  if (references_ > 0) --references_;
  return abi::kSuccess;
}

std::optional<std::size_t> Library::index_of(abi::Device device) const {
  for (const abi::DeviceOpaque& handle : handles_) {
    if (&handle == device) {
      if (handle.index < scenario().devices.size()) return handle.index;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<MigRef> Library::mig_of(abi::Device device) const {
  // std::less: a total order even over pointers into different arrays.
  const std::less<const abi::DeviceOpaque*> before;
  if (before(device, mig_handles_.data()) ||
      !before(device, mig_handles_.data() + mig_handles_.size())) {
    return std::nullopt;
  }
  if (!device->mig_slot || device->index >= scenario().devices.size()) return std::nullopt;
  const DeviceSpec& spec = scenario().devices[device->index];
  if (!spec.mig) return std::nullopt;
  const MigInstanceSpec* instance = spec.mig->in_slot(*device->mig_slot);
  if (instance == nullptr) return std::nullopt;
  return MigRef{device->index, instance};
}

void Library::charge(std::string_view function) const {
  const double ms = call_cost_ms(call_costs_, function);
  if (ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

std::uint64_t Library::energy_mj(std::size_t device, SimUs now) {
  EnergyMeter& meter = energy_[device];
  if (now > meter.at) {
    meter.mj += timeline().energy_mj(device, seconds(meter.at), seconds(now));
    meter.at = now;
  }
  return static_cast<std::uint64_t>(std::llround(meter.mj));
}

std::optional<abi::Return> Library::flaky(std::string_view function,
                                          std::optional<std::size_t> device) {
  const auto& rules = scenario().faults.flaky;
  for (std::size_t r = 0; r < rules.size(); ++r) {
    const FlakyFault& rule = rules[r];
    if (rule.device && rule.device != device) continue;
    if (std::ranges::find(rule.functions, function) == rule.functions.end()) continue;
    const std::uint64_t calls = ++call_counts_[{r, std::string(function)}];
    if (calls % rule.every == 0) return static_cast<abi::Return>(rule.code);
  }
  return std::nullopt;
}

}  // namespace gpumeter::sim::lib

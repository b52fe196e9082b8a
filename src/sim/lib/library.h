// SPDX-License-Identifier: MIT
// The simulated driver's state: one per loaded copy of libnvidia-ml.so.1, as NVIDIA's
// library keeps one. Reference-counted init loads the scenario named by
// $GPUMETER_SIM_SCENARIO; every entry point reads the timeline under one lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "nvml/abi.h"
#include "sim/lib/accounting_state.h"
#include "sim/lib/call_log.h"
#include "sim/lib/host_side.h"
#include "sim/machine_clock.h"
#include "sim/scenario.h"
#include "sim/timeline.h"

// The library's device handle. Handles live in a fixed table, so a handle stays valid (and
// keeps meaning the same index) for the life of the process, across shutdown and init.
// MIG handles live in a second fixed table, one row of slots per GPU.
struct gpumeter::nvml::abi::DeviceOpaque {
  std::size_t index = 0;
  std::optional<unsigned> mig_slot;  // set on MIG handles
};

namespace gpumeter::sim::lib {

namespace abi = nvml::abi;

inline constexpr std::size_t kMaxDevices = 64;
inline constexpr unsigned kMaxMigSlots = 8;

// What a MIG handle stands for.
struct MigRef {
  std::size_t device = 0;
  const MigInstanceSpec* instance = nullptr;
};

class Library {
 public:
  static Library& instance();

  std::mutex& mutex() { return mutex_; }

  // nvmlInit*: loads the scenario on the first call. `legacy_v1` is nvmlInit, which also
  // fails when a GPU is lost at that moment.
  abi::Return init(bool legacy_v1);
  abi::Return shutdown();
  bool initialized() const { return references_ > 0; }

  // Only while initialized().
  const Scenario& scenario() const { return loaded_->scenario; }
  // Whether root-only calls may proceed: the scenario's driver.privileged, else whether the
  // caller is root (effective uid 0).
  bool caller_privileged() const;
  const Timeline& timeline() const { return loaded_->timeline; }
  std::int64_t epoch_us() const { return epoch_us_; }
  // Reads the scenario's pid files again (see Timeline::refresh_pids); every call does.
  void refresh_pids() { loaded_->timeline.refresh_pids(); }
  // µs since the epoch, now.
  SimUs now() const;

  abi::Device handle(std::size_t index) { return &handles_[index]; }
  // The index behind a handle this library gave out, if it is one and the GPU exists.
  std::optional<std::size_t> index_of(abi::Device device) const;
  abi::Device mig_handle(std::size_t device, unsigned slot) {
    return &mig_handles_[device * kMaxMigSlots + slot];
  }
  // The MIG instance behind a MIG handle, if it is one and the instance exists.
  std::optional<MigRef> mig_of(abi::Device device) const;

  // The energy counter of a device at `now`, mJ: monotonic even if the clock steps back.
  std::uint64_t energy_mj(std::size_t device, SimUs now);

  // Counts this call of `function` and answers the fault code if a flaky fault fires.
  std::optional<abi::Return> flaky(std::string_view function, std::optional<std::size_t> device);

  // vGPU state the calls change (lib/vgpu_state.h): the GPUs on which a sizing call was
  // answered, and the (instance, pid) accounting records cleared. Reset by each load.
  std::set<std::size_t>& vgpu_sized() { return vgpu_sized_; }
  std::set<std::pair<std::uint32_t, std::uint32_t>>& vgpu_cleared() { return vgpu_cleared_; }

  // gpumeterSimHostSide (sim/host_side_abi.h): the scenario at `path` parsed, its host side
  // kept for the caller, and the parse kept for the next load() of the same path.
  const GpumeterSimHostSide& host_side(const std::string& path);

  // Prints "gpumeter simulator: <message>" on stderr, each distinct message once.
  void report(const std::string& message);

  // Accounting modes and clears set by privileged callers (accounting_state.h).
  AccountingState& accounting_state() { return accounting_state_; }

  // Notes a call in $GPUMETER_SIM_CALL_LOG (lib/call_log.h), when a test asked for that.
  void log_call(std::string_view function) { call_log_.note(function); }
  // Spends what a call of `function` costs (sim/call_costs.h), holding the library's lock as
  // a driver holds its own: calls from other threads wait too.
  void charge(std::string_view function) const;

 private:
  Library();
  abi::Return load();
  std::int64_t choose_epoch();

  struct EnergyMeter {
    SimUs at = 0;
    double mj = 0;
  };

  // A scenario and the timeline that reads it (which refers to it, so they never move).
  struct Loaded {
    explicit Loaded(Scenario s) : scenario(std::move(s)), timeline(scenario) {}
    Scenario scenario;
    Timeline timeline;
  };

  std::mutex mutex_;
  int references_ = 0;
  std::unique_ptr<Loaded> loaded_;
  // A scenario host_side() parsed, which the next load() of the same path takes.
  struct Prepared {
    std::string path;
    Scenario scenario;
  };
  std::optional<Prepared> prepared_;
  std::unique_ptr<HostSideExport> host_side_;
  std::int64_t epoch_us_ = 0;
  std::optional<MachineEpoch> machine_epoch_;  // from the first nvmlInit on
  CallCosts call_costs_;                       // the scenario's, or the environment's
  std::vector<abi::DeviceOpaque> handles_;
  std::vector<abi::DeviceOpaque> mig_handles_;
  std::vector<EnergyMeter> energy_;
  std::map<std::pair<std::size_t, std::string>, std::uint64_t> call_counts_;  // (rule, function)
  std::set<std::string> reported_;
  AccountingState accounting_state_;
  std::set<std::size_t> vgpu_sized_;
  std::set<std::pair<std::uint32_t, std::uint32_t>> vgpu_cleared_;
  CallLog call_log_;
};

}  // namespace gpumeter::sim::lib

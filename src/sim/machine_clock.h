// SPDX-License-Identifier: MIT
// The simulated machine's one clock: where scenario time 0 lies, agreed by every process that
// loads the same scenario (a daemon, a one-shot command, a third-party client), as every
// client of a real driver reads one clock and one sample history.
//
// The first process to load a scenario picks the epoch: its load time minus the longest
// sample buffer of the scenario's GPUs, so that the driver's sample buffers are already full
// at the first call, as a driver's are for processes that started before anyone looked. It
// writes the epoch to a file of the scenario's own under $XDG_RUNTIME_DIR/gpumeter-sim (else
// /tmp/gpumeter-sim-UID) and holds a shared lock on it for as long as it runs; every later
// process reads the epoch from there while any holder runs. When the last holder exits the
// next loader starts a new timeline, as a driver without persistence mode starts afresh.
// $GPUMETER_SIM_EPOCH_US overrides all of this (tests that need a fixed origin).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "core/unique_fd.h"

namespace gpumeter::sim {

// A shared lock on a scenario's clock file; the last holder to go removes the file, so that
// nothing is left behind once no process runs the scenario.
class ClockHold {
 public:
  ClockHold() = default;
  ClockHold(UniqueFd clock, std::filesystem::path clock_path, std::filesystem::path guard_path)
      : clock_(std::move(clock)),
        clock_path_(std::move(clock_path)),
        guard_path_(std::move(guard_path)) {}
  ClockHold(ClockHold&&) noexcept = default;
  ClockHold& operator=(ClockHold&&) noexcept = default;
  ~ClockHold();

 private:
  UniqueFd clock_;
  std::filesystem::path clock_path_;
  std::filesystem::path guard_path_;
};

struct MachineEpoch {
  std::int64_t epoch_us = 0;  // µs since the Unix epoch
  ClockHold hold;             // keep it while the epoch is in use
  std::string warning;        // non-empty when the epoch could not be shared (a file error)
};

// The epoch for `scenario` (its absolute path names the shared file), the first loader's
// being now − `lead_s`.
MachineEpoch machine_epoch(const std::filesystem::path& scenario, double lead_s);

// The lead the first loader takes: the longest sample buffer of the scenario's GPUs, in whole
// seconds.
struct Scenario;
double history_lead_s(const Scenario& scenario);

}  // namespace gpumeter::sim

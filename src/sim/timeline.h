// SPDX-License-Identifier: MIT
// What a scenario's devices and processes read at a given time: the evaluation that the
// simulated library answers from, kept free of any NVML type.
//
// Times: `double` arguments are scenario seconds; SimUs values are integer microseconds
// since the scenario epoch (sample time stamps are epoch_us + SimUs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/life_index.h"
#include "sim/scenario.h"

namespace gpumeter::sim {

using SimUs = std::int64_t;

// Utilisation in percent, per engine.
struct Use {
  double sm = 0;
  double mem = 0;
  double enc = 0;
  double dec = 0;
};

// The same, rounded as the driver reports it (whole percent, 0..100).
struct UsePercent {
  unsigned sm = 0;
  unsigned mem = 0;
  unsigned enc = 0;
  unsigned dec = 0;
  bool any() const { return sm + mem + enc + dec > 0; }
};
UsePercent rounded(const Use& use);

// A device's readings at one instant. Utilisation-driven values (power, temperature,
// clocks, fan, PCIe) follow the utilisation of the last complete sample period, which is
// also the newest entry of the sample ring, so every call agrees with every other.
struct DeviceReading {
  Use use;
  UsePercent percent;
  std::uint64_t memory_used_bytes = 0;  // allocated by processes; excludes reserved
  double power_mw = 0;
  unsigned temperature_c = 0;
  unsigned fan_percent = 0;
  unsigned pstate = 0;
  Clocks clocks;
  unsigned pcie_tx_kbps = 0;
  unsigned pcie_rx_kbps = 0;
};

struct DeviceSample {
  SimUs time = 0;  // end of the sample period
  UsePercent use;
  double power_mw = 0;
  Clocks clocks;
};

struct ProcessSample {
  std::uint32_t pid = 0;
  SimUs time = 0;
  UsePercent use;
};

// nvmlAccountingStats_t's content, before it becomes C.
struct AccountingRecord {
  std::uint32_t pid = 0;
  unsigned gpu_utilization = 0;     // lifetime mean, percent
  unsigned memory_utilization = 0;  // lifetime mean, percent
  std::uint64_t max_memory_bytes = 0;
  std::uint64_t time_ms = 0;  // 0 while running
  double start_s = 0;
  bool running = false;
};

class Timeline {
 public:
  explicit Timeline(const Scenario& scenario);
  const Scenario& scenario() const { return scenario_; }

  // The pid a process of the scenario has now: its fixed pid, or the pid its `pid_file`
  // named at the last refresh_pids() while that process was alive. A process without one is
  // absent from everything below, as if it had not started.
  std::optional<std::uint32_t> pid_of(const ProcessSpec& process) const;
  // Reads every `pid_file` again. The simulated library calls it on each NVML call, so a
  // process appears once it has written its file and leaves when it exits.
  void refresh_pids();

  bool lost(std::size_t device, double t) const;
  // Processes on `device` alive at t (and with a pid), in scenario order.
  std::vector<const ProcessSpec*> processes(std::size_t device, double t) const;
  // Mean utilisation of one process over [a, b]; time it was not alive counts as 0.
  Use process_mean(const ProcessSpec& process, double a, double b) const;
  // Bytes in use at t, or nullopt when the scenario says "not available"; 0 when not alive.
  std::optional<std::uint64_t> process_memory(const ProcessSpec& process, double t) const;
  // Mean device utilisation over [a, b]: at each instant the processes' sum, capped at 100
  // per engine (or the scripted device utilisation).
  Use device_mean(std::size_t device, double a, double b) const;

  DeviceReading reading(std::size_t device, SimUs now) const;
  // The driver's sample ring (sample_buffer_s long), oldest first. Samples start one period
  // after the epoch. Only those stamped after `after` (the caller's lastSeenTimeStamp in
  // scenario time), as for process_samples: a drain every round wants the newest few, and
  // computing the whole ring for each was most of a simulated round.
  std::vector<DeviceSample> device_samples(std::size_t device, SimUs now, SimUs after = -1) const;
  // Per-process samples with non-zero use, oldest first, at most process_sample_capacity
  // (the newest ones), from the same ring; only those stamped after `after` (the caller's
  // lastSeenTimeStamp in scenario time: older ones would be filtered out anyway, and
  // computing them is most of a drain's cost).
  std::vector<ProcessSample> process_samples(std::size_t device, SimUs now, SimUs after = -1) const;
  // What a driver answers to a per-process utilisation query: one sample per process busy
  // in the periods of the ring stamped after `after`, holding its mean use over all those
  // periods (idle ones count as 0) and stamped with the newest period's end (seen on an H200,
  // driver 580.159.04: docs/hardware.md). At most process_sample_capacity, in scenario order.
  std::vector<ProcessSample> process_averages(std::size_t device, SimUs now,
                                              SimUs after = -1) const;
  // Energy drawn over [a, b], in mJ.
  double energy_mj(std::size_t device, double a, double b) const;
  // Records of processes that started on `device` by t (running or not), oldest first,
  // at most accounting_buffer_size (the newest).
  std::vector<AccountingRecord> accounting(std::size_t device, double t) const;
  // The records of accounting(device, t) whose pid is `pid`, oldest first, computed without
  // the others' (a stats call asks about one pid; a full buffer holds thousands).
  std::vector<AccountingRecord> accounting_of(std::size_t device, double t,
                                              std::uint32_t pid) const;

 private:
  Use device_integral(std::size_t device, double a, double b) const;
  double next_change(std::size_t device, double t) const;
  Use instant(std::size_t device, double t) const;
  AccountingRecord account(const ProcessSpec& process, double t) const;

  const Scenario& scenario_;
  std::vector<std::optional<std::uint32_t>> pids_;          // by position in scenario_.processes
  std::vector<std::vector<const ProcessSpec*>> on_device_;  // by device, in scenario order
  std::vector<LifeIndex> lives_;                            // by device
  // The processes inside the VMs of a vGPU host, by device: their use is the board's too.
  std::vector<std::vector<const VgpuProcessSpec*>> in_vms_;
  // The vGPU instances alive on a device hold frame buffer on it.
  std::vector<std::vector<const VgpuInstanceSpec*>> vgpus_;
  bool pid_files_;  // whether any process's pid is read from a file (refresh_pids has work)
};

// Seconds for µs since the epoch.
inline double seconds(SimUs us) {
  return static_cast<double>(us) / 1e6;
}

}  // namespace gpumeter::sim

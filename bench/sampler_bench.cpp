// SPDX-License-Identifier: MIT
// The sampler on a heavy machine: 8 GPUs with 64 processes each (bench/bench-8x64.json),
// through the real loader against the simulated library, its clock stepped one second per
// round (so nothing runs in real time).
//  - BM_SamplingRound/procfs:1: CPU time of one round (collect, drains, memory and host
//    samples, series, snapshot). It includes the simulator's own work, which a real driver
//    does. With procfs:0 the host answers no CPU and memory figures, which isolates the cost
//    of reading procfs for 512 processes.
//  - BM_SamplingRoundRecentFigures: procfs:1 as the daemon and `top` run it, the snapshot
//    carrying each process's recent engine use, CPU and memory from the series.
//  - BM_SamplingRoundRealProcesses: the same round with one real, idle process spawned for each
//    of the 512 scenario processes and the host side read from procfs for those: describe()
//    (user, command line, start time, container) and usage() of each, as the daemon does on a
//    real machine.
//  - BM_SamplingRoundAccounting/accounting:1/keep:1 and keep:0: a round on 8 GPUs with
//    accounting mode on and full 4000-record buffers, with exited records kept between rounds
//    and without (every record asked for every round); accounting:0: the same machine with the
//    mode off, the round without any record. With GPUMETER_SIM_CALL_LOG naming a file it also
//    counts the stats calls per round (the log's writes then cost time: time without it).
//  - BM_OneSimulatedHour: 3,601 rounds at 1 s; reports the series' allocated bytes at the end,
//    and this process's VmRSS and VmHWM (run it alone, with --benchmark_filter, so that no
//    other benchmark's memory is counted), then what malloc_trim costs and gives back.
// In the first and last, the scenario's pids are not real processes, so host CPU and memory
// are read from procfs for this very process instead: the figures are meaningless, the cost
// is real. (Reading /proc/self/stat of a process with several threads costs a little more
// than of one with one.)
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/sampler.h"
#include "host/files.h"
#include "host/proc_parse.h"
#include "host/procfs.h"
#include "nvml/backend.h"
#include "sim/scenario_host.h"

namespace {

using gpumeter::TimeUs;

constexpr TimeUs kEpochUs = 1'700'000'000'000'000;
constexpr TimeUs kSecondUs = 1'000'000;

class SelfMeasuringHost final : public gpumeter::ProcessSource {
 public:
  SelfMeasuringHost(std::unique_ptr<gpumeter::ProcessSource> scenario, bool read_procfs)
      : scenario_(std::move(scenario)), read_procfs_(read_procfs) {}
  gpumeter::Maybe<gpumeter::HostProcess> describe(gpumeter::Pid pid) override {
    return scenario_->describe(pid);
  }
  void begin_round() override { procfs_.begin_round(); }
  gpumeter::Maybe<gpumeter::ProcessUsage> usage(gpumeter::Pid /*pid*/,
                                                gpumeter::UsageDetail detail) override {
    if (!read_procfs_) return std::unexpected(gpumeter::Unavailable::not_supported);
    return procfs_.usage(self_, detail);
  }

 private:
  std::unique_ptr<gpumeter::ProcessSource> scenario_;
  bool read_procfs_;
  gpumeter::host::ProcfsProcessSource procfs_;
  gpumeter::Pid self_ = static_cast<gpumeter::Pid>(::getpid());
};

// Knows no process: for listing the scenario's pids.
class NoHost final : public gpumeter::ProcessSource {
 public:
  gpumeter::Maybe<gpumeter::HostProcess> describe(gpumeter::Pid /*pid*/) override {
    return std::unexpected(gpumeter::Unavailable::process_gone);
  }
};

// One idle real process (`sleep`) per scenario pid, killed and reaped on destruction.
class RealProcesses {
 public:
  RealProcesses() = default;
  RealProcesses(const RealProcesses&) = delete;
  RealProcesses& operator=(const RealProcesses&) = delete;
  ~RealProcesses() {
    for (const auto& [scenario_pid, pid] : real_) ::kill(static_cast<pid_t>(pid), SIGKILL);
    for (const auto& [scenario_pid, pid] : real_) ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
  }

  bool spawn_for(gpumeter::Pid scenario_pid) {
    char program[] = "sleep";
    char forever[] = "infinity";
    char* argv[] = {program, forever, nullptr};
    pid_t pid = 0;
    if (::posix_spawnp(&pid, program, nullptr, nullptr, argv, environ) != 0) return false;
    real_.emplace(scenario_pid, static_cast<gpumeter::Pid>(pid));
    return true;
  }

  // The real process standing for `scenario_pid`, or 0.
  gpumeter::Pid real(gpumeter::Pid scenario_pid) const {
    const auto it = real_.find(scenario_pid);
    return it == real_.end() ? 0 : it->second;
  }

 private:
  std::map<gpumeter::Pid, gpumeter::Pid> real_;
};

// The host side of the scenario's processes read from procfs for the real stand-ins.
class RealProcessHost final : public gpumeter::ProcessSource {
 public:
  explicit RealProcessHost(const RealProcesses& processes) : processes_(processes) {}
  gpumeter::Maybe<gpumeter::HostProcess> describe(gpumeter::Pid pid) override {
    const gpumeter::Pid real = processes_.real(pid);
    if (real == 0) return std::unexpected(gpumeter::Unavailable::process_gone);
    auto described = procfs_.describe(real);
    if (described) described->pid = pid;
    return described;
  }
  void begin_round() override { procfs_.begin_round(); }
  gpumeter::Maybe<gpumeter::ProcessUsage> usage(gpumeter::Pid pid,
                                                gpumeter::UsageDetail detail) override {
    const gpumeter::Pid real = processes_.real(pid);
    if (real == 0) return std::unexpected(gpumeter::Unavailable::process_gone);
    return procfs_.usage(real, detail);
  }

 private:
  const RealProcesses& processes_;
  gpumeter::host::ProcfsProcessSource procfs_;
};

// The simulated 8 × 64 machine (or the scenario named), its clock at scenario time `t_s`.
struct Machine {
  std::unique_ptr<gpumeter::GpuSource> gpus;
  std::unique_ptr<gpumeter::ProcessSource> host;
  TimeUs now_us = kEpochUs;
  std::string scenario = GPUMETER_BENCH_SCENARIO;
  bool keep_exited_accounting = true;

  bool open(bool read_procfs) {
    if (!open_gpus()) return false;
    auto scenario_host = gpumeter::sim::open_scenario_host(scenario, nullptr);
    if (!scenario_host) return false;
    host = std::make_unique<SelfMeasuringHost>(std::move(*scenario_host), read_procfs);
    return true;
  }

  // With a real process standing in for each of the scenario's.
  bool open_with(RealProcesses& processes) {
    if (!open_gpus()) return false;
    NoHost no_host;
    auto snapshot = gpumeter::collect(*gpus, no_host, {}, now_us);
    if (!snapshot) return false;
    for (const auto& [pid, described] : snapshot->processes) {
      if (!processes.spawn_for(pid)) return false;
    }
    host = std::make_unique<RealProcessHost>(processes);
    return true;
  }

  bool open_gpus() {
    setenv("GPUMETER_SIM_SCENARIO", scenario.c_str(), 1);
    setenv("GPUMETER_SIM_EPOCH_US", std::to_string(kEpochUs).c_str(), 1);
    step_to(kEpochUs);
    auto nvml = gpumeter::nvml::open_nvml_source(
        {.library_path = GPUMETER_SIM_LIBRARY, .keep_exited_accounting = keep_exited_accounting});
    if (!nvml) return false;
    gpus = std::move(*nvml);
    return true;
  }

  void step_to(TimeUs t) {
    now_us = t;
    setenv("GPUMETER_SIM_NOW_US", std::to_string(t).c_str(), 1);
  }

  // One round a second later than the last.
  bool round(gpumeter::Sampler& sampler) {
    step_to(now_us + kSecondUs);
    return sampler.sample_once(now_us).has_value();
  }
};

// Rounds on settled series: a minute of history first.
void time_rounds(benchmark::State& state, Machine& machine, bool recent_figures = false) {
  gpumeter::SamplerConfig config;
  config.recent_figures = recent_figures;
  gpumeter::Sampler sampler(*machine.gpus, *machine.host, config);
  for (int i = 0; i < 60; ++i) machine.round(sampler);
  for (auto _ : state) {
    if (!machine.round(sampler)) state.SkipWithError("a round failed");
  }
  const gpumeter::SamplerStats stats = sampler.stats();
  state.counters["series_MiB"] = static_cast<double>(stats.series_bytes) / (1 << 20);
  state.counters["host_failures"] = static_cast<double>(stats.host.failures);
}

void BM_SamplingRound(benchmark::State& state) {
  Machine machine;
  if (!machine.open(state.range(0) != 0)) {
    state.SkipWithError("cannot open the simulated machine");
    return;
  }
  time_rounds(state, machine);
}

// The daemon's round: each published snapshot carries every process's recent engine use, CPU
// and memory, taken from the series.
void BM_SamplingRoundRecentFigures(benchmark::State& state) {
  Machine machine;
  if (!machine.open(true)) {
    state.SkipWithError("cannot open the simulated machine");
    return;
  }
  time_rounds(state, machine, true);
}

void BM_SamplingRoundRealProcesses(benchmark::State& state) {
  RealProcesses processes;
  Machine machine;
  if (!machine.open_with(processes)) {
    state.SkipWithError("cannot open the simulated machine or spawn its processes");
    return;
  }
  time_rounds(state, machine);
}

constexpr double kKibPerMib = 1024.0;

gpumeter::host::ProcStatus own_status() {
  const auto text = gpumeter::host::read_file("/proc/self/status");
  return text ? gpumeter::host::parse_status(*text) : gpumeter::host::ProcStatus{};
}

double rss_mib() {
  return static_cast<double>(own_status().rss_kib.value_or(0)) / kKibPerMib;
}

// VmRSS and VmHWM of this process, MiB (0 when unreadable).
void count_memory(benchmark::State& state) {
  const gpumeter::host::ProcStatus status = own_status();
  state.counters["VmRSS_MiB"] = static_cast<double>(status.rss_kib.value_or(0)) / kKibPerMib;
  state.counters["VmHWM_MiB"] = static_cast<double>(status.peak_rss_kib.value_or(0)) / kKibPerMib;
}

void BM_OneSimulatedHour(benchmark::State& state) {
  for (auto _ : state) {
    Machine machine;
    if (!machine.open(true)) {
      state.SkipWithError("cannot open the simulated machine");
      return;
    }
    gpumeter::Sampler sampler(*machine.gpus, *machine.host, {});
    for (int i = 0; i <= 3600; ++i) machine.round(sampler);
    const gpumeter::SamplerStats stats = sampler.stats();
    state.counters["series_MiB"] = static_cast<double>(stats.series_bytes) / (1 << 20);
    state.counters["rounds"] = static_cast<double>(stats.rounds);
    state.counters["failures"] =
        static_cast<double>(stats.gpu_read.failures + stats.utilization_drain.failures);
    // While the sampler, and with it the series, is alive.
    count_memory(state);
    // What the daemon's once-a-minute trim (cli/heap_tuning.h) costs and gives back here.
    const auto trim_start = std::chrono::steady_clock::now();
    malloc_trim(0);
    state.counters["trim_ms"] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - trim_start)
            .count();
    state.counters["VmRSS_trimmed_MiB"] = rss_mib();
  }
}

// 8 GPUs with accounting mode on and a full buffer of 4000 records each (3,996 exited
// processes, 4 running), written to a temporary file; the scenario's pids are not real and
// the host is not read (procfs:0), so the round is the GPUs' side.
std::string full_accounting_scenario(bool enabled) {
  constexpr int kGpus = 8;
  constexpr int kExited = 3996;
  constexpr int kRunning = 4;
  std::string processes;
  for (int gpu = 0; gpu < kGpus; ++gpu) {
    for (int i = 0; i < kExited + kRunning; ++i) {
      const bool running = i >= kExited;
      const int start = running ? -100 : -200'000 + (i * 40);
      const std::string end = running ? "" : fmt::format(R"("end_s": {}, )", start + 30);
      processes +=
          fmt::format(R"({}{{"device": {}, "pid": {}, "start_s": {}, {}"used_memory_bytes": {}, )"
                      R"("utilization": {{"sm": {}, "mem": {}}}}})",
                      processes.empty() ? "" : ",\n", gpu, 100'000 + (gpu * 10'000) + i, start, end,
                      (1 + (i % 64)) * (1 << 24), 10 + (i % 80), 5 + (i % 20));
    }
  }
  std::string devices;
  for (int gpu = 0; gpu < kGpus; ++gpu) {
    devices += fmt::format(R"({}{{"pci": {{"bus_id": "00000000:{:02X}:00.0"}}}})",
                           gpu == 0 ? "" : ", ", 0x18 + (gpu * 0x10));
  }
  return fmt::format(
      R"({{"description": "8 H200s with accounting on and full 4000-record buffers",)"
      R"("device_defaults": {{"name": "NVIDIA H200", "memory_total_bytes": 150754820096, )"
      R"("process_sample_capacity": 1000, "accounting": {{"enabled": {}, "buffer_size": 4000}}}},)"
      R"("devices": [{}], "processes": [{}]}})",
      enabled, devices, processes);
}

// The scenario above, in a file for the life of the benchmark process.
class ScenarioFile {
 public:
  ScenarioFile(const std::string& name, const std::string& text)
      : path_(fmt::format("/tmp/gpumeter-bench-{}-{}.json", name, ::getpid())) {
    std::ofstream(path_) << text;
  }
  ScenarioFile(const ScenarioFile&) = delete;
  ScenarioFile& operator=(const ScenarioFile&) = delete;
  ~ScenarioFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const std::string& full_accounting_scenario_path(bool enabled) {
  static const ScenarioFile on("accounting-on", full_accounting_scenario(true));
  static const ScenarioFile off("accounting-off", full_accounting_scenario(false));
  return enabled ? on.path() : off.path();
}

// Stats calls in the simulator's call log so far (GPUMETER_SIM_CALL_LOG), or none unset.
std::optional<std::size_t> logged_stats_calls() {
  const char* log = std::getenv("GPUMETER_SIM_CALL_LOG");
  if (log == nullptr || *log == '\0') return std::nullopt;
  std::ifstream in(log);
  std::size_t calls = 0;
  for (std::string line; std::getline(in, line);) {
    if (line == "nvmlDeviceGetAccountingStats") ++calls;
  }
  return calls;
}

// One round with 8 full accounting buffers; keep:1 keeps exited records between rounds,
// keep:0 asks the driver about all 32,000 every round (as before). accounting:0 is the same
// machine with the mode off: the round without reading any record.
void BM_SamplingRoundAccounting(benchmark::State& state) {
  Machine machine;
  machine.scenario = full_accounting_scenario_path(state.range(0) != 0);
  machine.keep_exited_accounting = state.range(1) != 0;
  if (!machine.open(false)) {
    state.SkipWithError("cannot open the simulated machine");
    return;
  }
  gpumeter::Sampler sampler(*machine.gpus, *machine.host, {});
  for (int i = 0; i < 3; ++i) machine.round(sampler);
  const auto calls_before = logged_stats_calls();
  for (auto _ : state) {
    if (!machine.round(sampler)) state.SkipWithError("a round failed");
  }
  if (const auto calls_after = logged_stats_calls(); calls_before && calls_after) {
    state.counters["stats_calls_per_round"] =
        static_cast<double>(*calls_after - *calls_before) / static_cast<double>(state.iterations());
  }
}

BENCHMARK(BM_SamplingRound)->ArgName("procfs")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SamplingRoundRecentFigures)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SamplingRoundAccounting)
    ->ArgNames({"accounting", "keep"})
    ->Args({1, 1})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SamplingRoundRealProcesses)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneSimulatedHour)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();

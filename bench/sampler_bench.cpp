// The sampler on a heavy machine: 8 GPUs with 64 processes each (bench/bench-8x64.json),
// through the real loader against the simulated library, its clock stepped one second per
// round (so nothing runs in real time).
//  - BM_SamplingRound/procfs:1: CPU time of one round (collect, drains, memory and host
//    samples, series, snapshot). It includes the simulator's own work, which a real driver
//    does. With procfs:0 the host answers no CPU and memory figures, which isolates the cost
//    of reading procfs for 512 processes.
//  - BM_OneSimulatedHour: 3,601 rounds at 1 s; reports the series' allocated bytes at the end.
// The scenario's pids are not real processes, so host CPU and memory are read from procfs
// for this very process instead: the figures are meaningless, the cost is real. (Reading
// /proc/self/stat of a process with several threads costs a little more than of one with one.)
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "core/sampler.h"
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
  gpumeter::Maybe<gpumeter::ProcessUsage> usage(gpumeter::Pid /*pid*/) override {
    if (!read_procfs_) return std::unexpected(gpumeter::Unavailable::not_supported);
    return procfs_.usage(self_);
  }

 private:
  std::unique_ptr<gpumeter::ProcessSource> scenario_;
  bool read_procfs_;
  gpumeter::host::ProcfsProcessSource procfs_;
  gpumeter::Pid self_ = static_cast<gpumeter::Pid>(::getpid());
};

// The simulated 8 × 64 machine, its clock at scenario time `t_s`.
struct Machine {
  std::unique_ptr<gpumeter::GpuSource> gpus;
  std::unique_ptr<gpumeter::ProcessSource> host;
  TimeUs now_us = kEpochUs;

  bool open(bool read_procfs) {
    const std::string scenario = GPUMETER_BENCH_SCENARIO;
    setenv("GPUMETER_SIM_SCENARIO", scenario.c_str(), 1);
    setenv("GPUMETER_SIM_EPOCH_US", std::to_string(kEpochUs).c_str(), 1);
    step_to(kEpochUs);
    auto nvml = gpumeter::nvml::open_nvml_source({.library_path = GPUMETER_SIM_LIBRARY});
    auto scenario_host = gpumeter::sim::open_scenario_host(scenario, nullptr);
    if (!nvml || !scenario_host) return false;
    gpus = std::move(*nvml);
    host = std::make_unique<SelfMeasuringHost>(std::move(*scenario_host), read_procfs);
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

void BM_SamplingRound(benchmark::State& state) {
  Machine machine;
  if (!machine.open(state.range(0) != 0)) {
    state.SkipWithError("cannot open the simulated machine");
    return;
  }
  gpumeter::Sampler sampler(*machine.gpus, *machine.host, {});
  // A minute of history first, so that the round works on settled series.
  for (int i = 0; i < 60; ++i) machine.round(sampler);
  for (auto _ : state) {
    if (!machine.round(sampler)) state.SkipWithError("a round failed");
  }
  state.counters["series_MiB"] = static_cast<double>(sampler.stats().series_bytes) / (1 << 20);
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
  }
}

BENCHMARK(BM_SamplingRound)->ArgName("procfs")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneSimulatedHour)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();

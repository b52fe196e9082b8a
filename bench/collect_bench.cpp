// SPDX-License-Identifier: MIT
// One snapshot collection: every NVML call for every GPU of a scenario, through the real
// dlopen'd (simulated) library, plus the procfs reads for the GPU processes.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <chrono>
#include <string>

#include "core/collect.h"
#include "host/procfs.h"
#include "nvml/backend.h"
#include "sim/scenario_host.h"

namespace {

gpumeter::TimeUs now_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

void collect_scenario(benchmark::State& state, const char* scenario_name) {
  const std::string scenario = std::string(GPUMETER_SCENARIO_DIR) + "/" + scenario_name;
  setenv("GPUMETER_SIM_SCENARIO", scenario.c_str(), 1);
  auto gpus = gpumeter::nvml::open_nvml_source({.library_path = GPUMETER_SIM_LIBRARY});
  auto host = gpumeter::sim::open_scenario_host(
      scenario, std::make_unique<gpumeter::host::ProcfsProcessSource>());
  if (!gpus || !host) {
    state.SkipWithError("cannot open the simulated machine");
    return;
  }
  for (auto _ : state) {
    auto snapshot = gpumeter::collect(**gpus, **host, {}, now_us());
    benchmark::DoNotOptimize(snapshot);
  }
}

void BM_CollectEightGpus(benchmark::State& state) {
  collect_scenario(state, "dgx-8gpu.json");
}
void BM_CollectWorkstation(benchmark::State& state) {
  collect_scenario(state, "workstation.json");
}

BENCHMARK(BM_CollectEightGpus)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CollectWorkstation)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

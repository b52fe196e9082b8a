// SPDX-License-Identifier: MIT
// The Prometheus exposition on a heavy machine: 8 GPUs with 64 processes each
// (bench/bench-8x64.json), sampled for a simulated minute through the real loader against the
// simulated library, its clock stepped one second per round.
//  - BM_RenderMetrics/N: exposition::render_metrics() of one snapshot with the top N processes (0:
//  per-user
//    series only); what a scrape of a new snapshot costs besides exposition::recent_activity().
//  - BM_RecentActivity: each process's SM ratio over the last 10 s from the series.
//  - BM_CachedScrape: exposition::MetricsCache::current() for a snapshot already rendered: what
//  every
//    other scrape of the same snapshot costs.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <memory>
#include <string>

#include "core/sampler.h"
#include "exposition/cache.h"
#include "exposition/metrics.h"
#include "exposition/process_activity.h"
#include "nvml/backend.h"
#include "sim/scenario_host.h"

namespace {

using gpumeter::TimeUs;

constexpr TimeUs kEpochUs = 1'700'000'000'000'000;
constexpr TimeUs kSecondUs = 1'000'000;

// The simulated 8 × 64 machine after a minute of one-second rounds.
struct Machine {
  std::unique_ptr<gpumeter::GpuSource> gpus;
  std::unique_ptr<gpumeter::ProcessSource> host;
  std::unique_ptr<gpumeter::Sampler> sampler;

  bool open() {
    setenv("GPUMETER_SIM_SCENARIO", GPUMETER_BENCH_SCENARIO, 1);
    setenv("GPUMETER_SIM_EPOCH_US", std::to_string(kEpochUs).c_str(), 1);
    auto nvml = gpumeter::nvml::open_nvml_source({.library_path = GPUMETER_SIM_LIBRARY});
    auto scenario_host = gpumeter::sim::open_scenario_host(GPUMETER_BENCH_SCENARIO, nullptr);
    if (!nvml || !scenario_host) return false;
    gpus = std::move(*nvml);
    host = std::move(*scenario_host);
    sampler = std::make_unique<gpumeter::Sampler>(*gpus, *host, gpumeter::SamplerConfig{});
    for (TimeUs t = kEpochUs; t <= kEpochUs + 60 * kSecondUs; t += kSecondUs) {
      setenv("GPUMETER_SIM_NOW_US", std::to_string(t).c_str(), 1);
      if (!sampler->sample_once(t)) return false;
    }
    return true;
  }
};

Machine* machine() {
  static Machine* opened = [] {
    auto* m = new Machine;  // kept for the whole run: benchmarks share it
    return m->open() ? m : nullptr;
  }();
  return opened;
}

void BM_RenderMetrics(benchmark::State& state) {
  Machine* m = machine();
  if (m == nullptr) return state.SkipWithError("cannot open the simulated machine");
  const auto snapshot = m->sampler->snapshot();
  const auto activity = gpumeter::exposition::recent_activity(*m->sampler, snapshot->time_us);
  const auto stats = m->sampler->stats();
  gpumeter::exposition::MetricsOptions options;
  options.processes.top = static_cast<std::size_t>(state.range(0));
  if (state.range(0) == 0) options.processes.series = gpumeter::exposition::ProcessSeries::users;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text =
        gpumeter::exposition::render_metrics(*snapshot, stats, options, activity);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RenderMetrics)->Arg(0)->Arg(20)->Arg(512)->Unit(benchmark::kMicrosecond);

void BM_RecentActivity(benchmark::State& state) {
  Machine* m = machine();
  if (m == nullptr) return state.SkipWithError("cannot open the simulated machine");
  const TimeUs now = m->sampler->snapshot()->time_us;
  for (auto _ : state) {
    benchmark::DoNotOptimize(gpumeter::exposition::recent_activity(*m->sampler, now));
  }
}
BENCHMARK(BM_RecentActivity)->Unit(benchmark::kMicrosecond);

void BM_CachedScrape(benchmark::State& state) {
  Machine* m = machine();
  if (m == nullptr) return state.SkipWithError("cannot open the simulated machine");
  gpumeter::exposition::MetricsCache cache(*m->sampler, {});
  benchmark::DoNotOptimize(cache.current());
  for (auto _ : state) benchmark::DoNotOptimize(cache.current());
}
BENCHMARK(BM_CachedScrape)->ThreadRange(1, 2);

}  // namespace

BENCHMARK_MAIN();

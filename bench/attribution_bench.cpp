// SPDX-License-Identifier: MIT
// The attribution query over a busy GPU: 64 processes on one device, each reporting a sample
// every 1/6 s (the shortest driver period) while busy, in bursts of 0.3 to 3 s with idle gaps,
// for the 2-minute fine horizon and 10 minutes of coarse buckets before it; device samples
// every second.
//  - BM_TaskUsage/N: usage() for one process over a task window of N ms ending 5 s ago: what a
//    task daemon computes for each task's end reply.
//  - BM_UsagePerProcess: usage_per_process() of the last 10 s: what the recorder computes per
//    GPU every record interval.
#include <benchmark/benchmark.h>

#include <array>
#include <random>

#include "core/attribution.h"

namespace {

using gpumeter::ProcessKey;
using gpumeter::Series;
using gpumeter::TimeUs;

constexpr TimeUs kEpochUs = 1'700'000'000'000'000;
constexpr TimeUs kSecondUs = 1'000'000;
constexpr TimeUs kPeriodUs = 166'667;
constexpr TimeUs kSpanUs = 720 * kSecondUs;
constexpr int kProcesses = 64;

ProcessKey key_of(int i) {
  return {.pid = static_cast<gpumeter::Pid>(1000 + i), .start_time_us = kEpochUs - kSecondUs};
}

const Series& busy_gpu() {
  static const Series series = [] {
    Series s;
    s.set_sample_period_us(0, kPeriodUs);
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<TimeUs> burst(300'000, 3 * kSecondUs);
    std::uniform_int_distribution<std::uint32_t> percent(5, 100);
    std::array<TimeUs, kProcesses> busy_until{};
    std::array<std::uint32_t, kProcesses> sm{};
    for (TimeUs t = kEpochUs + kPeriodUs; t <= kEpochUs + kSpanUs; t += kPeriodUs) {
      for (int i = 0; i < kProcesses; ++i) {
        const auto p = static_cast<std::size_t>(i);
        if (t > busy_until[p] + burst(rng) / 2) {
          busy_until[p] = t + burst(rng);
          sm[p] = percent(rng);
        }
        if (t <= busy_until[p]) {
          s.add_process_gpu_sample(0, key_of(i), {.time_us = t, .sm = sm[p], .mem = sm[p] / 2});
        }
      }
      if ((t - kEpochUs) / kSecondUs != (t - kPeriodUs - kEpochUs) / kSecondUs) {
        const TimeUs second = (t - kEpochUs) / kSecondUs * kSecondUs + kEpochUs;
        s.add_device_sample(
            0, {.time_us = second,
                .energy_joules = 300.0 * static_cast<double>(second - kEpochUs) / 1e6});
      }
    }
    s.fold_before(kEpochUs + kSpanUs - s.config().fine_horizon_us);
    return s;
  }();
  return series;
}

void BM_TaskUsage(benchmark::State& state) {
  const Series& series = busy_gpu();
  const std::array keys{key_of(7)};
  const TimeUs end = kEpochUs + kSpanUs - 5 * kSecondUs + 12'345;
  const gpumeter::Window window{.begin_us = end - state.range(0) * 1000, .end_us = end};
  for (auto _ : state) {
    auto used = gpumeter::usage(series, keys, window);
    benchmark::DoNotOptimize(used);
  }
}

void BM_UsagePerProcess(benchmark::State& state) {
  const Series& series = busy_gpu();
  const TimeUs end = kEpochUs + kSpanUs - 2 * kSecondUs;
  for (auto _ : state) {
    auto shares = gpumeter::usage_per_process(series, 0, {end - 10 * kSecondUs, end});
    benchmark::DoNotOptimize(shares);
  }
}

}  // namespace

BENCHMARK(BM_TaskUsage)->Arg(300)->Arg(1000)->Arg(60'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UsagePerProcess)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();

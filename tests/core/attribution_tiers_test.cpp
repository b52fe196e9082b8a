// SPDX-License-Identifier: MIT
// Attribution over the series' storage choices: windows that reach into the coarse tier of
// per-process utilisation, and GPU memory and host figures stored only when they change, each
// checked against the same inputs kept reading by reading.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/attribution.h"

namespace gpumeter::attribution_tiers_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;  // a whole second
constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kPeriod = 250'000;
constexpr double kExact = 1e-9;

TimeUs at(double seconds) {
  return kT0 + static_cast<TimeUs>(std::llround(seconds * 1e6));
}

const ProcessKey kA{.pid = 100, .start_time_us = kT0 - 100 * kSecond};
const ProcessKey kB{.pid = 200, .start_time_us = kT0 - 100 * kSecond};

// Everything older than 20 s (at the end of a 100 s run) in the coarse tier.
constexpr SeriesConfig kFolding{.fine_horizon_us = 20 * kSecond};
// Nothing folded within the run.
constexpr SeriesConfig kAllFine{.fine_horizon_us = 1000 * kSecond};

void sample_device(Series& series, int seconds) {
  for (int s = 0; s <= seconds; ++s) {
    series.add_device_sample(0, {.time_us = at(s), .energy_joules = 1000.0 + 200.0 * s});
  }
}

// The sampler's upkeep at the end of a run that reached `seconds`.
void fold(Series& series, int seconds) {
  series.fold_before(at(seconds) - series.config().fine_horizon_us);
}

void busy(Series& series, const ProcessKey& key, double from, double to, std::uint32_t sm) {
  for (TimeUs t = at(from) + kPeriod; t <= at(to); t += kPeriod) {
    series.add_process_gpu_sample(0, key, {.time_us = t, .sm = sm, .mem = sm / 2});
  }
}

GpuUsage gpu(const Series& series, const std::vector<ProcessKey>& keys, double from, double to) {
  const auto used = usage(series, keys, {.begin_us = at(from), .end_us = at(to)});
  EXPECT_TRUE(used && used->gpus.size() == 1);
  return used && used->gpus.size() == 1 ? used->gpus.front() : GpuUsage{};
}

double sm_busy(const Series& series, const std::vector<ProcessKey>& keys, double from, double to) {
  return gpu(series, keys, from, to)[Engine::sm].busy_seconds.value_or(-1.0);
}

// A task at 80 % in [10, 15], an hour's fine horizon ago, and one in [90, 92], just now.
Series two_tasks(const SeriesConfig& config) {
  Series series(config);
  sample_device(series, 100);
  busy(series, kA, 10, 15, 80);
  busy(series, kA, 90, 92, 80);
  fold(series, 100);
  return series;
}

TEST(AttributionTiers, AWindowReadsBothTiers) {
  const Series series = two_tasks(kFolding);
  ASSERT_EQ(series.device(0)->coarse_until_us(), at(80));
  EXPECT_NEAR(sm_busy(series, {kA}, 5, 95), 4.0 + 1.6, kExact);
  const GpuUsage old_task = gpu(series, {kA}, 10, 15);
  EXPECT_NEAR(old_task[Engine::sm].average_percent.value(), 80.0, kExact);
  EXPECT_NEAR(old_task[Engine::memory].average_percent.value(), 40.0, kExact);
  EXPECT_EQ(old_task[Engine::sm].peak_percent, 80.0);
  EXPECT_EQ(old_task.confidence.coarse_bucket_us, kSecond);
  EXPECT_FALSE(old_task.confidence.low());
  const GpuUsage new_task = gpu(series, {kA}, 90, 92);
  EXPECT_NEAR(new_task[Engine::sm].average_percent.value(), 80.0, kExact);
  EXPECT_EQ(new_task.confidence.coarse_bucket_us, 0);
  EXPECT_FALSE(new_task.confidence.low());
  const EnergyUse energy = gpu(series, {kA}, 5, 95).energy;
  EXPECT_NEAR(energy.device_joules.value(), 90 * 200.0, kExact);
  EXPECT_NEAR(energy.processes_joules.value(), 7 * 200.0, 1e-6);  // the SMs' busy seconds
  EXPECT_NEAR(*energy.processes_joules + *energy.idle_joules, *energy.device_joules, 1e-6);
}

TEST(AttributionTiers, EdgesInTheCoarseTierAreAtBucketResolution) {
  const Series series = two_tasks(kFolding);
  // Half a bucket at each edge: the bucket's average spread over it.
  EXPECT_NEAR(sm_busy(series, {kA}, 14.5, 15.5), 0.4, kExact);
  EXPECT_NEAR(sm_busy(series, {kA}, 9.5, 10.5), 0.4, kExact);
  // A window inside one bucket reads the bucket's average and is flagged.
  const GpuUsage inside = gpu(series, {kA}, 11.2, 11.7);
  EXPECT_NEAR(inside[Engine::sm].average_percent.value(), 80.0, kExact);
  EXPECT_TRUE(inside.confidence.shorter_than_coarse_bucket);
  EXPECT_TRUE(inside.confidence.low());
  // The same window in the fine tier has its edges at the driver period's resolution.
  const GpuUsage fine = gpu(two_tasks(kAllFine), {kA}, 11.2, 11.7);
  EXPECT_FALSE(fine.confidence.shorter_than_coarse_bucket);
  // (Up to 0.5 s of its bucket and 0.05 s of the one before, whose raw periods may have
  // reached 0.25 s into the next bucket: 110 %.)
  EXPECT_NEAR(inside.confidence.sm_bounds_width_pp.value(), 110.0, kExact);
  EXPECT_NEAR(fine.confidence.sm_bounds_width_pp.value(), 20.0, kExact);
}

// Two workers in random bursts at random percents: what folding keeps of them.
Series random_bursts(const SeriesConfig& config) {
  Series series(config);
  sample_device(series, 100);
  std::minstd_rand random(11);
  bool busy_a = false;
  bool busy_b = false;
  for (TimeUs t = at(0) + kPeriod; t <= at(100); t += kPeriod) {
    busy_a = random() % 8 == 0 ? !busy_a : busy_a;
    busy_b = random() % 8 == 0 ? !busy_b : busy_b;
    const auto percent = [&random] { return static_cast<std::uint32_t>(random() % 101); };
    if (busy_a) series.add_process_gpu_sample(0, kA, {.time_us = t, .sm = percent()});
    if (busy_b) series.add_process_gpu_sample(0, kB, {.time_us = t, .sm = percent()});
  }
  fold(series, 100);
  return series;
}

TEST(AttributionTiers, FoldingKeepsBusySecondsOverWholeBucketsUpToRounding) {
  const Series folded = random_bursts(kFolding);
  const Series fine = random_bursts(kAllFine);
  for (const std::vector<ProcessKey>& keys : {std::vector{kA}, std::vector{kA, kB}}) {
    for (const auto& [from, to] : {std::pair{0, 80}, std::pair{10, 30}, std::pair{5, 100}}) {
      SCOPED_TRACE(::testing::Message() << keys.size() << " processes, " << from << "-" << to);
      const double exact = sm_busy(fine, keys, from, to);
      // At most half a percent of a bucket per coarse record in the window.
      const double coarse_seconds = std::max(std::min(to, 80) - from, 0);
      const double bound = 0.005 * static_cast<double>(keys.size()) * coarse_seconds;
      EXPECT_NEAR(sm_busy(folded, keys, from, to), exact, bound + kExact);
      EXPECT_GT(exact, 1.0);
      // A bucket's peak is its highest raw record: no period in it read more.
      const GpuUsage coarse = gpu(folded, keys, from, to);
      EXPECT_GE(coarse[Engine::sm].peak_percent.value(),
                gpu(fine, keys, from, to)[Engine::sm].peak_percent.value());
    }
  }
}

// What a set of processes held and used, reading by reading: the figures change-only
// storage must reproduce.
struct Reading {
  TimeUs time_us;
  std::uint64_t gpu_bytes;
  std::int64_t cpu_us;
  std::uint64_t rss_bytes;
};

// Readings every second for `seconds`, flat for random stretches.
std::vector<Reading> flat_stretches(std::uint32_t seed, int seconds) {
  std::minstd_rand random(seed);
  std::vector<Reading> readings;
  Reading r{.time_us = at(0), .gpu_bytes = 1 << 20, .cpu_us = 0, .rss_bytes = 1 << 20};
  for (int s = 0; s <= seconds; ++s) {
    r.time_us = at(s);
    if (random() % 6 == 0) r.gpu_bytes = (1 + random() % 64) << 20;
    if (random() % 4 == 0) r.cpu_us += static_cast<std::int64_t>(random() % 1'000'000);
    if (random() % 5 == 0) r.rss_bytes = (1 + random() % 64) << 20;
    readings.push_back(r);
  }
  return readings;
}

// The amount of `field` held at t: the last reading at or before t, else 0.
template <class Field>
std::uint64_t held_at(const std::vector<Reading>& readings, TimeUs t, Field field) {
  std::uint64_t value = 0;
  for (const Reading& r : readings) {
    if (r.time_us <= t) value = r.*field;
  }
  return value;
}

// The highest summed amount at the window's start and at each reading inside it.
template <class Field>
std::uint64_t peak_of(const std::vector<std::vector<Reading>>& sets, Window w, Field field) {
  const auto sum_at = [&](TimeUs t) {
    std::uint64_t sum = 0;
    for (const auto& readings : sets) sum += held_at(readings, t, field);
    return sum;
  };
  std::uint64_t peak = sum_at(w.begin_us);
  for (const Reading& r : sets.front()) {
    if (r.time_us > w.begin_us && r.time_us <= w.end_us) peak = std::max(peak, sum_at(r.time_us));
  }
  return peak;
}

// CPU time at t, interpolated between the readings around it.
double cpu_at(const std::vector<Reading>& readings, TimeUs t) {
  for (std::size_t i = 1; i < readings.size(); ++i) {
    if (readings[i].time_us < t) continue;
    const Reading& a = readings[i - 1];
    const Reading& b = readings[i];
    const double f =
        static_cast<double>(t - a.time_us) / static_cast<double>(b.time_us - a.time_us);
    return static_cast<double>(a.cpu_us) + f * static_cast<double>(b.cpu_us - a.cpu_us);
  }
  return static_cast<double>(readings.back().cpu_us);
}

TEST(AttributionTiers, ChangeOnlyStorageGivesTheFiguresOfEveryReading) {
  constexpr int seconds = 200;
  const std::vector<std::vector<Reading>> sets{flat_stretches(3, seconds),
                                               flat_stretches(4, seconds)};
  const std::vector<ProcessKey> keys{kA, kB};
  Series series(SeriesConfig{.fine_horizon_us = 1000 * kSecond});  // no host thinning here
  sample_device(series, seconds);
  std::size_t stored = 0;
  for (std::size_t p = 0; p < keys.size(); ++p) {
    for (const Reading& r : sets[p]) {
      const Insert memory = series.add_process_memory_sample(0, keys[p], {r.time_us, r.gpu_bytes});
      const Insert host = series.add_host_sample(
          keys[p], {.time_us = r.time_us, .cpu_user_us = r.cpu_us, .rss_bytes = r.rss_bytes});
      if (memory == Insert::stored) ++stored;
      if (host == Insert::stored) ++stored;
    }
  }
  EXPECT_LT(stored,
            2 * 2 * static_cast<std::size_t>(seconds) * 9 / 10);  // unchanged ones cost nothing
  std::minstd_rand random(5);
  for (int k = 0; k < 200; ++k) {
    const double from = static_cast<double>(random() % 2000U) / 10.0;
    const double to = std::min(from + 0.1 + static_cast<double>(random() % 600U) / 10.0, 200.0);
    SCOPED_TRACE(::testing::Message() << "window " << from << "-" << to);
    const Window w{.begin_us = at(from), .end_us = at(to)};
    const auto used = usage(series, keys, w);
    ASSERT_TRUE(used && used->gpus.size() == 1);
    const GpuMemoryUse& memory = used->gpus.front().memory;
    EXPECT_EQ(memory.at_start_bytes, held_at(sets[0], w.begin_us, &Reading::gpu_bytes) +
                                         held_at(sets[1], w.begin_us, &Reading::gpu_bytes));
    EXPECT_EQ(memory.at_end_bytes, held_at(sets[0], w.end_us, &Reading::gpu_bytes) +
                                       held_at(sets[1], w.end_us, &Reading::gpu_bytes));
    EXPECT_EQ(memory.peak_bytes, peak_of(sets, w, &Reading::gpu_bytes));
    double cpu_us = 0;
    for (const auto& readings : sets)
      cpu_us += cpu_at(readings, w.end_us) - cpu_at(readings, w.begin_us);
    EXPECT_NEAR(used->host.cpu_user_seconds.value(), cpu_us / 1e6, 1e-9);
    EXPECT_EQ(used->host.peak_rss_bytes, peak_of(sets, w, &Reading::rss_bytes));
    EXPECT_TRUE(used->host.complete);
  }
}

}  // namespace gpumeter::attribution_tiers_test

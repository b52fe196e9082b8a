// SPDX-License-Identifier: MIT
// The figures of one record window per process and GPU, on a timeline worked out by hand.
#include "recorder/process_figures.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpumeter::recorder::process_figures_test {

constexpr TimeUs kT0 = 1'767'225'600'000'000;
constexpr TimeUs kPeriod = 250'000;
constexpr std::uint64_t kGiB = 1ULL << 30;
const ProcessKey kA{.pid = 100, .start_time_us = kT0 - 3'600'000'000};
const ProcessKey kB{.pid = 200, .start_time_us = kT0 - 60'000'000};
const ProcessKey kC{.pid = 300, .start_time_us = kT0 - 60'000'000};

TimeUs at(double seconds) {
  return kT0 + static_cast<TimeUs>(std::llround(seconds * 1e6));
}

void busy(Series& series, const ProcessKey& key, double from, double to, std::uint32_t sm) {
  for (TimeUs t = at(from) + kPeriod; t <= at(to); t += kPeriod)
    series.add_process_gpu_sample(0, key, {.time_us = t, .sm = sm});
}

// GPU 0 draws 100 W throughout, sampled every second from 0 to 10 s. A holds 1 GiB from 1 s
// and leaves at 6 s, busy at 80 % meanwhile; B holds 2 GiB throughout and is busy at 20 % from
// 2 to 4 s; C is busy at 50 % from 7 to 8 s, and its memory is not reported.
Series timeline() {
  Series series;
  series.set_sample_period_us(0, kPeriod);
  busy(series, kA, 1, 6, 80);
  busy(series, kB, 2, 4, 20);
  busy(series, kC, 7, 8, 50);
  for (int s = 0; s <= 10; ++s) {
    series.add_device_sample(0, {.time_us = at(s), .energy_joules = 100.0 * s});
    if (s >= 1) {
      series.add_process_memory_sample(0, kA, {.time_us = at(s), .used_bytes = s < 6 ? kGiB : 0});
    }
    series.add_process_memory_sample(0, kB, {.time_us = at(s), .used_bytes = 2 * kGiB});
  }
  return series;
}

const ProcessFigures* find(const std::vector<ProcessFigures>& all, const ProcessKey& key) {
  for (const ProcessFigures& figures : all) {
    if (figures.key == key) return &figures;
  }
  return nullptr;
}

TEST(ProcessFigures, TheFirstWindow) {
  const std::vector<ProcessFigures> all = process_figures(timeline(), {at(0), at(5)});
  ASSERT_EQ(all.size(), 2U);
  const ProcessFigures* a = find(all, kA);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->device, 0U);
  EXPECT_DOUBLE_EQ(a->held_seconds, 4.0);
  EXPECT_EQ(a->span.begin_us, at(1));
  EXPECT_EQ(a->span.end_us, at(5));
  EXPECT_NEAR(a->sm_busy_seconds, 3.2, 1e-9);
  EXPECT_EQ(a->peak_memory_bytes, kGiB);
  // 100 J in [1, 2) and [4, 5) alone, 80 % of 200 J in [2, 4) beside B.
  EXPECT_NEAR(a->energy_joules, 360.0, 1e-6);
  EXPECT_FALSE(a->left);
  const ProcessFigures* b = find(all, kB);
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(b->held_seconds, 5.0);
  EXPECT_NEAR(b->sm_busy_seconds, 0.4, 1e-9);
  EXPECT_EQ(b->peak_memory_bytes, 2 * kGiB);
  EXPECT_NEAR(b->energy_joules, 40.0, 1e-6);
}

TEST(ProcessFigures, TheWindowInWhichAProcessLeaves) {
  const std::vector<ProcessFigures> all = process_figures(timeline(), {at(5), at(10)});
  ASSERT_EQ(all.size(), 3U);
  const ProcessFigures* a = find(all, kA);
  ASSERT_NE(a, nullptr);
  EXPECT_DOUBLE_EQ(a->held_seconds, 1.0);
  EXPECT_EQ(a->span.begin_us, at(5));
  EXPECT_EQ(a->span.end_us, at(6));
  EXPECT_NEAR(a->sm_busy_seconds, 0.8, 1e-9);
  EXPECT_NEAR(a->energy_joules, 100.0, 1e-6);
  EXPECT_TRUE(a->left);
  const ProcessFigures* b = find(all, kB);
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(b->held_seconds, 5.0);
  EXPECT_EQ(b->sm_busy_seconds, 0.0);
  EXPECT_EQ(b->energy_joules, 0.0);
  EXPECT_FALSE(b->left);
  // Busy without reported memory: held nothing, on the GPU for the whole window.
  const ProcessFigures* c = find(all, kC);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->held_seconds, 0.0);
  EXPECT_EQ(c->span.begin_us, at(5));
  EXPECT_EQ(c->span.end_us, at(10));
  EXPECT_NEAR(c->sm_busy_seconds, 0.5, 1e-9);
  EXPECT_NEAR(c->energy_joules, 100.0, 1e-6);
}

TEST(ProcessFigures, WindowsAddUpToTheWhole) {
  const Series series = timeline();
  double held = 0;
  double busy_seconds = 0;
  double energy = 0;
  for (int s = 0; s < 10; ++s) {
    for (const ProcessFigures& f : process_figures(series, {at(s), at(s + 1)})) {
      held += f.held_seconds;
      busy_seconds += f.sm_busy_seconds;
      energy += f.energy_joules;
    }
  }
  EXPECT_NEAR(held, 5.0 + 10.0, 1e-9);
  EXPECT_NEAR(busy_seconds, 4.0 + 0.4 + 0.5, 1e-9);
  EXPECT_NEAR(energy, 600.0, 1e-6);  // every second in which some process used the SMs
}

TEST(ProcessFigures, AnIdleWindowAfterEveryoneLeftHasNoEntries) {
  Series series = timeline();
  for (int s = 11; s <= 12; ++s) {
    series.add_device_sample(0, {.time_us = at(s), .energy_joules = 100.0 * s});
    series.add_process_memory_sample(0, kB, {.time_us = at(s), .used_bytes = 0});
  }
  EXPECT_TRUE(process_figures(series, {at(11.5), at(12)}).empty());
}

TEST(ProcessFigures, OnAGpuInMigModeTheSmFiguresAreUnknownNotZero) {
  // GPU 0 in MIG mode: memory and energy as usual, no per-process utilisation (the sampler's
  // drains answer mig). A holds 1 GiB throughout.
  Series series;
  series.set_sample_period_us(0, kPeriod);
  for (int s = 0; s <= 10; ++s) {
    series.add_device_sample(0, {.time_us = at(s),
                                 .energy_joules = 100.0 * s,
                                 .processes_drained = false,
                                 .not_drained_reason = Unavailable::mig});
    series.add_process_memory_sample(0, kA, {.time_us = at(s), .used_bytes = kGiB});
  }
  const std::vector<ProcessFigures> all = process_figures(series, {at(0), at(5)});
  ASSERT_EQ(all.size(), 1U);
  EXPECT_DOUBLE_EQ(all[0].held_seconds, 5.0);
  EXPECT_EQ(all[0].sm_unknown, Unavailable::mig);
  EXPECT_DOUBLE_EQ(all[0].sm_busy_seconds, 0.0);
  EXPECT_DOUBLE_EQ(all[0].energy_joules, 0.0);
  EXPECT_EQ(all[0].peak_memory_bytes, kGiB);
}

TEST(ProcessFigures, OnOtherGpusTheSmFiguresAreKnown) {
  for (const ProcessFigures& figures : process_figures(timeline(), {at(0), at(5)}))
    EXPECT_FALSE(figures.sm_unknown);
}

}  // namespace gpumeter::recorder::process_figures_test

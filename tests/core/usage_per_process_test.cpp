// SPDX-License-Identifier: MIT
// usage_per_process: every process's figures in one pass are those usage() gives for each
// process alone (with the proportional rule at the window's edges), on a timeline with overlapping
// processes, changing power, memory that comes and goes, and windows that reach into the coarse
// tier.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "core/attribution.h"

namespace gpumeter::usage_per_process_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;
constexpr TimeUs kPeriod = 250'000;
constexpr std::uint64_t kGiB = 1ULL << 30;

TimeUs at(double seconds) {
  return kT0 + static_cast<TimeUs>(std::llround(seconds * 1e6));
}

// Three processes on GPU 0 over 300 s (the fine tier keeps the last 120 s): A busy at 70 %
// in bursts, B at 25 % from 50 s on, C at 10 % while it holds memory (60 s to 200 s); the
// board's power follows the sum; everyone's memory is read every second.
Series timeline() {
  Series series;
  series.set_sample_period_us(0, kPeriod);
  const ProcessKey a{10, 1}, b{20, 2}, c{30, 3};
  double joules = 1000;
  for (TimeUs t = at(0); t <= at(300); t += kPeriod) {
    const double s = static_cast<double>(t - kT0) / 1e6;
    int total = 0;
    if (std::fmod(s, 20.0) < 7.0) {
      series.add_process_gpu_sample(0, a, {.time_us = t, .sm = 70});
      total += 70;
    }
    if (s >= 50) {
      series.add_process_gpu_sample(0, b, {.time_us = t, .sm = 25});
      total += 25;
    }
    if (s >= 60 && s < 200) {
      series.add_process_gpu_sample(0, c, {.time_us = t, .sm = 10});
      total += 10;
    }
    joules += (60.0 + 3.0 * total) * 0.25;
    if ((t - kT0) % 1'000'000 == 0) {
      series.add_device_sample(0, {.time_us = t, .energy_joules = joules});
      series.add_process_memory_sample(0, a, {.time_us = t, .used_bytes = kGiB});
      series.add_process_memory_sample(0, b, {.time_us = t, .used_bytes = s >= 50 ? 2 * kGiB : 0});
      series.add_process_memory_sample(
          0, c, {.time_us = t, .used_bytes = s >= 60 && s < 200 ? kGiB / 2 : 0});
    }
  }
  series.fold_before(at(300) - series.config().fine_horizon_us);
  return series;
}

template <class T>
void expect_same(const Maybe<T>& one_pass, const Maybe<T>& alone, const char* what) {
  ASSERT_EQ(one_pass.has_value(), alone.has_value()) << what;
  if (!one_pass) {
    EXPECT_EQ(one_pass.error(), alone.error()) << what;
    return;
  }
  EXPECT_NEAR(static_cast<double>(*one_pass), static_cast<double>(*alone),
              1e-9 * std::max(1.0, std::abs(static_cast<double>(*alone))))
      << what;
}

TEST(UsagePerProcess, EachProcessGetsWhatUsageGivesItAlone) {
  const Series series = timeline();
  for (const auto& [from, to] :
       {std::pair{0.0, 300.0}, std::pair{45.5, 105.25}, std::pair{150.0, 210.0},
        std::pair{199.9, 200.1}, std::pair{290.0, 310.0}}) {
    const auto all = usage_per_process(series, 0, {at(from), at(to)});
    ASSERT_TRUE(all.has_value());
    ASSERT_EQ(all->size(), 3U);
    for (const ProcessGpuShare& share : *all) {
      const std::array key{share.key};
      const auto alone = usage(series, key, {at(from), at(to)}, EdgeRule::proportional);
      ASSERT_TRUE(alone.has_value());
      ASSERT_EQ(alone->gpus.size(), 1U);
      const GpuUsage& gpu = alone->gpus.front();
      SCOPED_TRACE(testing::Message()
                   << "pid " << share.key.pid << " in [" << from << ", " << to << "]");
      expect_same(share.sm_busy_seconds, gpu[Engine::sm].busy_seconds, "SM busy-seconds");
      expect_same(share.peak_memory_bytes, gpu.memory.peak_bytes, "peak memory");
      expect_same(share.energy_joules, gpu.energy.processes_joules, "energy");
    }
  }
}

TEST(UsagePerProcess, SharesAddUpToWhatTheProcessesUsedTogether) {
  const Series series = timeline();
  const Window window{at(30), at(250)};
  const auto all = usage_per_process(series, 0, window);
  ASSERT_TRUE(all.has_value());
  double energy = 0;
  std::vector<ProcessKey> keys;
  for (const ProcessGpuShare& share : *all) {
    energy += share.energy_joules.value_or(0);
    keys.push_back(share.key);
  }
  const auto together = usage(series, keys, window);
  ASSERT_TRUE(together.has_value());
  EXPECT_NEAR(energy, together->gpus.front().energy.processes_joules.value_or(-1), 1e-6);
  EXPECT_NEAR(together->gpus.front().energy.other_processes_joules.value_or(-1), 0.0, 1e-6);
}

TEST(UsagePerProcess, NothingForAnUnknownDeviceAndAnEmptyWindowIsAnError) {
  const Series series = timeline();
  const auto none = usage_per_process(series, 5, {at(0), at(10)});
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(usage_per_process(series, 0, {at(10), at(10)}).has_value());
}

}  // namespace gpumeter::usage_per_process_test

// SPDX-License-Identifier: MIT
// Device-level figures (core/device_level.cpp): a device that keeps no per-process utilisation,
// as a Jetson's integrated GPU, is read from its own utilisation over the window.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/attribution.h"

namespace gpumeter::device_level_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;
constexpr TimeUs kSecond = 1'000'000;
constexpr double kClose = 1e-9;

TimeUs at(double seconds) {
  return kT0 + static_cast<TimeUs>(std::llround(seconds * 1e6));
}

const ProcessKey kWorker{.pid = 100, .start_time_us = kT0 - 100 * kSecond};
const ProcessKey kOther{.pid = 200, .start_time_us = kT0 - 100 * kSecond};

// One reading a second from t = 0: the load of loads[s] is read at s + 1, so that it stands for
// (s, s + 1]; the board draws `watts` throughout, its counter integrated from 1000 J.
void readings(Series& series, const std::vector<double>& loads, double watts = 10.0) {
  const auto unsupported = std::unexpected(Unavailable::not_supported);
  for (std::size_t s = 0; s <= loads.size(); ++s) {
    series.add_device_sample(0, {.time_us = at(static_cast<double>(s)),
                                 .utilization_gpu_percent = s == 0 ? 0.0 : loads[s - 1],
                                 .utilization_memory_percent = unsupported,
                                 .energy_joules = 1000.0 + watts * static_cast<double>(s),
                                 .processes_drained = false,
                                 .not_drained_reason = Unavailable::not_supported});
  }
}

GpuUsage query(const Series& series, double from, double to, EdgeRule rule = EdgeRule::markers) {
  const std::vector<ProcessKey> keys{kWorker};
  const auto result = usage(series, keys, {.begin_us = at(from), .end_us = at(to)}, rule);
  EXPECT_TRUE(result.has_value());
  EXPECT_EQ(result->gpus.size(), 1U);
  return result->gpus.empty() ? GpuUsage{} : result->gpus.front();
}

TEST(DeviceLevel, TheDevicesLoadOverTheWindowIsTheSetsMarkedAsDeviceLevel) {
  Series series;
  readings(series, {0, 50, 50, 100, 0});
  const GpuUsage gpu = query(series, 1.0, 4.0);
  EXPECT_EQ(gpu.level, AttributionLevel::device);
  EXPECT_NEAR(gpu[Engine::sm].busy_seconds.value(), 2.0, kClose);
  EXPECT_NEAR(gpu[Engine::sm].average_percent.value(), 200.0 / 3.0, kClose);
  EXPECT_NEAR(gpu[Engine::sm].peak_percent.value(), 100.0, kClose);
  // Whole stretches: the bounds are the estimate.
  EXPECT_NEAR(gpu[Engine::sm].busy_seconds_lower.value(), 2.0, kClose);
  EXPECT_NEAR(gpu[Engine::sm].busy_seconds_upper.value(), 2.0, kClose);
  EXPECT_NEAR(gpu.confidence.sm_bounds_width_pp.value(), 0.0, kClose);
  EXPECT_EQ(gpu.confidence.sample_period_us, kSecond);
  EXPECT_DOUBLE_EQ(gpu.confidence.coverage, 1.0);
  EXPECT_FALSE(gpu.confidence.low());
  // The engines a board does not report, and the memory controller it did not read.
  EXPECT_EQ(gpu[Engine::encoder].busy_seconds.error(), Unavailable::not_supported);
  EXPECT_EQ(gpu[Engine::memory].average_percent.error(), Unavailable::not_supported);
}

TEST(DeviceLevel, EdgesFollowTheMarkersRuleAndStayWithinTheBounds) {
  Series series;
  // Idle, then two stretches at 60 %, then idle.
  readings(series, {0, 60, 60, 0});
  const GpuUsage marked = query(series, 1.5, 3.0);
  // The window cuts the stretch (1, 2] in half; the device was idle in (0, 1], so that
  // stretch's 0.6 s of busy time count inside, as far as the 0.5 s inside allow.
  EXPECT_NEAR(marked[Engine::sm].busy_seconds.value(), 0.5 + 0.6, kClose);
  EXPECT_NEAR(marked[Engine::sm].busy_seconds_lower.value(), 0.1 + 0.6, kClose);
  EXPECT_NEAR(marked[Engine::sm].busy_seconds_upper.value(), 0.5 + 0.6, kClose);
  const GpuUsage proportional = query(series, 1.5, 3.0, EdgeRule::proportional);
  EXPECT_NEAR(proportional[Engine::sm].busy_seconds.value(), 0.3 + 0.6, kClose);
  // A window inside a busy run: the neighbours were busy, so the proportional part.
  Series busy;
  readings(busy, {60, 60, 60});
  EXPECT_NEAR(query(busy, 1.25, 1.75)[Engine::sm].busy_seconds.value(), 0.3, kClose);
}

TEST(DeviceLevel, EnergyOfBusyStretchesIsTheSetsTheRestIdleOthersUnknown) {
  Series series;
  readings(series, {0, 40, 0, 80}, 10.0);
  const GpuUsage gpu = query(series, 0.0, 4.0);
  EXPECT_NEAR(gpu.energy.device_joules.value(), 40.0, kClose);
  EXPECT_NEAR(gpu.energy.processes_joules.value(), 20.0, kClose);
  EXPECT_NEAR(gpu.energy.idle_joules.value(), 20.0, kClose);
  EXPECT_EQ(gpu.energy.other_processes_joules.error(), Unavailable::not_supported);
}

TEST(DeviceLevel, PartOfTheWindowWithoutReadingsLowersTheCoverage) {
  Series series;
  readings(series, {50, 50});
  const GpuUsage gpu = query(series, 1.0, 4.0);
  EXPECT_NEAR(gpu.confidence.coverage, 1.0 / 3.0, kClose);
  EXPECT_TRUE(gpu.confidence.low());
  EXPECT_NEAR(gpu[Engine::sm].busy_seconds.value(), 0.5, kClose);
}

TEST(DeviceLevel, AWindowNoReadingCoversHasNoFigures) {
  Series series;
  readings(series, {50, 50});
  const GpuUsage gpu = query(series, 10.0, 12.0);
  EXPECT_EQ(gpu[Engine::sm].average_percent.error(), Unavailable::no_data);
  EXPECT_DOUBLE_EQ(gpu.confidence.coverage, 0.0);
}

TEST(DeviceLevel, WithProcessListsOnlyTheSetsThatHoldMemoryGetTheDevice) {
  Series series;
  readings(series, {50, 50, 50});
  series.add_process_memory_sample(0, kOther, {.time_us = at(0), .used_bytes = 1 << 20});
  const std::vector<ProcessKey> worker{kWorker};
  const auto none = usage(series, worker, {.begin_us = at(1), .end_us = at(2)});
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->gpus.empty());
  series.add_process_memory_sample(0, kWorker, {.time_us = at(0.5), .used_bytes = 4 << 20});
  const GpuUsage gpu = query(series, 1.0, 2.0);
  EXPECT_EQ(gpu.level, AttributionLevel::device);
  EXPECT_EQ(gpu.memory.peak_bytes.value(), 4U << 20U);
}

TEST(DeviceLevel, ADeviceWithPerProcessSamplesKeepsProcessFigures) {
  Series series;
  for (int s = 0; s <= 3; ++s) {
    series.add_device_sample(0, {.time_us = at(s), .utilization_gpu_percent = 90.0});
  }
  series.add_process_memory_sample(0, kWorker, {.time_us = at(0), .used_bytes = 1 << 20});
  const GpuUsage gpu = query(series, 1.0, 2.0);
  EXPECT_EQ(gpu.level, AttributionLevel::process);
  // Drained, and the process had no sample: 0 %, not the device's 90 %.
  EXPECT_NEAR(gpu[Engine::sm].average_percent.value(), 0.0, kClose);
}

}  // namespace gpumeter::device_level_test

// SPDX-License-Identifier: MIT
#include "sim/timeline.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/scenario.h"

namespace gpumeter::sim::timeline_test {

// One GPU with a 1-second sample period and a 10-second sample buffer; three processes:
// a steady one, a bursty one, and one that never uses the GPU.
constexpr const char* kScenario = R"({
  "devices": [{"name": "G", "memory_total_bytes": 1000000, "memory_reserved_bytes": 1000,
               "power_limit_w": 300, "power_idle_w": 100, "temperature_c": {"idle": 30, "busy": 80},
               "clocks_mhz": {"sm": 300}, "max_clocks_mhz": {"sm": 1300},
               "sample_period_ms": 1000, "sample_buffer_s": 10, "energy_offset_mj": 5000,
               "accounting": {"enabled": true}},
              {"name": "H", "memory_total_bytes": 1000, "utilization": {"gpu": 42}}],
  "processes": [
    {"device": 0, "pid": 1, "used_memory_bytes": 100, "utilization": {"sm": 60, "mem": 20}},
    {"device": 0, "pid": 2, "used_memory_bytes": 200,
     "utilization": {"sm": {"bursts": {"period_s": 10, "duty": 0.2, "value": 70}}}},
    {"device": 0, "pid": 3, "used_memory_bytes": 300, "utilization": {"sm": 0}, "start_s": 0, "end_s": 50}
  ]
})";

class TimelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto parsed = parse_scenario(kScenario, "t.json");
    ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
    scenario_ = std::move(*parsed);
  }
  Scenario scenario_;
};

TEST_F(TimelineTest, DeviceUtilisationIsTheCappedSumOfProcesses) {
  const Timeline t(scenario_);
  EXPECT_DOUBLE_EQ(t.device_mean(0, 0, 2).sm, 100);  // 60 + 70, capped
  EXPECT_DOUBLE_EQ(t.device_mean(0, 2, 10).sm, 60);
  EXPECT_DOUBLE_EQ(t.device_mean(0, 0, 10).sm, (2 * 100 + 8 * 60) / 10.0);
  EXPECT_DOUBLE_EQ(t.device_mean(0, 0, 10).mem, 20);
  EXPECT_DOUBLE_EQ(t.device_mean(1, 0, 10).sm, 42);  // scripted
}

TEST_F(TimelineTest, ReadingsFollowTheLastCompletePeriod) {
  const Timeline t(scenario_);
  // At t = 1.5 s the last complete period is (0, 1]: 100 % busy.
  const DeviceReading busy = t.reading(0, 1'500'000);
  EXPECT_EQ(busy.percent.sm, 100u);
  EXPECT_DOUBLE_EQ(busy.power_mw, 300'000);
  EXPECT_EQ(busy.temperature_c, 80u);
  EXPECT_EQ(busy.clocks.sm, 1300u);
  EXPECT_EQ(busy.memory_used_bytes, 600u);
  // At t = 5.2 s: period (4, 5], 60 %.
  const DeviceReading steady = t.reading(0, 5'200'000);
  EXPECT_EQ(steady.percent.sm, 60u);
  EXPECT_DOUBLE_EQ(steady.power_mw, 220'000);
  EXPECT_EQ(steady.temperature_c, 60u);
  EXPECT_EQ(steady.clocks.sm, 900u);
  // After pid 3 exits, its memory is gone.
  EXPECT_EQ(t.reading(0, 60'000'000).memory_used_bytes, 300u);
}

TEST_F(TimelineTest, SampleRingCoversTheBufferEndingAtTheNewestPeriod) {
  const Timeline t(scenario_);
  const auto early = t.device_samples(0, 3'500'000);
  ASSERT_EQ(early.size(), 3u);  // periods ending at 1, 2 and 3 s
  EXPECT_EQ(early.front().time, 1'000'000);
  EXPECT_EQ(early.back().time, 3'000'000);
  EXPECT_EQ(early[0].use.sm, 100u);
  EXPECT_EQ(early[2].use.sm, 60u);
  const auto later = t.device_samples(0, 100'000'000);
  ASSERT_EQ(later.size(), 10u);
  EXPECT_EQ(later.front().time, 91'000'000);
  EXPECT_EQ(later.back().time, 100'000'000);
}

TEST_F(TimelineTest, SampleRingOnlyAfterTheLastSeenStamp) {
  const Timeline t(scenario_);
  const auto whole = t.device_samples(0, 100'000'000);
  // A stamp between periods: the periods ending after it.
  const auto newer = t.device_samples(0, 100'000'000, 97'500'000);
  ASSERT_EQ(newer.size(), 3u);
  EXPECT_EQ(newer.front().time, 98'000'000);
  EXPECT_EQ(newer.front().use.sm, whole[7].use.sm);
  EXPECT_EQ(newer.front().power_mw, whole[7].power_mw);
  // A stamp on a period's end: that period is not newer.
  EXPECT_EQ(t.device_samples(0, 100'000'000, 98'000'000).size(), 2u);
  EXPECT_TRUE(t.device_samples(0, 100'000'000, 100'000'000).empty());
  // Older than the ring: the whole ring.
  EXPECT_EQ(t.device_samples(0, 100'000'000, 5'000'000).size(), whole.size());
}

TEST_F(TimelineTest, ProcessSamplesOnlyForNonZeroUse) {
  const Timeline t(scenario_);
  const auto samples = t.process_samples(0, 10'000'000);
  // 10 periods of pid 1, 2 periods of pid 2 (its bursts), none of idle pid 3.
  ASSERT_EQ(samples.size(), 12u);
  int pid1 = 0, pid2 = 0;
  for (const ProcessSample& s : samples) {
    EXPECT_NE(s.pid, 3u);
    pid1 += s.pid == 1;
    pid2 += s.pid == 2;
    if (s.pid == 2) {
      EXPECT_EQ(s.use.sm, 70u);
    }
  }
  EXPECT_EQ(pid1, 10);
  EXPECT_EQ(pid2, 2);
  EXPECT_TRUE(std::ranges::is_sorted(samples, {}, &ProcessSample::time));
}

TEST_F(TimelineTest, ProcessSamplesKeepOnlyTheNewestUpToCapacity) {
  scenario_.devices[0].process_sample_capacity = 5;
  const Timeline t(scenario_);
  const auto samples = t.process_samples(0, 10'000'000);
  ASSERT_EQ(samples.size(), 5u);
  EXPECT_EQ(samples.back().time, 10'000'000);
  EXPECT_EQ(samples.front().time, 6'000'000);
}

TEST_F(TimelineTest, EnergyIntegratesPower) {
  const Timeline t(scenario_);
  // 0-2 s at 100 % (300 W), 2-10 s at 60 % (220 W): 600 + 1760 J.
  EXPECT_NEAR(t.energy_mj(0, 0, 10), 2'360'000, 1e-3);
  EXPECT_EQ(t.energy_mj(0, 5, 5), 0);
}

TEST_F(TimelineTest, AccountingAveragesOverTheLifetime) {
  const Timeline t(scenario_);
  const auto records = t.accounting(0, 100);
  ASSERT_EQ(records.size(), 3u);
  const auto& bursty = records[1];
  EXPECT_EQ(bursty.pid, 2u);
  EXPECT_EQ(bursty.gpu_utilization, 14u);  // 70 % for 2 s in every 10
  EXPECT_TRUE(bursty.running);
  EXPECT_EQ(bursty.time_ms, 0u);
  const auto& exited = records[2];
  EXPECT_FALSE(exited.running);
  EXPECT_EQ(exited.time_ms, 50'000u);
  EXPECT_EQ(exited.max_memory_bytes, 300u);
}

TEST_F(TimelineTest, LostDevices) {
  scenario_.faults.lost.push_back(LostFault{1, 2});
  const Timeline t(scenario_);
  EXPECT_FALSE(t.lost(1, 1.999));
  EXPECT_TRUE(t.lost(1, 2));
  EXPECT_FALSE(t.lost(0, 10));
}

}  // namespace gpumeter::sim::timeline_test

// SPDX-License-Identifier: MIT
// Draining per-process utilisation through the backend and the real dlopen path against the
// simulated library: lastSeenTimeStamp in µs, NOT_FOUND as "nothing newer", the older call on
// drivers without the newer one, unsupported and lost GPUs.
#include <gtest/gtest.h>

#include "support/sim_backend.h"

namespace gpumeter::nvml::process_utilization_sim_test {

using testing::SimBackendTest;

// GPU 0: one process at 80 % SM from t = 0; one idle. GPU 1: no per-process samples.
// GPU 2 falls off the bus at t = 5.
constexpr std::string_view kScenario = R"({
  "device_defaults": {"name": "NVIDIA A100-SXM4-40GB", "memory_total_bytes": 42949672960,
                      "sample_period_ms": 250},
  "devices": [{}, {"unsupported": ["process_utilization"]}, {}],
  "processes": [
    {"device": 0, "pid": 4242, "utilization": {"sm": 80, "mem": 30}, "start_s": 0},
    {"device": 0, "pid": 4343, "utilization": {"sm": 0}, "start_s": 0},
    {"device": 2, "pid": 4444, "utilization": {"sm": 50}, "start_s": 0}
  ],
  "faults": {"lost": [{"device": 2, "at_s": 5}]}
})";

constexpr TimeUs kEpoch = 1'700'000'000'000'000;  // SimBackendTest's epoch

TEST_F(SimBackendTest, DrainsOneMeanPerProcessOfTheNewerPeriodsOnly) {
  auto source = open(kScenario, 1.0);
  ASSERT_NE(source, nullptr);
  // The whole buffer (four 250 ms periods): one sample, for the busy process only, stamped
  // with the newest period's end.
  auto first = source->drain_process_utilization(0, std::nullopt);
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(first->size(), 1U);
  const PidGpuSample& s = first->front();
  EXPECT_EQ(s.pid, 4242U);
  EXPECT_EQ(s.sample.time_us, kEpoch + 1'000'000);
  EXPECT_EQ(s.sample.sm, 80U);
  EXPECT_EQ(s.sample.mem, 30U);
  EXPECT_EQ(s.sample.jpg, 0U);  // the newer call reports JPEG and OFA
  const TimeUs last = s.sample.time_us;
  auto none = source->drain_process_utilization(0, last);
  ASSERT_TRUE(none.has_value());  // NOT_FOUND: nothing newer
  EXPECT_TRUE(none->empty());
  at(1.6);
  auto next = source->drain_process_utilization(0, last);
  ASSERT_TRUE(next.has_value());
  ASSERT_EQ(next->size(), 1U);  // two more periods, one mean
  EXPECT_EQ(next->front().sample.time_us, kEpoch + 1'500'000);
}

TEST_F(SimBackendTest, DrainUsesTheOlderCallOnOlderDrivers) {
  auto source = open(kScenario, 1.0, testing::kSimR535Library);
  ASSERT_NE(source, nullptr);
  auto samples = source->drain_process_utilization(0, std::nullopt);
  ASSERT_TRUE(samples.has_value());
  ASSERT_EQ(samples->size(), 1U);
  EXPECT_EQ(samples->back().sample.sm, 80U);
  EXPECT_FALSE(samples->back().sample.jpg.has_value());
}

TEST_F(SimBackendTest, DrainOfUnsupportedAndLostGpus) {
  auto source = open(kScenario, 6.0);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->drain_process_utilization(1, std::nullopt),
            std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(source->drain_process_utilization(2, std::nullopt),
            std::unexpected(Unavailable::gpu_lost));
  EXPECT_EQ(source->drain_process_utilization(7, std::nullopt),
            std::unexpected(Unavailable::error));  // no such index: INVALID_ARGUMENT
}

}  // namespace gpumeter::nvml::process_utilization_sim_test

// SPDX-License-Identifier: MIT
// Draining the device sample buffers (nvmlDeviceGetSamples) through the backend and the real
// dlopen path against the simulated library: power in W and utilisation in percent, one entry
// per driver period whether busy or not, lastSeenTimeStamp in µs, NOT_FOUND as "nothing
// newer", unsupported and lost GPUs.
#include <gtest/gtest.h>

#include "support/sim_backend.h"

namespace gpumeter::nvml::device_samples_sim_test {

using testing::SimBackendTest;

// GPU 0: 80 % SM in [0, 1), idle after. GPU 1 has no power sensor. GPU 2 falls off the bus at 5.
constexpr std::string_view kScenario = R"({
  "device_defaults": {"name": "NVIDIA A100-SXM4-40GB", "memory_total_bytes": 42949672960,
                      "sample_period_ms": 250, "power_limit_w": 400, "power_idle_w": 50},
  "devices": [{}, {"unsupported": ["power"]}, {}],
  "processes": [
    {"device": 0, "pid": 4242, "utilization": {"sm": {"steps": [[0, 80], [1, 0]]}}},
    {"device": 2, "pid": 4444, "utilization": {"sm": 50}}
  ],
  "faults": {"lost": [{"device": 2, "at_s": 5}]}
})";

constexpr TimeUs kEpoch = 1'700'000'000'000'000;  // SimBackendTest's epoch

TEST_F(SimBackendTest, PowerSamplesAreWattsOnePerPeriodAndOnlyNewerOnes) {
  auto source = open(kScenario, 1.5);
  ASSERT_NE(source, nullptr);
  auto first = source->drain_device_samples(0, DeviceBuffer::power, std::nullopt);
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(first->size(), 6U);  // periods ending at 0.25 ... 1.5, busy or not
  for (std::size_t i = 0; i < first->size(); ++i) {
    const BufferedSample& s = (*first)[i];
    EXPECT_EQ(s.time_us, kEpoch + static_cast<TimeUs>(i + 1) * 250'000);
    EXPECT_DOUBLE_EQ(s.value, i < 4 ? 50 + 350 * 0.8 : 50.0) << i;
  }
  const TimeUs last = first->back().time_us;
  auto none = source->drain_device_samples(0, DeviceBuffer::power, last);
  ASSERT_TRUE(none.has_value());  // NOT_FOUND: nothing newer
  EXPECT_TRUE(none->empty());
  at(2.1);
  auto next = source->drain_device_samples(0, DeviceBuffer::power, last);
  ASSERT_TRUE(next.has_value());
  ASSERT_EQ(next->size(), 2U);
  EXPECT_EQ(next->front().time_us, kEpoch + 1'750'000);
  EXPECT_EQ(next->back().time_us, kEpoch + 2'000'000);
}

TEST_F(SimBackendTest, UtilizationSamplesArePercentOnePerPeriodBusyOrNot) {
  auto source = open(kScenario, 1.5);
  ASSERT_NE(source, nullptr);
  auto samples = source->drain_device_samples(0, DeviceBuffer::gpu_utilization, kEpoch + 500'000);
  ASSERT_TRUE(samples.has_value());
  ASSERT_EQ(samples->size(), 4U);  // after 0.5: 0.75, 1.0, 1.25, 1.5
  EXPECT_EQ(samples->front().time_us, kEpoch + 750'000);
  EXPECT_DOUBLE_EQ(samples->front().value, 80);
  EXPECT_DOUBLE_EQ(samples->back().value, 0);
}

TEST_F(SimBackendTest, DeviceSamplesOfUnsupportedAndLostGpus) {
  auto source = open(kScenario, 6.0);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->drain_device_samples(1, DeviceBuffer::power, std::nullopt),
            std::unexpected(Unavailable::not_supported));
  auto utilization = source->drain_device_samples(1, DeviceBuffer::gpu_utilization, std::nullopt);
  ASSERT_TRUE(utilization.has_value());  // only the power sensor is missing
  EXPECT_EQ(utilization->size(), 24U);
  EXPECT_EQ(source->drain_device_samples(2, DeviceBuffer::power, std::nullopt),
            std::unexpected(Unavailable::gpu_lost));
  EXPECT_EQ(source->drain_device_samples(7, DeviceBuffer::power, std::nullopt),
            std::unexpected(Unavailable::error));  // no such index: INVALID_ARGUMENT
}

}  // namespace gpumeter::nvml::device_samples_sim_test

// SPDX-License-Identifier: MIT
// Records from the model: a GPU of a snapshot becomes a description and a sample; checks that
// keep a bad record out of the queue.
#include "store/records.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpumeter::store::records_test {

Device device_with_uuid() {
  Device device;
  device.identity.index = 3;
  device.identity.uuid = "GPU-1234";
  device.identity.name = "NVIDIA H100";
  device.state[DeviceMetric::utilization_gpu] = 87.0;
  device.state[DeviceMetric::memory_used] = 2e9;
  device.state[DeviceMetric::memory_total] = 80e9;
  device.state[DeviceMetric::energy] = 123456.5;
  device.state[DeviceMetric::temperature] = std::unexpected(Unavailable::not_supported);
  return device;
}

TEST(Records, AGpuOfASnapshotBecomesADescriptionAndASample) {
  const Device device = device_with_uuid();
  const auto description = device_record(device, 42);
  ASSERT_TRUE(description);
  EXPECT_EQ(description->uuid, "GPU-1234");
  EXPECT_EQ(description->index, 3U);
  EXPECT_EQ(description->name, "NVIDIA H100");
  EXPECT_EQ(description->memory_total_bytes, 80'000'000'000U);
  EXPECT_FALSE(description->serial);
  EXPECT_EQ(description->seen_us, 42);
  const auto sample = device_sample_record(device, 42);
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->utilization_gpu_percent, 87.0);
  EXPECT_EQ(sample->memory_used_bytes, 2e9);
  EXPECT_EQ(sample->energy_joules, 123456.5);
  EXPECT_FALSE(sample->temperature_celsius);  // absent, whatever the reason
  EXPECT_FALSE(sample->power_draw_watts);
}

TEST(Records, AGpuWithoutUuidIsNotRecorded) {
  Device device = device_with_uuid();
  device.identity.uuid = std::unexpected(Unavailable::gpu_lost);
  EXPECT_FALSE(device_record(device, 1));
  EXPECT_FALSE(device_sample_record(device, 1));
}

TEST(Records, ValidationNamesWhatIsWrong) {
  ProcessInterval interval{.process = {.pid = 1, .gpu_uuid = "GPU-a"},
                           .begin_us = 0,
                           .end_us = 10'000'000,
                           .held_seconds = 10};
  EXPECT_TRUE(validate(interval));
  interval.sm_busy_seconds = std::numeric_limits<double>::quiet_NaN();
  auto invalid = validate(interval);
  ASSERT_FALSE(invalid);
  EXPECT_NE(invalid.error().message.find("sm_busy_seconds"), std::string::npos);
  interval.sm_busy_seconds = 0;
  interval.energy_joules = -1;
  EXPECT_FALSE(validate(interval));
  DeviceSampleRecord sample{.uuid = "GPU-a",
                            .power_draw_watts = std::numeric_limits<double>::infinity()};
  EXPECT_FALSE(validate(sample));
  EXPECT_FALSE(validate(DeviceRecord{}));
}

}  // namespace gpumeter::store::records_test

// SPDX-License-Identifier: MIT
// Draining a device sample buffer against a fake nvmlDeviceGetSamples: the value type the
// driver reports decides how a value is read, power samples are mW, and entries at or before
// lastSeenTimeStamp are dropped should a driver return them.
#include "nvml/device_samples.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpumeter::nvml::device_samples_test {

using namespace abi;

constexpr std::uint64_t kT0 = 1'700'000'000'000'000;

struct Driver {
  std::vector<Sample> buffered;
  ValueType type = kValueTypeUnsignedInt;
  std::vector<SamplingType> types_asked;
};

Driver* g_driver = nullptr;

// Answers every entry, ignoring lastSeenTimeStamp, to check the reader's own filter.
Return fake_samples(Device, SamplingType type, std::uint64_t, ValueType* value_type,
                    unsigned* count, Sample* samples) {
  Driver& d = *g_driver;
  d.types_asked.push_back(type);
  if (d.buffered.empty()) return kErrorNotFound;
  *value_type = d.type;
  if (samples == nullptr) {
    *count = static_cast<unsigned>(d.buffered.size());
    return kSuccess;
  }
  const std::size_t n = std::min<std::size_t>(*count, d.buffered.size());
  std::copy_n(d.buffered.begin(), n, samples);
  *count = static_cast<unsigned>(n);
  return kSuccess;
}

class DeviceSamplesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_driver = &driver_;
    api_.samples = {&fake_samples, 0, "nvmlDeviceGetSamples"};
  }
  void TearDown() override { g_driver = nullptr; }

  Maybe<std::vector<BufferedSample>> drain(DeviceBuffer buffer, std::optional<TimeUs> last_seen) {
    DeviceQuery query(api_, nullptr);
    return read_device_samples(query, buffer, last_seen);
  }

  Driver driver_;
  EntryPoints api_;
};

TEST_F(DeviceSamplesTest, PowerIsReadAsTheReportedTypeInMilliwatts) {
  Sample a{kT0 + 1, {}};
  a.value.d = 123'456.0;
  Sample b{kT0 + 2, {}};
  b.value.d = 200'000.0;
  driver_.buffered = {a, b};
  driver_.type = kValueTypeDouble;
  auto samples = drain(DeviceBuffer::power, std::nullopt);
  ASSERT_TRUE(samples.has_value());
  ASSERT_EQ(samples->size(), 2U);
  EXPECT_DOUBLE_EQ((*samples)[0].value, 123.456);
  EXPECT_DOUBLE_EQ((*samples)[1].value, 200.0);
  EXPECT_EQ(driver_.types_asked,
            (std::vector<SamplingType>{kTotalPowerSamples, kTotalPowerSamples}));
}

TEST_F(DeviceSamplesTest, UtilizationIsPercentAndOlderEntriesAreDropped) {
  Sample a{kT0 + 1, {}};
  a.value.ui = 40;
  Sample b{kT0 + 7, {}};
  b.value.ui = 90;
  driver_.buffered = {a, b};
  auto samples = drain(DeviceBuffer::gpu_utilization, static_cast<TimeUs>(kT0 + 1));
  ASSERT_TRUE(samples.has_value());
  ASSERT_EQ(samples->size(), 1U);
  EXPECT_EQ(samples->front().time_us, static_cast<TimeUs>(kT0 + 7));
  EXPECT_DOUBLE_EQ(samples->front().value, 90);
  EXPECT_EQ(driver_.types_asked.front(), kGpuUtilizationSamples);
}

TEST_F(DeviceSamplesTest, NothingNewerIsAnEmptyDrainAndNoEntryPointIsUnsupported) {
  auto none = drain(DeviceBuffer::power, std::nullopt);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
  api_.samples = {};
  EXPECT_EQ(drain(DeviceBuffer::power, std::nullopt), std::unexpected(Unavailable::not_supported));
}

}  // namespace gpumeter::nvml::device_samples_test

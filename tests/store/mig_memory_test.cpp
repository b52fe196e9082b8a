// SPDX-License-Identifier: MIT
// MIG devices' memory and GPM figures in the history: readings counted in their minute and
// hour, min, mean and max exact, a GPM figure over the readings that had it only; kept as long
// as the GPU's own minutes and hours; late readings past the horizon not stored again. Real
// SQLite files.
#include "store/mig_memory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "store/maintenance.h"
#include "store/write.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::mig_memory_test {

using gpumeter::testing::TempDir;
using testing::kDay;
using testing::kHour;
using testing::kMinute;
using testing::kSecond;
using testing::kT0;

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr const char* kSlice = "MIG-aaaa";
constexpr const char* kOther = "MIG-bbbb";

MigMemoryRecord reading(const char* mig_uuid, TimeUs time_us, double used) {
  return MigMemoryRecord{.gpu_uuid = "GPU-h100",
                         .mig_uuid = mig_uuid,
                         .gpu_instance_id = mig_uuid == std::string(kSlice) ? 7U : 8U,
                         .profile = "1g.10gb",
                         .time_us = time_us,
                         .memory_used_bytes = used,
                         .memory_total_bytes = 10 * kGiB};
}

class MigMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    Batch batch;
    // kSlice: 1, 2, 3 GiB in the first minute of 10:00, 6 GiB in the second; kOther: empty.
    for (int i = 0; i < 3; ++i)
      batch.mig_memory.push_back(reading(kSlice, kTen + i * 20 * kSecond, (i + 1) * kGiB));
    batch.mig_memory.push_back(reading(kSlice, kTen + kMinute, 6 * kGiB));
    batch.mig_memory.push_back(reading(kOther, kTen, 0));
    ASSERT_TRUE(write(store, batch));
  }

  std::vector<MigMemoryRow> series(Resolution resolution, std::optional<std::string> uuid = {}) {
    auto rows = mig_memory_series(store, {.resolution = resolution,
                                          .since_us = kT0,
                                          .until_us = kT0 + 100 * kDay,
                                          .mig_uuid = std::move(uuid)});
    EXPECT_TRUE(rows) << rows.error().message;
    return rows ? *rows : std::vector<MigMemoryRow>{};
  }

  static constexpr TimeUs kTen = kT0 + 10 * kHour;
  TempDir dir;
  Store store = testing::open_store(dir / "history.db");
};

TEST_F(MigMemory, EachMinuteHasTheMinMeanAndMaxOfItsReadings) {
  const auto rows = series(Resolution::minutes, kSlice);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].gpu_uuid, "GPU-h100");
  EXPECT_EQ(rows[0].gpu_instance_id, 7U);
  EXPECT_EQ(rows[0].profile, "1g.10gb");
  EXPECT_EQ(rows[0].bucket_us, kTen);
  EXPECT_EQ(rows[0].samples, 3);
  EXPECT_EQ(rows[0].memory_used_bytes, (GaugeStats{1 * kGiB, 2 * kGiB, 3 * kGiB}));
  EXPECT_EQ(rows[0].memory_total_bytes, 10 * kGiB);
  EXPECT_EQ(rows[1].bucket_us, kTen + kMinute);
  EXPECT_EQ(rows[1].memory_used_bytes, (GaugeStats{6 * kGiB, 6 * kGiB, 6 * kGiB}));
}

TEST_F(MigMemory, TheHourIsTheMeanOfAllItsReadings) {
  const auto rows = series(Resolution::hours);
  ASSERT_EQ(rows.size(), 2U);  // both MIG devices, by uuid
  EXPECT_EQ(rows[0].mig_uuid, kSlice);
  EXPECT_EQ(rows[0].samples, 4);
  EXPECT_EQ(rows[0].memory_used_bytes, (GaugeStats{1 * kGiB, 3 * kGiB, 6 * kGiB}));  // 12 / 4
  EXPECT_EQ(rows[1].mig_uuid, kOther);
  EXPECT_EQ(rows[1].memory_used_bytes, (GaugeStats{0.0, 0.0, 0.0}));  // empty, not absent
}

TEST_F(MigMemory, RawSamplesAreNotKept) {
  const auto refused = mig_memory_series(
      store, {.resolution = Resolution::samples, .since_us = kT0, .until_us = kT0 + kDay});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::invalid_input);
}

TEST_F(MigMemory, MinutesGoWithTheDevicesMinutesAndHoursStay) {
  const Retention retention{.device_samples_us = kHour, .device_minutes_us = kDay};
  ASSERT_TRUE(prune(store, kTen + 3 * kDay, retention));
  EXPECT_TRUE(series(Resolution::minutes).empty());
  EXPECT_EQ(series(Resolution::hours).size(), 2U);
  // A late reading for a pruned minute is not stored there again; its hour still takes it.
  ASSERT_TRUE(write(store, {.mig_memory = {reading(kSlice, kTen + 2 * kMinute, 2 * kGiB)}}));
  EXPECT_TRUE(series(Resolution::minutes).empty());
  const auto hours = series(Resolution::hours, kSlice);
  ASSERT_EQ(hours.size(), 1U);
  EXPECT_EQ(hours[0].samples, 5);
}

// GPM figures of a MIG device (schema step 9): per figure, min, mean and max over the readings
// that had it; a reading without it (the first one, with no GPM window yet) is not counted.
class MigGpm : public MigMemory {
 protected:
  static constexpr std::size_t kSm = 0;        // gpm_sm_activity_percent
  static constexpr std::size_t kDram = 3;      // gpm_dram_bandwidth_percent
  static constexpr std::size_t kNvlinkRx = 7;  // gpm_nvlink_rx_bytes_per_second

  static MigMemoryRecord with_gpm(TimeUs time_us, std::optional<double> sm,
                                  std::optional<double> dram) {
    MigMemoryRecord record = reading("MIG-gpm", time_us, kGiB);
    record.gpm[kSm] = sm;
    record.gpm[kDram] = dram;
    return record;
  }

  void SetUp() override {
    MigMemory::SetUp();
    // The first minute of 11:00: no GPM yet, then SM 10, 40, 70 and DRAM only on the last;
    // its second minute: no GPM at all.
    const TimeUs eleven = kTen + kHour;
    Batch batch;
    batch.mig_memory = {with_gpm(eleven, {}, {}), with_gpm(eleven + 10 * kSecond, 10, {}),
                        with_gpm(eleven + 20 * kSecond, 40, {}),
                        with_gpm(eleven + 30 * kSecond, 70, 12.5),
                        with_gpm(eleven + kMinute, {}, {})};
    ASSERT_TRUE(write(store, batch));
  }
};

TEST_F(MigGpm, EachFigureHasTheMinMeanAndMaxOfTheReadingsThatHadIt) {
  const auto rows = series(Resolution::minutes, "MIG-gpm");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].samples, 4);  // memory: every reading
  EXPECT_EQ(rows[0].gpm_samples[kSm], 3);
  EXPECT_EQ(rows[0].gpm[kSm], (GaugeStats{10.0, 40.0, 70.0}));  // 120 / 3, not 120 / 4
  EXPECT_EQ(rows[0].gpm_samples[kDram], 1);
  EXPECT_EQ(rows[0].gpm[kDram], (GaugeStats{12.5, 12.5, 12.5}));
}

TEST_F(MigGpm, AFigureNoReadingHadIsAbsentNeverZero) {
  const auto rows = series(Resolution::minutes, "MIG-gpm");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].gpm_samples[kNvlinkRx], 0);
  EXPECT_EQ(rows[0].gpm[kNvlinkRx], GaugeStats{});
  EXPECT_EQ(rows[1].samples, 1);
  for (std::size_t i = 0; i < kGpmMetrics.size(); ++i) {
    EXPECT_EQ(rows[1].gpm_samples[i], 0) << i;
    EXPECT_EQ(rows[1].gpm[i], GaugeStats{}) << i;
  }
  // The file itself holds NULL, not 0, where no reading had the figure.
  testing::RawDatabase raw(dir / "history.db");
  EXPECT_EQ(raw.rows("SELECT gpm_sm_activity_percent_min, gpm_sm_activity_percent_sum, "
                     "gpm_sm_activity_percent_max, gpm_nvlink_rx_bytes_per_second_sum "
                     "FROM mig_memory_minutes WHERE mig_uuid = 'MIG-gpm' ORDER BY bucket_us"),
            (std::vector<std::vector<std::string>>{{"10.0", "120.0", "70.0", "NULL"},
                                                   {"NULL", "NULL", "NULL", "NULL"}}));
}

TEST_F(MigGpm, TheHourCountsTheSameReadings) {
  const auto rows = series(Resolution::hours, "MIG-gpm");
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].samples, 5);
  EXPECT_EQ(rows[0].gpm_samples[kSm], 3);
  EXPECT_EQ(rows[0].gpm[kSm], (GaugeStats{10.0, 40.0, 70.0}));
  // A reading with the figure after readings without it still counts alone.
  ASSERT_TRUE(write(store, {.mig_memory = {with_gpm(kTen + kHour + 2 * kMinute, 100, {})}}));
  const auto later = series(Resolution::hours, "MIG-gpm");
  ASSERT_EQ(later.size(), 1U);
  EXPECT_EQ(later[0].gpm_samples[kSm], 4);
  EXPECT_EQ(later[0].gpm[kSm], (GaugeStats{10.0, 55.0, 100.0}));  // 220 / 4
}

TEST(MigGpmPosition, OnlyGpmMetricsHaveOne) {
  EXPECT_EQ(gpm_position(DeviceMetric::gpm_sm_activity), 0U);
  EXPECT_EQ(gpm_position(DeviceMetric::gpm_nvlink_rx), kGpmMetrics.size() - 1);
  EXPECT_FALSE(gpm_position(DeviceMetric::memory_used));
  EXPECT_FALSE(gpm_position(DeviceMetric::utilization_gpu));
}

TEST(MigMemoryRecord, BadReadingsAreRefused) {
  MigMemoryRecord record = reading(kSlice, kT0, kGiB);
  EXPECT_TRUE(validate(record));
  record.mig_uuid.clear();
  EXPECT_FALSE(validate(record));
  record = reading(kSlice, kT0, std::nan(""));
  EXPECT_FALSE(validate(record));
  record = reading(kSlice, kT0, -1);
  EXPECT_FALSE(validate(record));
  record = reading(kSlice, kT0, kGiB);
  record.gpm[2] = std::numeric_limits<double>::infinity();
  const auto refused = validate(record);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("gpm_tensor_activity_percent"), std::string::npos);
  record.gpm[2] = -1;
  EXPECT_FALSE(validate(record));
}

TEST(MigMemoryRecord, OnlyMigDevicesWithAUuidAndAReadingAreRecorded) {
  Device gpu;
  gpu.identity.uuid = std::string("GPU-h100");
  gpu.identity.index = 3;
  EXPECT_TRUE(mig_memory_records(gpu, kT0).empty());  // not MIG-capable
  MigState state{.enabled = true};
  MigDevice read;
  read.gpu_instance_id = 9;
  read.uuid = std::string("MIG-read");
  read.profile = std::string("2g.20gb");
  read.memory_used_bytes = 5 * kGiB;
  read.gpm[0] = 33.0;  // SM activity; the others stay not_supported
  MigDevice no_memory;
  no_memory.uuid = std::string("MIG-no-memory");  // memory_used_bytes absent: nothing made up
  MigDevice no_uuid;
  no_uuid.memory_used_bytes = kGiB;
  state.devices = {read, no_memory, no_uuid};
  gpu.mig = state;
  const auto records = mig_memory_records(gpu, kT0);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].gpu_uuid, "GPU-h100");
  EXPECT_EQ(records[0].gpu_index, 3U);
  EXPECT_EQ(records[0].mig_uuid, "MIG-read");
  EXPECT_EQ(records[0].gpu_instance_id, 9U);
  EXPECT_EQ(records[0].profile, "2g.20gb");
  EXPECT_EQ(records[0].memory_used_bytes, 5 * kGiB);
  EXPECT_FALSE(records[0].memory_total_bytes);
  EXPECT_EQ(records[0].gpm[0], 33.0);
  for (std::size_t i = 1; i < kGpmMetrics.size(); ++i) EXPECT_FALSE(records[0].gpm[i]) << i;
  gpu.mig->enabled = false;
  EXPECT_TRUE(mig_memory_records(gpu, kT0).empty());
}

}  // namespace gpumeter::store::mig_memory_test

// SPDX-License-Identifier: MIT
// GPM figures in the history (schema step 7): written with each sample, aggregated into minutes
// and hours with exact min / avg / max, pruned with their rows, and NULL — never 0 — for a GPU
// without GPM. The raw checks read the file through SQLite's C API, not the store's code.
#include <gtest/gtest.h>

#include <limits>

#include "store/history.h"
#include "store/maintenance.h"
#include "store/write.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::gpm_history_test {

using gpumeter::testing::TempDir;
using testing::kDay;
using testing::kHour;
using testing::kMinute;
using testing::kSecond;
using testing::kT0;
using testing::RawDatabase;

// A Hopper GPU's sample: SM activity `sm`, occupancy sm/2, tensor sm/4, DRAM `dram`, PCIe and
// NVLink rates in bytes/s.
DeviceSampleRecord hopper_sample(TimeUs time_us, double sm, double dram) {
  DeviceSampleRecord sample = testing::sample("GPU-h", time_us, sm);
  sample.gpm_sm_activity_percent = sm;
  sample.gpm_sm_occupancy_percent = sm / 2;
  sample.gpm_tensor_activity_percent = sm / 4;
  sample.gpm_dram_bandwidth_percent = dram;
  sample.gpm_pcie_tx_bytes_per_second = 1e9 * sm / 100;
  sample.gpm_pcie_rx_bytes_per_second = 3e9 * sm / 100;
  sample.gpm_nvlink_tx_bytes_per_second = 2e10;
  sample.gpm_nvlink_rx_bytes_per_second = 1e10;
  return sample;
}

std::vector<DeviceSeriesRow> series(Store& store, Resolution resolution, const std::string& uuid) {
  auto rows = device_series(
      store, {.resolution = resolution, .since_us = 0, .until_us = kT0 + 365 * kDay, .uuid = uuid});
  EXPECT_TRUE(rows) << rows.error().message;
  return rows ? *rows : std::vector<DeviceSeriesRow>{};
}

// Two minutes at 10 s of GPU-h (Hopper) and GPU-a (no GPM). GPU-h's first sample has no GPM
// figure (the first reading has nothing to compare with); then SM activity 20, 40, 60, 80,
// 100 in minute 0 and 10 throughout minute 1, DRAM 30 then 5.
void write_two_minutes(Store& store) {
  std::vector<DeviceSampleRecord> samples;
  DeviceSampleRecord first = testing::sample("GPU-h", kT0, 0);
  samples.push_back(first);
  for (int i = 1; i < 12; ++i) {
    const TimeUs time = kT0 + i * 10 * kSecond;
    samples.push_back(i < 6 ? hopper_sample(time, 20.0 * i, 30) : hopper_sample(time, 10, 5));
  }
  for (int i = 0; i < 12; ++i)
    samples.push_back(testing::sample("GPU-a", kT0 + i * 10 * kSecond, 50));
  const auto written = write(store, {.device_samples = std::move(samples)});
  ASSERT_TRUE(written) << written.error().message;
}

TEST(GpmHistory, SamplesKeepTheFiguresAndNullWithoutGpm) {
  TempDir dir;
  {
    Store store = testing::open_store(dir / "s.db");
    write_two_minutes(store);
    const auto rows = series(store, Resolution::samples, "GPU-h");
    ASSERT_EQ(rows.size(), 12U);
    EXPECT_FALSE(rows[0].gpm_sm_activity_percent.avg);
    EXPECT_EQ(rows[2].gpm_sm_activity_percent, (GaugeStats{40.0, 40.0, 40.0}));
    EXPECT_EQ(rows[2].gpm_tensor_activity_percent.avg, 10.0);
    EXPECT_EQ(rows[2].gpm_pcie_rx_bytes_per_second.avg, 1.2e9);
    EXPECT_EQ(rows[2].gpm_nvlink_tx_bytes_per_second.avg, 2e10);
    for (const DeviceSeriesRow& row : series(store, Resolution::samples, "GPU-a")) {
      EXPECT_FALSE(row.gpm_sm_activity_percent.avg);
      EXPECT_FALSE(row.gpm_nvlink_rx_bytes_per_second.avg);
    }
  }
  RawDatabase raw(dir / "s.db");
  const std::string gpu_a = "(SELECT id FROM devices WHERE uuid = 'GPU-a')";
  EXPECT_EQ(raw.integer("SELECT count(*) FROM device_samples WHERE device_id = " + gpu_a +
                        " AND gpm_sm_activity_percent IS NULL AND gpm_sm_occupancy_percent IS NULL"
                        " AND gpm_tensor_activity_percent IS NULL"
                        " AND gpm_dram_bandwidth_percent IS NULL"
                        " AND gpm_pcie_tx_bytes_per_second IS NULL"
                        " AND gpm_pcie_rx_bytes_per_second IS NULL"
                        " AND gpm_nvlink_tx_bytes_per_second IS NULL"
                        " AND gpm_nvlink_rx_bytes_per_second IS NULL"),
            12);
  EXPECT_EQ(raw.real("SELECT gpm_dram_bandwidth_percent FROM device_samples s JOIN devices d "
                     "ON d.id = s.device_id WHERE d.uuid = 'GPU-h' AND s.time_us = " +
                     std::to_string(kT0 + 70 * kSecond)),
            5.0);
}

TEST(GpmHistory, MinutesAndHoursKeepExactMinAvgMax) {
  TempDir dir;
  {
    Store store = testing::open_store(dir / "m.db");
    write_two_minutes(store);
    ASSERT_TRUE(downsample(store, kT0 + kHour));
    const auto minutes = series(store, Resolution::minutes, "GPU-h");
    ASSERT_EQ(minutes.size(), 2U);
    EXPECT_EQ(minutes[0].samples, 6);
    // Five samples had GPM: (20 + 40 + 60 + 80 + 100) / 5; the first one counts for nothing.
    EXPECT_EQ(minutes[0].gpm_sm_activity_percent, (GaugeStats{20.0, 60.0, 100.0}));
    EXPECT_EQ(minutes[0].gpm_sm_occupancy_percent, (GaugeStats{10.0, 30.0, 50.0}));
    EXPECT_EQ(minutes[0].gpm_dram_bandwidth_percent, (GaugeStats{30.0, 30.0, 30.0}));
    EXPECT_EQ(minutes[1].gpm_sm_activity_percent, (GaugeStats{10.0, 10.0, 10.0}));
    EXPECT_EQ(minutes[1].gpm_pcie_tx_bytes_per_second, (GaugeStats{1e8, 1e8, 1e8}));
    const auto hours = series(store, Resolution::hours, "GPU-h");
    ASSERT_EQ(hours.size(), 1U);
    // An hour weights each minute's average by the minute's samples (6 and 6), as
    // docs/store.md says, although minute 0 had GPM in 5 of them: (6 × 60 + 6 × 10) / 12 = 35
    // rather than the samples' own mean 360 / 11 = 32.7. Only the minute a GPU's recording
    // starts in (its first reading has no GPM figure) is weighted so.
    EXPECT_EQ(hours[0].gpm_sm_activity_percent, (GaugeStats{10.0, 35.0, 100.0}));
    for (const auto resolution : {Resolution::minutes, Resolution::hours}) {
      for (const DeviceSeriesRow& row : series(store, resolution, "GPU-a")) {
        EXPECT_EQ(row.utilization_gpu_percent.avg, 50.0);
        EXPECT_EQ(row.gpm_sm_activity_percent, GaugeStats{});
        EXPECT_EQ(row.gpm_dram_bandwidth_percent, GaugeStats{});
      }
    }
  }
  RawDatabase raw(dir / "m.db");
  for (const char* table : {"device_minutes", "device_hours"}) {
    EXPECT_EQ(raw.integer(std::string("SELECT count(*) FROM ") + table +
                          " t JOIN devices d ON d.id = t.device_id WHERE d.uuid = 'GPU-a' AND "
                          "gpm_sm_activity_percent_min IS NULL AND "
                          "gpm_sm_activity_percent_avg IS NULL AND "
                          "gpm_sm_activity_percent_max IS NULL AND "
                          "gpm_nvlink_rx_bytes_per_second_avg IS NULL"),
              raw.integer(std::string("SELECT count(*) FROM ") + table +
                          " t JOIN devices d ON d.id = t.device_id WHERE d.uuid = 'GPU-a'"))
        << table;
  }
}

TEST(GpmHistory, PruningKeepsTheHoursFiguresAfterTheFinerTiersAreGone) {
  TempDir dir;
  Store store = testing::open_store(dir / "p.db");
  write_two_minutes(store);
  const TimeUs later = kT0 + 100 * kDay;
  const auto kept = maintain(store, later, Retention{});
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_TRUE(series(store, Resolution::samples, "GPU-h").empty());
  EXPECT_TRUE(series(store, Resolution::minutes, "GPU-h").empty());
  const auto hours = series(store, Resolution::hours, "GPU-h");
  ASSERT_EQ(hours.size(), 1U);
  EXPECT_EQ(hours[0].gpm_tensor_activity_percent.max, 25.0);
  EXPECT_EQ(hours[0].gpm_nvlink_rx_bytes_per_second, (GaugeStats{1e10, 1e10, 1e10}));
}

TEST(GpmHistory, ANonFiniteFigureIsRefusedByName) {
  DeviceSampleRecord sample = hopper_sample(kT0, 50, 10);
  EXPECT_TRUE(validate(sample));
  sample.gpm_dram_bandwidth_percent = std::numeric_limits<double>::quiet_NaN();
  const auto invalid = validate(sample);
  ASSERT_FALSE(invalid);
  EXPECT_NE(invalid.error().message.find("gpm_dram_bandwidth_percent"), std::string::npos)
      << invalid.error().message;
}

Device device(const std::string& uuid) {
  Device made;
  made.identity.uuid = uuid;
  return made;
}

TEST(GpmHistory, ASnapshotsGpmBecomesTheSampleAndNotSupportedStaysAbsent) {
  Device hopper = device("GPU-h");
  hopper.state[DeviceMetric::gpm_sm_activity] = 72.5;
  hopper.state[DeviceMetric::gpm_nvlink_rx] = 4e9;
  hopper.state[DeviceMetric::gpm_tensor_activity] = std::unexpected(Unavailable::no_data);
  const auto sample = device_sample_record(hopper, kT0);
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->gpm_sm_activity_percent, 72.5);
  EXPECT_EQ(sample->gpm_nvlink_rx_bytes_per_second, 4e9);
  EXPECT_FALSE(sample->gpm_tensor_activity_percent);
  Device ampere = device("GPU-a");
  for (const DeviceMetric metric : kGpmMetrics)
    ampere.state[metric] = std::unexpected(Unavailable::not_supported);
  const auto without = device_sample_record(ampere, kT0);
  ASSERT_TRUE(without);
  EXPECT_FALSE(without->gpm_sm_activity_percent);
  EXPECT_FALSE(without->gpm_pcie_tx_bytes_per_second);
}

}  // namespace gpumeter::store::gpm_history_test

// SPDX-License-Identifier: MIT
// The tiers: samples into minutes into hours with exact min / avg / max and energy, late
// samples aggregated again, bounded and repeatable batches, and retention.
#include "store/maintenance.h"

#include <gtest/gtest.h>

#include "store/history.h"
#include "store/write.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::maintenance_test {

using gpumeter::testing::TempDir;
using testing::kDay;
using testing::kHour;
using testing::kMinute;
using testing::kSecond;
using testing::kT0;
using testing::sample;

std::vector<DeviceSeriesRow> series(Store& store, Resolution resolution,
                                    std::optional<std::string> uuid = "GPU-a") {
  auto rows = device_series(store, {.resolution = resolution,
                                    .since_us = 0,
                                    .until_us = kT0 + 365 * kDay,
                                    .uuid = std::move(uuid)});
  EXPECT_TRUE(rows) << rows.error().message;
  return rows ? *rows : std::vector<DeviceSeriesRow>{};
}

void write_samples(Store& store, std::vector<DeviceSampleRecord> samples) {
  const auto written = write(store, {.device_samples = std::move(samples)});
  ASSERT_TRUE(written) << written.error().message;
}

// Two minutes of GPU-a at 10 s: utilisation 10..60 then 0, 100, 50, 50, 50, 50; the energy
// counter rises 100 J per sample from 1000 J. GPU-b alongside at a constant 5 %.
void write_two_minutes(Store& store) {
  const double utilization[] = {10, 20, 30, 40, 50, 60, 0, 100, 50, 50, 50, 50};
  std::vector<DeviceSampleRecord> samples;
  for (int i = 0; i < 12; ++i) {
    const TimeUs time = kT0 + i * 10 * kSecond;
    samples.push_back(sample("GPU-a", time, utilization[i], 1000.0 + 100 * i));
    samples.push_back(sample("GPU-b", time, 5));
  }
  write_samples(store, std::move(samples));
}

TEST(Downsample, MinutesKeepExactMinAvgMaxAndEnergy) {
  TempDir dir;
  Store store = testing::open_store(dir / "m.db");
  write_two_minutes(store);
  const auto report = downsample(store, kT0 + 2 * kMinute);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->device_minutes_written, 4U);  // 2 minutes x 2 GPUs
  EXPECT_EQ(report->device_hours_written, 0U);    // the hour is not over
  const auto minutes = series(store, Resolution::minutes);
  ASSERT_EQ(minutes.size(), 2U);
  EXPECT_EQ(minutes[0].time_us, kT0);
  EXPECT_EQ(minutes[0].samples, 6);
  EXPECT_EQ(minutes[0].utilization_gpu_percent, (GaugeStats{10.0, 35.0, 60.0}));
  EXPECT_EQ(minutes[0].utilization_memory_percent, (GaugeStats{5.0, 17.5, 30.0}));
  EXPECT_EQ(minutes[0].power_draw_watts, (GaugeStats{110.0, 135.0, 160.0}));
  // The first sample has no earlier reading: five rises of 100 J.
  EXPECT_EQ(minutes[0].energy_used_joules, 500.0);
  EXPECT_EQ(minutes[1].time_us, kT0 + kMinute);
  EXPECT_EQ(minutes[1].utilization_gpu_percent, (GaugeStats{0.0, 50.0, 100.0}));
  // The rise from the last sample of minute 0 counts in minute 1: six rises.
  EXPECT_EQ(minutes[1].energy_used_joules, 600.0);
  const auto other = series(store, Resolution::minutes, "GPU-b");
  ASSERT_EQ(other.size(), 2U);
  EXPECT_EQ(other[1].utilization_gpu_percent, (GaugeStats{5.0, 5.0, 5.0}));
  EXPECT_FALSE(other[1].energy_used_joules.has_value());  // GPU-b has no counter
}

TEST(Downsample, HoursAreTheMeanOfAllTheirSamples) {
  TempDir dir;
  Store store = testing::open_store(dir / "h.db");
  write_two_minutes(store);
  ASSERT_TRUE(downsample(store, kT0 + kHour));
  const auto hours = series(store, Resolution::hours);
  ASSERT_EQ(hours.size(), 1U);
  EXPECT_EQ(hours[0].time_us, kT0);
  EXPECT_EQ(hours[0].samples, 12);
  // (10+20+30+40+50+60 + 0+100+50+50+50+50) / 12 = 510 / 12
  EXPECT_EQ(hours[0].utilization_gpu_percent, (GaugeStats{0.0, 42.5, 100.0}));
  EXPECT_EQ(hours[0].temperature_celsius, (GaugeStats{40.0, 40.0, 40.0}));
  EXPECT_EQ(hours[0].energy_used_joules, 1100.0);
}

TEST(Downsample, OnlyCompleteMinutesAreAggregated) {
  TempDir dir;
  Store store = testing::open_store(dir / "c.db");
  write_samples(store, {sample("GPU-a", kT0, 10), sample("GPU-a", kT0 + kMinute, 20)});
  ASSERT_TRUE(downsample(store, kT0 + kMinute + 30 * kSecond));
  ASSERT_EQ(series(store, Resolution::minutes).size(), 1U);
  write_samples(store, {sample("GPU-a", kT0 + kMinute + 40 * kSecond, 40)});
  ASSERT_TRUE(downsample(store, kT0 + 2 * kMinute));
  const auto minutes = series(store, Resolution::minutes);
  ASSERT_EQ(minutes.size(), 2U);
  EXPECT_EQ(minutes[1].utilization_gpu_percent, (GaugeStats{20.0, 30.0, 40.0}));
}

TEST(Downsample, RunningItAgainChangesNothing) {
  TempDir dir;
  Store store = testing::open_store(dir / "r.db");
  write_two_minutes(store);
  ASSERT_TRUE(downsample(store, kT0 + kHour));
  const auto minutes = series(store, Resolution::minutes);
  const auto hours = series(store, Resolution::hours);
  const auto again = downsample(store, kT0 + kHour);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->device_minutes_written + again->device_hours_written, 0U);
  const auto minutes_again = series(store, Resolution::minutes);
  ASSERT_EQ(minutes_again.size(), minutes.size());
  for (std::size_t i = 0; i < minutes.size(); ++i) {
    EXPECT_EQ(minutes_again[i].utilization_gpu_percent, minutes[i].utilization_gpu_percent);
    EXPECT_EQ(minutes_again[i].energy_used_joules, minutes[i].energy_used_joules);
  }
  ASSERT_EQ(series(store, Resolution::hours).size(), hours.size());
}

TEST(Downsample, ALateSampleIsAggregatedIntoItsMinuteAndHour) {
  TempDir dir;
  Store store = testing::open_store(dir / "late.db");
  write_two_minutes(store);
  ASSERT_TRUE(downsample(store, kT0 + kHour + kMinute));
  // A sample of minute 0 that was held back (say, by a full disk) arrives an hour later.
  write_samples(store, {sample("GPU-a", kT0 + 5 * kSecond, 90)});
  ASSERT_TRUE(downsample(store, kT0 + kHour + 2 * kMinute));
  const auto minutes = series(store, Resolution::minutes);
  EXPECT_EQ(minutes[0].samples, 7);
  EXPECT_EQ(minutes[0].utilization_gpu_percent, (GaugeStats{10.0, 300.0 / 7, 90.0}));
  const auto hours = series(store, Resolution::hours);
  ASSERT_EQ(hours.size(), 1U);
  EXPECT_EQ(hours[0].samples, 13);
  EXPECT_DOUBLE_EQ(hours[0].utilization_gpu_percent.avg.value(), 600.0 / 13);
}

TEST(Downsample, ACounterThatGoesBackOrALongGapCreditsNoEnergy) {
  TempDir dir;
  Store store = testing::open_store(dir / "e.db");
  write_samples(store, {
                           sample("GPU-a", kT0, 10, 5000),
                           sample("GPU-a", kT0 + 30 * kSecond, 10, 5300),  // +300
                           sample("GPU-a", kT0 + kMinute, 10, 20),         // driver reloaded
                           sample("GPU-a", kT0 + kMinute + 30 * kSecond, 10, 70),  // +50
                           sample("GPU-a", kT0 + 30 * kMinute, 10, 9070),          // after 28.5 min
                           sample("GPU-a", kT0 + 30 * kMinute + 10 * kSecond, 10, 9080),  // +10
                       });
  ASSERT_TRUE(downsample(store, kT0 + kHour));
  const auto minutes = series(store, Resolution::minutes);
  ASSERT_EQ(minutes.size(), 3U);
  EXPECT_EQ(minutes[0].energy_used_joules, 300.0);
  EXPECT_EQ(minutes[1].energy_used_joules, 50.0);
  EXPECT_EQ(minutes[2].energy_used_joules, 10.0);
  EXPECT_EQ(series(store, Resolution::hours).at(0).energy_used_joules, 360.0);
}

TEST(Downsample, BoundedBatchesResumedAfterReopeningGiveTheSameResult) {
  TempDir dir;
  std::vector<DeviceSampleRecord> samples;
  for (TimeUs t = kT0; t < kT0 + 3 * kHour; t += 20 * kSecond) {
    samples.push_back(sample("GPU-a", t, static_cast<double>((t - kT0) / kSecond % 97),
                             static_cast<double>((t - kT0) / kSecond)));
  }
  {
    Store whole = testing::open_store(dir / "whole.db");
    write_samples(whole, samples);
    ASSERT_TRUE(downsample(whole, kT0 + 4 * kHour));
  }
  {
    Store step = testing::open_store(dir / "step.db");
    write_samples(step, samples);
    const auto first = downsample(step, kT0 + 4 * kHour, {.max_batches = 2});
    ASSERT_TRUE(first);
    EXPECT_FALSE(first->complete);
    EXPECT_EQ(first->batches, 2U);
  }
  Store step = testing::open_store(dir / "step.db");
  int calls = 0;
  for (bool complete = false; !complete && calls < 10; ++calls) {
    const auto report = downsample(step, kT0 + 4 * kHour, {.max_batches = 1});
    ASSERT_TRUE(report);
    complete = report->complete;
  }
  Store whole = testing::open_store(dir / "whole.db");
  for (const auto resolution : {Resolution::minutes, Resolution::hours}) {
    const auto expected = series(whole, resolution);
    const auto actual = series(step, resolution);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(actual[i].time_us, expected[i].time_us);
      EXPECT_EQ(actual[i].samples, expected[i].samples);
      EXPECT_EQ(actual[i].utilization_gpu_percent, expected[i].utilization_gpu_percent);
      EXPECT_EQ(actual[i].energy_used_joules, expected[i].energy_used_joules);
    }
  }
  EXPECT_EQ(series(whole, Resolution::minutes).size(), 180U);
  EXPECT_EQ(series(whole, Resolution::hours).size(), 3U);
}

std::int64_t count(Store& store, const std::string& table) {
  testing::RawDatabase raw(store.path());
  return raw.integer("SELECT count(*) FROM " + table);
}

TEST(Prune, EachTierLosesWhatIsOlderThanItsRetention) {
  TempDir dir;
  Store store = testing::open_store(dir / "p.db");
  std::vector<DeviceSampleRecord> samples;
  for (TimeUs t = kT0; t < kT0 + 5 * kHour; t += kMinute) samples.push_back(sample("GPU-a", t, 1));
  write_samples(store, samples);  // 300 samples, one per minute, over 5 hours
  const TimeUs now = kT0 + 5 * kHour + 10 * kMinute;
  ASSERT_TRUE(downsample(store, now));
  const Retention retention{
      .device_samples_us = 2 * kHour, .device_minutes_us = 3 * kHour, .device_hours_us = 4 * kHour};
  const auto report = prune(store, now, retention);
  ASSERT_TRUE(report) << report.error().message;
  // Horizons at whole hours: samples from kT0+3h, minutes from kT0+2h, hours from kT0+1h.
  EXPECT_EQ(count(store, "device_samples"), 120);
  EXPECT_EQ(count(store, "device_minutes"), 180);
  EXPECT_EQ(count(store, "device_hours"), 4);
  EXPECT_EQ(report->rows_deleted, 180U + 120U + 1U);
  EXPECT_EQ(series(store, Resolution::samples).front().time_us, kT0 + 3 * kHour);
  const auto again = prune(store, now, retention);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->rows_deleted, 0U);
}

TEST(Prune, NothingIsDeletedBeforeItIsAggregated) {
  TempDir dir;
  Store store = testing::open_store(dir / "n.db");
  write_samples(store, {sample("GPU-a", kT0, 1), sample("GPU-a", kT0 + 3 * kHour, 1)});
  ASSERT_TRUE(prune(store, kT0 + 30 * kDay, {.device_samples_us = kHour}));
  EXPECT_EQ(count(store, "device_samples"), 2);
  // Aggregated up to kT0 + 2h only: the sample before that may go, the other stays.
  ASSERT_TRUE(downsample(store, kT0 + 2 * kHour));
  ASSERT_TRUE(prune(store, kT0 + 30 * kDay, {.device_samples_us = kHour}));
  EXPECT_EQ(count(store, "device_samples"), 1);
  EXPECT_EQ(count(store, "device_minutes"), 1);
}

TEST(Prune, ASampleOlderThanTheHorizonIsCountedLateNotStored) {
  TempDir dir;
  Store store = testing::open_store(dir / "l.db");
  write_samples(store, {sample("GPU-a", kT0 + 10 * kHour, 1)});
  ASSERT_TRUE(maintain(store, kT0 + 11 * kHour, {.device_samples_us = kHour}));
  const auto written = write(store, {.device_samples = {sample("GPU-a", kT0 + 9 * kHour, 1),
                                                        sample("GPU-a", kT0 + 10 * kHour + 1, 1)}});
  ASSERT_TRUE(written);
  EXPECT_EQ(written->late_device_samples, 1U);
  EXPECT_EQ(written->device_samples, 1U);
}

TEST(Prune, ProcessMinutesGoAfterTheirRetentionWhileHoursAndTheLedgerStay) {
  TempDir dir;
  Store store = testing::open_store(dir / "pm.db");
  const ProcessIdentity who = testing::process(9, "ada", "GPU-a");
  Batch batch;
  for (TimeUs t = kT0; t < kT0 + 3 * kHour; t += kMinute)
    batch.process_intervals.push_back(testing::interval(who, t, t + kMinute, 50));
  ASSERT_TRUE(write(store, batch));
  ASSERT_TRUE(prune(store, kT0 + 2 * kHour, {.process_minutes_us = kHour}));
  EXPECT_EQ(count(store, "process_minutes"), 120);  // from kT0 + 1h
  EXPECT_EQ(count(store, "process_hours"), 3);
  // A late interval before the horizon still reaches the hours and the ledger.
  ASSERT_TRUE(
      write(store, {.process_intervals = {testing::interval(who, kT0 - kMinute, kT0, 50)}}));
  EXPECT_EQ(count(store, "process_minutes"), 120);
  EXPECT_EQ(count(store, "process_hours"), 4);
  testing::RawDatabase raw(store.path());
  EXPECT_DOUBLE_EQ(raw.real("SELECT gpu_seconds FROM ledger"), 181 * 60.0);
}

TEST(Prune, RetentionsMustNest) {
  TempDir dir;
  Store store = testing::open_store(dir / "v.db");
  for (const Retention& bad : {Retention{.device_samples_us = 10 * kDay, .device_minutes_us = kDay},
                               Retention{.device_minutes_us = 0, .device_hours_us = kDay},
                               Retention{.process_minutes_us = -1}}) {
    const auto report = prune(store, kT0, bad);
    ASSERT_FALSE(report);
    EXPECT_EQ(report.error().code, ErrorCode::invalid_input);
  }
  EXPECT_TRUE(validate(Retention{}));
}

}  // namespace gpumeter::store::maintenance_test

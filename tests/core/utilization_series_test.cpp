// SPDX-License-Identifier: MIT
// The two tiers of per-process utilisation: raw records folded into buckets, with each
// engine's busy time kept up to the rounding of a bucket's average to a whole percent.
#include "core/utilization_series.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "core/tiers.h"

namespace gpumeter::utilization_series_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;  // a multiple of every bucket below
constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kPeriod = 166'667;

ProcessGpuRecord raw(TimeUs t, std::uint8_t sm, std::uint8_t mem = 0) {
  ProcessGpuRecord record{.time_us = t, .peak_sm = sm};
  record.percent[static_cast<std::size_t>(Engine::sm)] = sm;
  record.percent[static_cast<std::size_t>(Engine::memory)] = mem;
  return record;
}

// Percent × µs of `engine` the raw records account for in (from, to]: each covers its period
// up to its time, never reaching back past the previous record.
std::int64_t raw_busy(const std::vector<ProcessGpuRecord>& records, Engine engine, TimeUs from,
                      TimeUs to, TimeUs period_us) {
  std::int64_t sum = 0;
  TimeUs previous = 0;
  for (const ProcessGpuRecord& r : records) {
    const TimeUs begin = std::max({r.time_us - period_us, previous, from});
    const TimeUs end = std::min(r.time_us, to);
    if (begin < end) sum += std::int64_t{r[engine]} * (end - begin);
    previous = r.time_us;
  }
  return sum;
}

// The same from the coarse tier, whose records cover whole buckets.
std::int64_t coarse_busy(const CoarseGpuRecords& coarse, Engine engine, TimeUs from, TimeUs to,
                         TimeUs bucket_us) {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < coarse.size(); ++i) {
    if (coarse[i].time_us > from && coarse[i].time_us <= to) {
      sum += std::int64_t{coarse[i][engine]} * bucket_us;
    }
  }
  return sum;
}

// A worker busy at random percents in random bursts, one raw record per driver period.
std::vector<ProcessGpuRecord> bursts(std::uint32_t seed, TimeUs seconds) {
  std::minstd_rand random(seed);
  std::vector<ProcessGpuRecord> records;
  bool busy = false;
  for (TimeUs t = kT0 + kPeriod; t <= kT0 + seconds * kSecond; t += kPeriod) {
    if (random() % 10 == 0) busy = !busy;
    if (!busy) continue;
    records.push_back(raw(t, static_cast<std::uint8_t>(random() % 101),
                          static_cast<std::uint8_t>(random() % 101)));
  }
  return records;
}

TEST(Tiers, BucketsEndAtMultiplesOfTheirLength) {
  EXPECT_EQ(bucket_end(kT0, kSecond), kT0);
  EXPECT_EQ(bucket_end(kT0 + 1, kSecond), kT0 + kSecond);
  EXPECT_EQ(bucket_end(kT0 + kSecond - 1, kSecond), kT0 + kSecond);
  EXPECT_EQ(bucket_floor(kT0 + kSecond - 1, kSecond), kT0);
  EXPECT_EQ(bucket_floor(kT0, kSecond), kT0);
  EXPECT_EQ(bucket_end(-1, 10), 0);
  EXPECT_EQ(bucket_floor(-1, 10), -10);
}

TEST(UtilizationSeries, FoldingKeepsBusyTimeUpToRoundingPerBucket) {
  for (const TimeUs bucket : {kSecond, 5 * kSecond / 2}) {
    SCOPED_TRACE(::testing::Message() << "bucket " << bucket);
    const std::vector<ProcessGpuRecord> records = bursts(7, 600);
    UtilizationSeries series(100'000, 100'000);
    const UtilizationTiers tiers{.fine_horizon_us = 60 * kSecond, .bucket_us = bucket};
    for (const ProcessGpuRecord& r : records) {
      ASSERT_EQ(series.add(r, kPeriod, tiers), Insert::stored);
    }
    series.fold_before(kT0 + 600 * kSecond, kPeriod, bucket);
    EXPECT_TRUE(series.fine().empty());
    ASSERT_GT(series.coarse().size(), 100U);
    for (const Engine engine : {Engine::sm, Engine::memory}) {
      for (const auto& [from, to] : {std::pair{kT0, kT0 + 600 * kSecond},
                                     std::pair{kT0 + 100 * kSecond, kT0 + 200 * kSecond}}) {
        const std::int64_t exact = raw_busy(records, engine, from, to, kPeriod);
        const std::int64_t folded = coarse_busy(series.coarse(), engine, from, to, bucket);
        const auto records_in = static_cast<std::int64_t>(series.coarse().size());
        EXPECT_LE(std::abs(folded - exact), records_in * bucket / 2);
        EXPECT_NEAR(static_cast<double>(folded), static_cast<double>(exact),
                    0.01 * static_cast<double>(exact));
      }
    }
  }
}

TEST(UtilizationSeries, ABucketHoldsItsAveragePeakAndEngines) {
  UtilizationSeries series(1000, 1000);
  const UtilizationTiers tiers{.fine_horizon_us = 10 * kSecond, .bucket_us = kSecond};
  // Four quarter-second periods in the bucket ending at kT0 + 1 s; nothing in the next.
  const std::uint8_t sm[] = {30, 90, 60, 0};
  for (int q = 0; q < 4; ++q) {
    ProcessGpuRecord r = raw(kT0 + (q + 1) * 250'000, sm[q], 10);
    if (q == 2) r.reported = 0x3F;
    series.add(r, 250'000, tiers);
  }
  series.fold_before(kT0 + 3 * kSecond, 250'000, kSecond);
  ASSERT_EQ(series.coarse().size(), 1U);
  const ProcessGpuRecord bucket = series.coarse().front();
  EXPECT_EQ(bucket.time_us, kT0 + kSecond);
  EXPECT_EQ(bucket[Engine::sm], 45);  // (30 + 90 + 60 + 0) / 4
  EXPECT_EQ(bucket[Engine::memory], 10);
  EXPECT_EQ(bucket.peak_sm, 90);
  EXPECT_EQ(bucket.reported, 0x3F);
  EXPECT_EQ(series.folded_until_us(), kT0 + 3 * kSecond);
}

TEST(UtilizationSeries, ARecordAcrossTheFoldIsSplitAtIt) {
  UtilizationSeries series(1000, 1000);
  const UtilizationTiers tiers{.fine_horizon_us = 100 * kSecond, .bucket_us = kSecond};
  // A 1 s driver period that ends half-way through each bucket.
  for (int s = 0; s < 4; ++s) series.add(raw(kT0 + s * kSecond + kSecond / 2, 80), kSecond, tiers);
  series.fold_before(kT0 + 2 * kSecond, kSecond, kSecond);
  // Folded: (−0.5, 0.5] half into the bucket ending at 0, and so on up to 2 s.
  std::vector<std::pair<TimeUs, int>> coarse;
  for (std::size_t i = 0; i < series.coarse().size(); ++i) {
    coarse.emplace_back(series.coarse()[i].time_us - kT0, series.coarse()[i][Engine::sm]);
  }
  EXPECT_EQ(coarse,
            (std::vector<std::pair<TimeUs, int>>{{0, 40}, {kSecond, 80}, {2 * kSecond, 80}}));
  // The record at 2.5 s stays raw and now accounts only for (2, 2.5].
  ASSERT_EQ(series.fine().size(), 2U);
  EXPECT_EQ(series.fine().front().time_us, kT0 + 5 * kSecond / 2);
  EXPECT_EQ(series.folded_until_us(), kT0 + 2 * kSecond);
}

TEST(UtilizationSeries, IdleBucketsAreNotStored) {
  UtilizationSeries series(1000, 1000);
  const UtilizationTiers tiers{.fine_horizon_us = 100 * kSecond, .bucket_us = kSecond};
  series.add(raw(kT0 + kSecond, 50), kSecond, tiers);
  series.add(raw(kT0 + 2 * kSecond, 0), kSecond, tiers);  // a record without use
  series.add(raw(kT0 + 9 * kSecond, 50), kSecond, tiers);
  series.fold_before(kT0 + 10 * kSecond, kSecond, kSecond);
  ASSERT_EQ(series.coarse().size(), 2U);
  EXPECT_EQ(series.coarse()[0].time_us, kT0 + kSecond);
  EXPECT_EQ(series.coarse()[1].time_us, kT0 + 9 * kSecond);
}

TEST(UtilizationSeries, AddingFoldsWhatFallsBehindTheFineHorizon) {
  UtilizationSeries series(1000, 1000);
  const UtilizationTiers tiers{.fine_horizon_us = 10 * kSecond, .bucket_us = kSecond};
  for (TimeUs t = kT0 + kPeriod; t <= kT0 + 30 * kSecond; t += kPeriod) {
    series.add(raw(t, 60), kPeriod, tiers);
  }
  EXPECT_EQ(series.folded_until_us(), kT0 + 19 * kSecond);
  EXPECT_GT(series.fine().front().time_us, kT0 + 19 * kSecond);
  EXPECT_EQ(series.coarse().size(), 19U);
  EXPECT_EQ(series.add(raw(kT0 + 31 * kSecond, 60), kPeriod, tiers), Insert::stored);
  EXPECT_EQ(series.add(raw(kT0 + 31 * kSecond, 60), kPeriod, tiers), Insert::duplicate);
  EXPECT_EQ(series.add(raw(kT0 + 30 * kSecond + 1, 60), kPeriod, tiers), Insert::out_of_order);
  // Once all is folded, a record in the folded past cannot be placed any more.
  series.fold_before(kT0 + 40 * kSecond, kPeriod, kSecond);
  EXPECT_TRUE(series.fine().empty());
  EXPECT_EQ(series.add(raw(kT0 + 35 * kSecond, 60), kPeriod, tiers), Insert::out_of_order);
  EXPECT_EQ(series.add(raw(kT0 + 41 * kSecond, 60), kPeriod, tiers), Insert::stored);
}

TEST(UtilizationSeries, AFullFineTierFoldsEarlyInsteadOfLosingRecords) {
  UtilizationSeries series(8, 1000);  // room for 8 raw records only
  const UtilizationTiers tiers{.fine_horizon_us = 1000 * kSecond, .bucket_us = kSecond};
  std::vector<ProcessGpuRecord> records;
  for (int k = 1; k <= 40; ++k) records.push_back(raw(kT0 + k * 250'000, 40));
  for (const ProcessGpuRecord& r : records) series.add(r, 250'000, tiers);
  EXPECT_LE(series.fine().size(), 8U);
  series.fold_before(kT0 + 10 * kSecond, 250'000, kSecond);
  EXPECT_EQ(coarse_busy(series.coarse(), Engine::sm, kT0, kT0 + 10 * kSecond, kSecond),
            raw_busy(records, Engine::sm, kT0, kT0 + 10 * kSecond, 250'000));
}

TEST(UtilizationSeries, DropsByTheEndOfEachRecordsPeriod) {
  UtilizationSeries series(1000, 1000);
  const UtilizationTiers tiers{.fine_horizon_us = 5 * kSecond, .bucket_us = kSecond};
  for (int s = 1; s <= 10; ++s) series.add(raw(kT0 + s * kSecond, 70), kSecond, tiers);
  ASSERT_EQ(series.coarse().size(), 5U);  // buckets ending at 1..5 s
  series.drop_before(kT0 + 3 * kSecond);
  EXPECT_EQ(series.coarse().front().time_us, kT0 + 3 * kSecond);
  series.drop_before(kT0 + 20 * kSecond);
  EXPECT_TRUE(series.empty());
  EXPECT_EQ(series.allocated_bytes(), 0U);
}

}  // namespace gpumeter::utilization_series_test

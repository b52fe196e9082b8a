// SPDX-License-Identifier: MIT
// The coarse tier's 8-byte records and their media records: bucket numbers at the edges of
// buckets and of their range, lookups by time translated exactly into bucket numbers, times the
// tier cannot number refused rather than wrapped, and media figures stored only when non-zero
// and kept in step with their records.
#include "core/coarse_record.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>

#include "core/fine_gpu_records.h"
#include "core/packed_gpu_records.h"
#include "core/utilization_series.h"

namespace gpumeter::coarse_record_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;  // a whole second
constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kBucket = 5 * kSecond;
constexpr TimeUs kLastBucket = std::numeric_limits<std::uint32_t>::max();
constexpr TimeUs kLastEnd = kLastBucket * kBucket;

ProcessGpuRecord at(TimeUs t, std::uint8_t sm) {
  ProcessGpuRecord record{.time_us = t, .reported = 0x3F, .peak_sm = 99};
  record.percent = {sm, 2, 3, 4, 5, 6};
  return record;
}

// A record without media use.
ProcessGpuRecord compute_only(TimeUs t, std::uint8_t sm) {
  ProcessGpuRecord record{.time_us = t, .reported = 0x3F, .peak_sm = 99};
  record.percent = {sm, 2, 0, 0, 0, 0};
  return record;
}

TEST(PackedGpuRecords, RoundTripEveryFieldWithAndWithoutMediaUse) {
  PackedGpuRecords records(4);
  records.push(7, at(kT0, 42));
  records.push(9, compute_only(kT0 + 1, 43));
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records.media_size(), 1U);
  EXPECT_EQ(records.key(0), 7U);
  const ProcessGpuRecord first = records.figures(0);
  EXPECT_EQ(first.percent, at(kT0, 42).percent);
  EXPECT_EQ(first.reported, 0x3F);
  EXPECT_EQ(first.peak_sm, 99);
  // Without a media record the media engines read idle: reported, and 0, not absent.
  const ProcessGpuRecord second = records.figures(1);
  EXPECT_EQ(second.percent, compute_only(kT0 + 1, 43).percent);
  EXPECT_EQ(second.reported, 0x3F);
}

TEST(PackedGpuRecords, LoweringTheKeysKeepsTheMediaRecordsWithTheirRecords) {
  PackedGpuRecords records(4);
  records.push(100, compute_only(kT0, 1));
  records.push(200, at(kT0, 2));
  records.lower_keys(100);
  EXPECT_EQ(records.key(0), 0U);
  EXPECT_EQ(records.key(1), 100U);
  EXPECT_EQ(records.lower_bound(100), 1U);
  EXPECT_EQ(records.figures(1)[Engine::decoder], 4);
  EXPECT_EQ(records.figures(0)[Engine::decoder], 0);
}

TEST(CoarseGpuRecord, OnlyBucketEndsInRangeHaveNumbers) {
  EXPECT_EQ(bucket_number(kT0, kBucket), kT0 / kBucket);
  EXPECT_FALSE(bucket_number(kT0 - 1, kBucket));  // not a bucket end
  EXPECT_FALSE(bucket_number(kT0 + 1, kBucket));
  EXPECT_EQ(bucket_number(0, kBucket), 0U);
  EXPECT_FALSE(bucket_number(-kBucket, kBucket));  // before the epoch
  EXPECT_EQ(bucket_number(kLastEnd, kBucket), std::numeric_limits<std::uint32_t>::max());
  EXPECT_FALSE(bucket_number(kLastEnd + kBucket, kBucket));  // would wrap to 0
  CoarseGpuRecords records(4);
  EXPECT_FALSE(records.push(at(kLastEnd + kBucket, 1), kBucket));
}

TEST(CoarseGpuRecord, TimesInTheLastNumberedBucketAreInRange) {
  EXPECT_FALSE(in_numbered_bucket(0, kBucket));
  EXPECT_TRUE(in_numbered_bucket(1, kBucket));
  EXPECT_TRUE(in_numbered_bucket(kLastEnd, kBucket));
  EXPECT_FALSE(in_numbered_bucket(kLastEnd + 1, kBucket));
  EXPECT_FALSE(in_numbered_bucket(std::numeric_limits<TimeUs>::max(), kBucket));
}

// Buckets ending at kT0 + 5 s, + 10 s and + 20 s.
CoarseGpuRecords three_buckets() {
  CoarseGpuRecords records(16);
  for (const TimeUs end : {kT0 + kBucket, kT0 + 2 * kBucket, kT0 + 4 * kBucket}) {
    EXPECT_TRUE(records.push(at(end, 10), kBucket));
  }
  return records;
}

TEST(CoarseGpuRecords, LookupsByTimeAtAndAroundABucketEnd) {
  const CoarseGpuRecords records = three_buckets();
  const TimeUs end = kT0 + 2 * kBucket;  // the second record's
  EXPECT_EQ(records.lower_bound(end - 1), 1U);
  EXPECT_EQ(records.lower_bound(end), 1U);
  EXPECT_EQ(records.lower_bound(end + 1), 2U);
  EXPECT_EQ(records.upper_bound(end - 1), 1U);
  EXPECT_EQ(records.upper_bound(end), 2U);
  EXPECT_EQ(records.upper_bound(end + 1), 2U);
  // In the gap of the missing bucket ending at + 15 s, and past the last.
  EXPECT_EQ(records.lower_bound(kT0 + 3 * kBucket), 2U);
  EXPECT_EQ(records.upper_bound(kT0 + 4 * kBucket - 1), 2U);
  EXPECT_EQ(records.upper_bound(kT0 + 4 * kBucket), 3U);
  // Before the epoch and past the numbered range.
  EXPECT_EQ(records.lower_bound(-kBucket), 0U);
  EXPECT_EQ(records.upper_bound(std::numeric_limits<TimeUs>::min()), 0U);
  EXPECT_EQ(records.lower_bound(kLastEnd + 1), 3U);
  EXPECT_EQ(records.upper_bound(std::numeric_limits<TimeUs>::max()), 3U);
}

TEST(CoarseGpuRecords, ReadsBackTheRecordsAsPushed) {
  const CoarseGpuRecords records = three_buckets();
  ASSERT_EQ(records.size(), 3U);
  EXPECT_EQ(records.front().time_us, kT0 + kBucket);
  EXPECT_EQ(records[1].time_us, kT0 + 2 * kBucket);
  EXPECT_EQ(records.back().time_us, kT0 + 4 * kBucket);
  EXPECT_EQ(records[1][Engine::sm], 10);
  EXPECT_EQ(records[1].peak_sm, 99);
  EXPECT_EQ(records[1][Engine::jpeg], 5);
  EXPECT_EQ(records.media_size(), 3U);
  EXPECT_EQ(records.allocated_bytes(), 16 * (sizeof(PackedGpuRecord) + sizeof(PackedMediaRecord)));
}

TEST(CoarseGpuRecords, StoresMediaFiguresOnlyForBucketsThatHaveThem) {
  CoarseGpuRecords records(16);
  EXPECT_TRUE(records.push(compute_only(kT0 + kBucket, 10), kBucket));
  EXPECT_TRUE(records.push(at(kT0 + 2 * kBucket, 20), kBucket));
  EXPECT_TRUE(records.push(compute_only(kT0 + 3 * kBucket, 30), kBucket));
  ASSERT_EQ(records.size(), 3U);
  EXPECT_EQ(records.media_size(), 1U);
  EXPECT_EQ(records[0].percent, compute_only(kT0 + kBucket, 10).percent);
  EXPECT_EQ(records[1].percent, at(kT0 + 2 * kBucket, 20).percent);
  EXPECT_EQ(records[2].percent, compute_only(kT0 + 3 * kBucket, 30).percent);
  EXPECT_EQ(records.allocated_bytes(), 16 * (sizeof(PackedGpuRecord) + sizeof(PackedMediaRecord)));
}

TEST(CoarseGpuRecords, AFullBufferDropsTheOldestMediaRecordWithItsRecord) {
  CoarseGpuRecords records(2);
  EXPECT_TRUE(records.push(at(kT0 + kBucket, 10), kBucket));
  EXPECT_TRUE(records.push(compute_only(kT0 + 2 * kBucket, 20), kBucket));
  EXPECT_TRUE(records.push(compute_only(kT0 + 3 * kBucket, 30), kBucket));
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records.media_size(), 0U);
  EXPECT_EQ(records[0][Engine::encoder], 0);
  EXPECT_TRUE(records.push(at(kT0 + 4 * kBucket, 40), kBucket));
  EXPECT_EQ(records.media_size(), 1U);
  EXPECT_EQ(records.back()[Engine::encoder], 3);
}

TEST(CoarseGpuRecords, RefusesATimeWithoutABucketNumber) {
  CoarseGpuRecords records(16);
  EXPECT_FALSE(records.push(at(kLastEnd + kBucket, 10), kBucket));
  EXPECT_FALSE(records.push(at(kT0 + 1, 10), kBucket));  // not a bucket end
  EXPECT_TRUE(records.empty());
  EXPECT_TRUE(records.push(at(kLastEnd, 10), kBucket));
  EXPECT_EQ(records.back().time_us, kLastEnd);
}

TEST(CoarseGpuRecords, DropsBucketsThatEndBeforeATime) {
  CoarseGpuRecords records = three_buckets();
  records.drop_before(kT0 + 2 * kBucket);  // keeps the bucket ending exactly there
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records.front().time_us, kT0 + 2 * kBucket);
  EXPECT_EQ(records.media_size(), 2U);
  records.drop_before(kT0 + 2 * kBucket + 1);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records.media_size(), 1U);
  EXPECT_EQ(records.front().time_us, kT0 + 4 * kBucket);
  EXPECT_EQ(records.front()[Engine::ofa], 6);
  records.drop_before(std::numeric_limits<TimeUs>::max());
  EXPECT_TRUE(records.empty());
  EXPECT_EQ(records.allocated_bytes(), 0U);
}

TEST(UtilizationSeries, RefusesRecordsWhoseBucketHasNoNumber) {
  UtilizationSeries series(100, 100);
  const UtilizationTiers tiers{.fine_horizon_us = 10 * kSecond, .bucket_us = kBucket};
  EXPECT_EQ(series.add(at(0, 50), kSecond, tiers), Insert::out_of_range);
  EXPECT_EQ(series.add(at(-kSecond, 50), kSecond, tiers), Insert::out_of_range);
  EXPECT_EQ(series.add(at(kLastEnd + 1, 50), kSecond, tiers), Insert::out_of_range);
  EXPECT_TRUE(series.empty());
  // The last numbered bucket still folds: its record keeps its time and figures.
  EXPECT_EQ(series.add(at(kLastEnd - kSecond, 50), kSecond, tiers), Insert::stored);
  EXPECT_EQ(series.add(at(kLastEnd, 50), kSecond, tiers), Insert::stored);
  series.fold_before(kLastEnd, kSecond, kBucket);
  ASSERT_EQ(series.coarse().size(), 1U);
  EXPECT_EQ(series.coarse().front().time_us, kLastEnd);
  EXPECT_EQ(series.coarse().front()[Engine::sm], 20);  // 2 s at 50 % of a 5 s bucket
  EXPECT_TRUE(series.fine().empty());
}

constexpr TimeUs kMaxSpan = FineGpuRecords::kMaxSpanUs;

TEST(FineGpuRecords, KeepsExactTimesAndFindsThem) {
  FineGpuRecords records(16);
  for (const TimeUs t : {kT0 + 166'667, kT0 + 333'334, kT0 + 1'000'001}) {
    EXPECT_TRUE(records.push(at(t, 10)));
  }
  ASSERT_EQ(records.size(), 3U);
  EXPECT_EQ(records[1].time_us, kT0 + 333'334);
  EXPECT_EQ(records[1].percent, at(0, 10).percent);
  EXPECT_EQ(records.lower_bound(kT0 + 333'334), 1U);
  EXPECT_EQ(records.upper_bound(kT0 + 333'334), 2U);
  EXPECT_EQ(records.lower_bound(kT0), 0U);
  EXPECT_EQ(records.upper_bound(std::numeric_limits<TimeUs>::max()), 3U);
  EXPECT_TRUE(records.contains(kT0 + 1'000'001));
  EXPECT_FALSE(records.contains(kT0 + 1'000'000));
  EXPECT_EQ(records.allocated_bytes(), 16 * (sizeof(PackedGpuRecord) + sizeof(PackedMediaRecord)));
}

TEST(FineGpuRecords, MovesItsBaseUpWhenANewRecordLiesBeyondWhat32BitsReach) {
  FineGpuRecords records(16);
  EXPECT_TRUE(records.push(compute_only(kT0, 1)));
  EXPECT_TRUE(records.push(at(kT0 + 60 * kSecond, 2)));
  records.drop_before(kT0 + 1);  // the first goes: the base stays at kT0
  // 71 minutes and more after the base, but within reach of the oldest record kept.
  const TimeUs late = kT0 + kMaxSpan + 10 * kSecond;
  EXPECT_TRUE(records.push(compute_only(late, 3)));
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].time_us, kT0 + 60 * kSecond);
  EXPECT_EQ(records[0][Engine::encoder], 3);  // the media record moved with its record
  EXPECT_EQ(records[1].time_us, late);
  EXPECT_EQ(records[1][Engine::sm], 3);
  EXPECT_EQ(records.lower_bound(late), 1U);
  EXPECT_EQ(records.lower_bound(kT0 + 60 * kSecond), 0U);
}

TEST(FineGpuRecords, RefusesARecordBeyondReachOfTheOldestOne) {
  FineGpuRecords records(16);
  EXPECT_TRUE(records.push(at(kT0, 1)));
  EXPECT_FALSE(records.push(at(kT0 + kMaxSpan + 1, 2)));
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records.back().time_us, kT0);
  EXPECT_TRUE(records.push(at(kT0 + kMaxSpan, 2)));
}

TEST(FineGpuRecords, DropsRecordsBeforeATime) {
  FineGpuRecords records(16);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(records.push(at(kT0 + i * kSecond, 5)));
  records.drop_before(kT0 + kSecond);  // keeps the record exactly there
  EXPECT_EQ(records.front().time_us, kT0 + kSecond);
  EXPECT_EQ(records.media_size(), 3U);
  records.drop_before(kT0 + kMaxSpan + kSecond);  // beyond reach of the base: all of them
  EXPECT_TRUE(records.empty());
  EXPECT_EQ(records.allocated_bytes(), 0U);
  // An empty buffer takes any time: the base starts again.
  EXPECT_TRUE(records.push(at(kT0 + 2 * kMaxSpan, 5)));
  EXPECT_EQ(records.front().time_us, kT0 + 2 * kMaxSpan);
}

TEST(UtilizationSeries, ALongFineHorizonFoldsEarlyRatherThanLoseARecord) {
  // A fine horizon longer than the fine tier can span: the record past its reach still goes in.
  UtilizationSeries series(100, 100);
  const UtilizationTiers tiers{.fine_horizon_us = 2 * kMaxSpan, .bucket_us = kSecond};
  EXPECT_EQ(series.add(at(kT0 + kSecond, 50), kSecond, tiers), Insert::stored);
  EXPECT_EQ(series.add(at(kT0 + 4300 * kSecond, 60), kSecond, tiers),
            Insert::stored);  // > kMaxSpan
  ASSERT_EQ(series.fine().size(), 1U);
  EXPECT_EQ(series.fine().back().time_us, kT0 + 4300 * kSecond);
  ASSERT_EQ(series.coarse().size(), 1U);  // the first record, folded into its bucket
  EXPECT_EQ(series.coarse().front().time_us, kT0 + kSecond);
  EXPECT_EQ(series.coarse().front()[Engine::sm], 50);
}

}  // namespace gpumeter::coarse_record_test

// SPDX-License-Identifier: MIT
// Host samples per process: stored only when they change, thinned past the fine horizon.
#include "core/host_series.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace gpumeter::host_series_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;
constexpr TimeUs kSecond = 1'000'000;
constexpr std::uint64_t kKiB = 1024;
constexpr HostTiers kTiers{.fine_horizon_us = 20 * kSecond, .bucket_us = 5 * kSecond};

HostSample reading(double s, std::int64_t cpu_us, std::uint64_t rss_kib) {
  return {.time_us = kT0 + static_cast<TimeUs>(s * 1e6),
          .cpu_user_us = cpu_us,
          .rss_bytes = rss_kib * kKiB,
          .peak_rss_bytes = rss_kib * kKiB};
}

std::vector<TimeUs> times(const HostSeries& series) {
  std::vector<TimeUs> out;
  const TwoTier<HostRecord> records = series.records();
  for (std::size_t i = 0; i < records.size(); ++i) out.push_back(records[i].time_us - kT0);
  return out;
}

TEST(HostRecord, KeepsResidentMemoryInKibAndAbsenceAsSuch) {
  const HostRecord record = host_record({.time_us = kT0, .rss_bytes = 1000});
  EXPECT_EQ(record.rss_bytes(), 1024U);  // rounded up to a whole KiB
  EXPECT_EQ(record.peak_rss_bytes(), std::nullopt);
  EXPECT_EQ(host_record({.rss_bytes = 3 * kKiB}).rss_bytes(), 3 * kKiB);
  EXPECT_EQ(host_record({.rss_bytes = 1ULL << 60}).rss_bytes(), (0xFFFFFFFEULL) * kKiB);
}

TEST(HostSeries, AnIdleProcessCostsOneRecordAndAChangeEndsItsFlatStretch) {
  HostSeries series(100, 100);
  EXPECT_EQ(series.add(reading(0, 100, 10), kTiers), Insert::stored);
  for (int s = 1; s <= 9; ++s)
    EXPECT_EQ(series.add(reading(s, 100, 10), kTiers), Insert::unchanged);
  EXPECT_EQ(times(series), (std::vector<TimeUs>{0}));
  EXPECT_EQ(series.last_read_us(), kT0 + 9 * kSecond);
  // A change: the last unchanged reading (9 s) is stored too, so that CPU time rose between
  // 9 and 10 s, not over the whole flat stretch.
  EXPECT_EQ(series.add(reading(10, 300, 10), kTiers), Insert::stored);
  EXPECT_EQ(times(series), (std::vector<TimeUs>{0, 9 * kSecond, 10 * kSecond}));
  EXPECT_EQ(series.add(reading(11, 400, 10), kTiers), Insert::stored);
  EXPECT_EQ(times(series), (std::vector<TimeUs>{0, 9 * kSecond, 10 * kSecond, 11 * kSecond}));
  EXPECT_EQ(series.add(reading(11, 500, 10), kTiers), Insert::duplicate);
  EXPECT_EQ(series.add(reading(10.5, 500, 10), kTiers), Insert::out_of_order);
}

TEST(HostSeries, PastTheFineHorizonEachBucketKeepsItsLastReadingAndHighestMemory) {
  HostSeries series(100, 100);
  // CPU rises every second; resident memory peaks at 3 s.
  for (int s = 1; s <= 40; ++s) {
    series.add(reading(s, s * 1000, s == 3 ? 900 : 100 + static_cast<std::uint64_t>(s)), kTiers);
  }
  // Read at 40 s: up to 20 s is thinned, into buckets ending at 5, 10, 15 and 20 s.
  ASSERT_EQ(series.coarse().size(), 4U);
  const HostRecord& first = series.coarse()[0];
  EXPECT_EQ(first.time_us, kT0 + 5 * kSecond);
  EXPECT_EQ(first.cpu_user_us, 5000);
  EXPECT_EQ(first.rss_bytes(), 900 * kKiB);
  EXPECT_EQ(series.coarse()[1].rss_bytes(), 110 * kKiB);
  EXPECT_EQ(series.fine().front().time_us, kT0 + 21 * kSecond);
  series.fold_before(kT0 + 40 * kSecond, kTiers.bucket_us);
  EXPECT_EQ(series.coarse().size(), 8U);
  EXPECT_TRUE(series.fine().empty());
}

TEST(HostSeries, AFlatStretchThatEndedLongAgoIsThinnedInOrder) {
  HostSeries series(100, 100);
  series.add(reading(1, 100, 10), kTiers);
  series.add(reading(2, 200, 10), kTiers);
  series.add(reading(7, 200, 10), kTiers);  // unchanged until 7 s
  series.fold_before(kT0 + 60 * kSecond, kTiers.bucket_us);
  EXPECT_EQ(times(series), (std::vector<TimeUs>{2 * kSecond, 7 * kSecond}));
  EXPECT_EQ(series.add(reading(61, 300, 10), kTiers), Insert::stored);
  EXPECT_EQ(times(series), (std::vector<TimeUs>{2 * kSecond, 7 * kSecond, 61 * kSecond}));
}

TEST(HostSeries, DroppingKeepsTheFiguresStillHeldWhileTheProcessIsRead) {
  HostSeries series(100, 100);
  series.add(reading(0, 100, 10), kTiers);
  series.add(reading(3, 200, 10), kTiers);
  series.add(reading(100, 200, 10), kTiers);
  series.drop_before(kT0 + 50 * kSecond);
  EXPECT_EQ(times(series), (std::vector<TimeUs>{3 * kSecond}));
  series.drop_before(kT0 + 101 * kSecond);  // last read at 100 s
  EXPECT_TRUE(series.empty());
}

}  // namespace gpumeter::host_series_test

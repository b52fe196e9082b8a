// SPDX-License-Identifier: MIT
#include "net/history_buckets.h"

#include <gtest/gtest.h>

namespace gpumeter::net::history_buckets_test {

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kStart = 1'700'000'040 * kSecond;  // a multiple of 60 s

Reading sample(TimeUs t, double value) {
  return Reading{.time_us = t, .min = value, .avg = value, .max = value};
}

TEST(HistoryBuckets, AlignedToTheStepWithNullGaps) {
  HistoryBuckets buckets(kStart + 3 * kSecond, kStart + 30 * kSecond, 10 * kSecond);
  ASSERT_EQ(buckets.size(), 3U);
  buckets.add(sample(kStart + 4 * kSecond, 10));
  buckets.add(sample(kStart + 9 * kSecond, 30));
  buckets.add(sample(kStart + 25 * kSecond, 5));
  const view::Json columns = buckets.columns();
  EXPECT_EQ(columns["time"], (view::Json{1'700'000'040, 1'700'000'050, 1'700'000'060}));
  EXPECT_EQ(columns["avg"], (view::Json{20.0, nullptr, 5.0}));
  EXPECT_EQ(columns["min"], (view::Json{10.0, nullptr, 5.0}));
  EXPECT_EQ(columns["max"], (view::Json{30.0, nullptr, 5.0}));
}

TEST(HistoryBuckets, IgnoresReadingsOutsideTheWindow) {
  HistoryBuckets buckets(kStart, kStart + 10 * kSecond, 10 * kSecond);
  buckets.add(sample(kStart - 1, 99));
  buckets.add(sample(kStart + 10 * kSecond, 99));
  EXPECT_EQ(buckets.columns()["avg"], (view::Json{nullptr}));
}

TEST(HistoryBuckets, AggregatesAreWeightedBySamples) {
  HistoryBuckets buckets(kStart, kStart + 60 * kSecond, 60 * kSecond);
  buckets.add(Reading{
      .time_us = kStart, .min = 0, .avg = 10, .max = 20, .weight = 3, .tier = Tier::minutes});
  buckets.add(Reading{.time_us = kStart + 30 * kSecond,
                      .min = 40,
                      .avg = 50,
                      .max = 90,
                      .weight = 1,
                      .tier = Tier::minutes});
  const view::Json columns = buckets.columns();
  EXPECT_DOUBLE_EQ(columns["avg"][0].get<double>(), 20.0);
  EXPECT_EQ(columns["min"][0], 0.0);
  EXPECT_EQ(columns["max"][0], 90.0);
}

TEST(HistoryBuckets, TheFinestResolutionWinsABucket) {
  HistoryBuckets buckets(kStart, kStart + 120 * kSecond, 60 * kSecond);
  buckets.add(Reading{
      .time_us = kStart, .min = 0, .avg = 50, .max = 100, .weight = 60, .tier = Tier::hours});
  buckets.add(sample(kStart + 5 * kSecond, 7));
  buckets.add(Reading{
      .time_us = kStart, .min = 0, .avg = 50, .max = 100, .weight = 60, .tier = Tier::minutes});
  buckets.add(
      Reading{.time_us = kStart + 60 * kSecond, .avg = 50, .weight = 60, .tier = Tier::hours});
  const view::Json columns = buckets.columns();
  EXPECT_EQ(columns["avg"], (view::Json{7.0, 50.0}));
}

TEST(BucketCount, CountsPartialBuckets) {
  EXPECT_EQ(bucket_count(kStart, kStart + 10 * kSecond, 10 * kSecond), 1);
  EXPECT_EQ(bucket_count(kStart + 1, kStart + 10 * kSecond, 10 * kSecond), 1);
  EXPECT_EQ(bucket_count(kStart + 9 * kSecond, kStart + 11 * kSecond, 10 * kSecond), 2);
  EXPECT_EQ(bucket_count(kStart, kStart, 10 * kSecond), 0);
}

}  // namespace gpumeter::net::history_buckets_test

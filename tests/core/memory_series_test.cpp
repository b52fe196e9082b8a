// SPDX-License-Identifier: MIT
// GPU memory per process: a step function stored only where it changes.
#include "core/memory_series.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace gpumeter::memory_series_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;
constexpr TimeUs kSecond = 1'000'000;

using Stored = std::vector<std::pair<TimeUs, std::uint64_t>>;

Stored stored(const MemorySeries& series) {
  Stored out;
  for (std::size_t i = 0; i < series.records().size(); ++i) {
    out.emplace_back(series.records()[i].time_us - kT0, series.records()[i].used_bytes);
  }
  return out;
}

TEST(MemorySeries, StoresOnlyChangesAndRemembersTheLastReading) {
  MemorySeries series(100);
  EXPECT_EQ(series.add({kT0, 5}), Insert::stored);
  EXPECT_EQ(series.add({kT0 + kSecond, 5}), Insert::unchanged);
  EXPECT_EQ(series.add({kT0 + 2 * kSecond, 7}), Insert::stored);
  EXPECT_EQ(series.add({kT0 + 3 * kSecond, 7}), Insert::unchanged);
  EXPECT_EQ(series.add({kT0 + 3 * kSecond, 9}), Insert::duplicate);
  EXPECT_EQ(series.add({kT0 + 2 * kSecond, 9}), Insert::duplicate);
  EXPECT_EQ(series.add({kT0 + kSecond, 9}), Insert::out_of_order);
  EXPECT_EQ(stored(series), (Stored{{0, 5}, {2 * kSecond, 7}}));
  EXPECT_EQ(series.last_read_us(), kT0 + 3 * kSecond);
}

TEST(MemorySeries, DroppingKeepsTheAmountStillHeld) {
  MemorySeries series(100);
  series.add({kT0, 5});
  series.add({kT0 + 2 * kSecond, 7});
  series.add({kT0 + 9 * kSecond, 7});
  series.drop_before(kT0 + 5 * kSecond);
  EXPECT_EQ(stored(series), (Stored{{2 * kSecond, 7}}));  // 7 bytes are held at 5 s
  series.drop_before(kT0 + 9 * kSecond);
  EXPECT_EQ(stored(series), (Stored{{2 * kSecond, 7}}));
  // Not read since 9 s: nothing vouches for the amount any more.
  series.drop_before(kT0 + 10 * kSecond);
  EXPECT_TRUE(series.empty());
}

TEST(MemorySeries, AZeroAmountAfterTheProcessLeftIsForgotten) {
  MemorySeries series(100);
  series.add({kT0, 5});
  series.add({kT0 + kSecond, 0});  // the process left the list
  series.add({kT0 + 5 * kSecond, 0});
  series.drop_before(kT0 + 2 * kSecond);
  EXPECT_TRUE(series.empty());  // no sample means 0 bytes too
}

}  // namespace gpumeter::memory_series_test

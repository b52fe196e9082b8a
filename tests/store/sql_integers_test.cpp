// SPDX-License-Identifier: MIT
#include "store/sql_integers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>

namespace gpumeter::store::sql_integers_test {

constexpr auto kInt64Max = std::numeric_limits<std::int64_t>::max();

TEST(SqlIntegers, AnAbsentValueStaysNull) {
  EXPECT_EQ(as_int64(std::optional<std::uint64_t>{}), std::nullopt);
  EXPECT_EQ(as_int64(std::optional<std::uint32_t>{}), std::nullopt);
}

TEST(SqlIntegers, ValuesThatFitAreKept) {
  EXPECT_EQ(as_int64(std::optional<std::uint32_t>{4'000'000'000U}), 4'000'000'000);
  EXPECT_EQ(as_int64(std::optional<std::uint64_t>{42}), 42);
  EXPECT_EQ(as_int64(std::optional<std::uint64_t>{static_cast<std::uint64_t>(kInt64Max)}),
            kInt64Max);
  EXPECT_EQ(as_int64(std::optional<int>{-7}), -7);
}

// A counter past INT64_MAX (a driver's garbage, or a wrapped energy counter) is stored as the
// largest value SQLite holds, never as a negative number.
TEST(SqlIntegers, UnsignedCountersPastTheLimitAreClamped) {
  EXPECT_EQ(as_int64(std::optional<std::uint64_t>{static_cast<std::uint64_t>(kInt64Max) + 1}),
            kInt64Max);
  EXPECT_EQ(as_int64(std::optional<std::uint64_t>{std::numeric_limits<std::uint64_t>::max()}),
            kInt64Max);
}

}  // namespace gpumeter::store::sql_integers_test

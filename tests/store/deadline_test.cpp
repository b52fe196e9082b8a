// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <chrono>

#include "store/query_deadline.h"
#include "store/sqlite.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::deadline_test {

// Counts to a trillion: hours of work, unless something stops it.
constexpr std::string_view kEndless =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000000) "
    "SELECT count(*) FROM n";

TEST(Deadline, StopsAQueryThatRunsPastIt) {
  const gpumeter::testing::TempDir dir;
  enable_query_deadlines();
  Store store = testing::open_store(dir.path() / "history.db");
  const QueryDeadline bounded(std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
  const auto counted = store.connection().scalar(kEndless);
  ASSERT_FALSE(counted.has_value());
  EXPECT_EQ(counted.error().code, ErrorCode::io);
  EXPECT_NE(counted.error().message.find("interrupt"), std::string::npos)
      << counted.error().message;
}

TEST(Deadline, GoneItLetsQueriesRun) {
  const gpumeter::testing::TempDir dir;
  enable_query_deadlines();
  Store store = testing::open_store(dir.path() / "history.db");
  {
    const QueryDeadline passed(std::chrono::steady_clock::now() - std::chrono::seconds(1));
    EXPECT_FALSE(store.connection().scalar(kEndless).has_value());
  }
  const auto counted = store.connection().scalar(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) "
      "SELECT count(*) FROM n");
  ASSERT_TRUE(counted.has_value()) << counted.error().message;
  EXPECT_EQ(*counted, 100'000);
}

}  // namespace gpumeter::store::deadline_test

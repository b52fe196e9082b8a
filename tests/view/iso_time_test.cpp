// SPDX-License-Identifier: MIT
#include "view/iso_time.h"

#include <gtest/gtest.h>

#include "support/sample_snapshot.h"

namespace gpumeter::view::iso_time_test {

TEST(Iso8601Utc, ToTheSecondInUtc) {
  EXPECT_EQ(iso8601_utc(cli::testing::kNow), "2024-05-01T12:00:00Z");
  EXPECT_EQ(iso8601_utc(cli::testing::kNow + 999'999), "2024-05-01T12:00:00Z");
  EXPECT_EQ(iso8601_utc(0), "1970-01-01T00:00:00Z");
}

}  // namespace gpumeter::view::iso_time_test

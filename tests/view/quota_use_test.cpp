// SPDX-License-Identifier: MIT
// Quota use over a real history database: periods counted whole from their start up to the
// window's end, days summed into weeks, and the period that speaks for a report row.
//
//  ann  monthly 10h  Oct 31 20:00-24:00 (4 h), Nov 2 00:00-08:00 (8 h), Nov 16 10:00-13:00 (3 h)
//  ben  weekly 5h    Nov 16 00:00-02:00 (2 h), Nov 22 00:00-04:00 (4 h)
//  cal  daily 1h     Nov 17 09:00-11:00 (2 h), Nov 18 09:00-09:30 (0.5 h)
//  dan  unlimited    Nov 16 00:00-24:00 (24 h)
// The window is [Nov 15, Nov 20), UTC; Nov 16 is a Monday.
#include "view/quota_use.h"

#include <gtest/gtest.h>

#include "store/write.h"
#include "support/temp_dir.h"
#include "support/time_zone.h"

namespace gpumeter::view::quota_use_test {

constexpr TimeUs kMinute = 60'000'000;
constexpr TimeUs kHour = 60 * kMinute;
constexpr TimeUs kDay = 24 * kHour;
constexpr TimeUs kNov1 = 1'793'491'200'000'000;  // 2026-11-01T00:00:00Z

TimeUs nov(int day, int hour = 0, int minute = 0) {
  return kNov1 + (day - 1) * kDay + hour * kHour + minute * kMinute;
}

void hold(store::Batch& batch, Pid pid, const char* user, TimeUs from, TimeUs to) {
  const store::ProcessIdentity who{
      .pid = pid, .start_time_us = from, .gpu_uuid = "GPU-0", .user = user};
  for (TimeUs t = from; t < to; t += kMinute) {
    batch.process_intervals.push_back({.process = who,
                                       .begin_us = t,
                                       .end_us = t + kMinute,
                                       .held_seconds = 60,
                                       .sm_busy_seconds = 30,
                                       .peak_memory_bytes = 1 << 20});
  }
}

class QuotaUseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::Batch batch;
    hold(batch, 1, "ann", nov(1) - 4 * kHour, nov(1));
    hold(batch, 2, "ann", nov(2), nov(2, 8));
    hold(batch, 3, "ann", nov(16, 10), nov(16, 13));
    hold(batch, 4, "ben", nov(16), nov(16, 2));
    hold(batch, 5, "ben", nov(22), nov(22, 4));
    hold(batch, 6, "cal", nov(17, 9), nov(17, 11));
    hold(batch, 7, "cal", nov(18, 9), nov(18, 9, 30));
    hold(batch, 8, "dan", nov(16), nov(17));
    auto db = store::Store::open(dir_ / "h.db", {.host = "node1"});
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE(store::write(*db, batch));
    db_.emplace(std::move(*db));
  }

  std::vector<QuotaUse> uses(const char* quota_text) {
    const auto quotas = parse_quota_file(quota_text, "q");
    EXPECT_TRUE(quotas) << quotas.error().message;
    auto found = quota_use(*db_, *quotas, {.since_us = nov(15), .until_us = nov(20)});
    EXPECT_TRUE(found) << found.error().message;
    return found ? *found : std::vector<QuotaUse>{};
  }

  const cli::testing::TimeZone utc_{"UTC0"};
  gpumeter::testing::TempDir dir_;
  std::optional<store::Store> db_;
};

constexpr const char* kQuotas =
    "ann = 10h per month\nben = 5h per week\ncal = 1h per day\ndan = unlimited\n";

TEST_F(QuotaUseTest, EachPeriodFromItsStartUpToTheWindowsEnd) {
  const std::vector<QuotaUse> found = uses(kQuotas);
  ASSERT_EQ(found.size(), 4U);
  // ann: all of November so far (8 + 3 h), though the window holds only 3 h; not October.
  EXPECT_EQ(found[0].user, "ann");
  EXPECT_EQ(found[0].period_label, "2026-11");
  EXPECT_EQ(found[0].period_start_us, nov(1));
  EXPECT_EQ(found[0].period_end_us, nov(1) + 30 * kDay);
  EXPECT_DOUBLE_EQ(found[0].used_gpu_hours, 11);
  EXPECT_TRUE(found[0].over());
  EXPECT_DOUBLE_EQ(found[0].percent(), 110);
  // ben: the week of Monday Nov 16 up to Nov 20, so not the 4 h of Sunday Nov 22.
  EXPECT_EQ(found[1].user, "ben");
  EXPECT_EQ(found[1].period_label, "week of 2026-11-16");
  EXPECT_EQ(found[1].period_start_us, nov(16));
  EXPECT_EQ(found[1].period_end_us, nov(23));
  EXPECT_DOUBLE_EQ(found[1].used_gpu_hours, 2);
  EXPECT_FALSE(found[1].over());
  // cal: day by day.
  EXPECT_EQ(found[2].period_label, "2026-11-17");
  EXPECT_DOUBLE_EQ(found[2].used_gpu_hours, 2);
  EXPECT_TRUE(found[2].over());
  EXPECT_EQ(found[3].period_label, "2026-11-18");
  EXPECT_DOUBLE_EQ(found[3].used_gpu_hours, 0.5);
  EXPECT_FALSE(found[3].over());
}

TEST_F(QuotaUseTest, TheDefaultCoversEveryoneNotListed) {
  const std::vector<QuotaUse> found = uses("default = 20h per week\ncal = unlimited\n");
  ASSERT_EQ(found.size(), 3U);
  EXPECT_EQ(found[0].user, "ann");
  EXPECT_DOUBLE_EQ(found[0].used_gpu_hours, 3);
  EXPECT_EQ(found[1].user, "ben");
  EXPECT_EQ(found[2].user, "dan");
  EXPECT_DOUBLE_EQ(found[2].used_gpu_hours, 24);
  EXPECT_TRUE(found[2].over());
}

TEST_F(QuotaUseTest, WorstUseOfTheRowsPeriod) {
  const std::vector<QuotaUse> found = uses(kQuotas);
  const QuotaUse* window = worst_use(found, "cal", nov(15), nov(20));
  ASSERT_NE(window, nullptr);
  EXPECT_EQ(window->period_label, "2026-11-17");
  const QuotaUse* day = worst_use(found, "cal", nov(18), nov(19));
  ASSERT_NE(day, nullptr);
  EXPECT_EQ(day->period_label, "2026-11-18");
  EXPECT_EQ(worst_use(found, "cal", nov(19), nov(20)), nullptr);
  EXPECT_EQ(worst_use(found, "dan", nov(15), nov(20)), nullptr);
}

}  // namespace gpumeter::view::quota_use_test

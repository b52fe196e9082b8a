// SPDX-License-Identifier: MIT
// SM use the driver cannot report (processes on a GPU in MIG mode) is stored as unknown, and
// every reader keeps it apart from the known part: the ledger, its per-minute and per-hour
// detail, the usage report at both tiers, idle holders and ledger_view. Real SQLite files.
//
//  K  ada pid 1 GPU-A (not MIG)   10:00-11:00  SM 40 %  200 W   known
//  M  ada pid 2 GPU-M (MIG mode)  10:00-12:00  SM ?     (its energy share unknown too)
//  N  bob pid 3 GPU-M (MIG mode)  10:30-10:45  SM ?
#include <gtest/gtest.h>

#include "store/history.h"
#include "store/idle.h"
#include "store/usage.h"
#include "store/write.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::sm_unknown_test {

using gpumeter::testing::TempDir;
using testing::kHour;
using testing::kMinute;
using testing::kT0;
using testing::RawDatabase;

constexpr double kTolerance = 1e-9;
constexpr TimeUs kTen = kT0 + 10 * kHour;

// An interval on a GPU in MIG mode, as the recorder writes it: held, SM use unknown.
ProcessInterval mig_interval(const ProcessIdentity& who, TimeUs begin_us, TimeUs end_us) {
  ProcessInterval interval = testing::interval(who, begin_us, end_us, 0);
  interval.sm_unknown = Unavailable::mig;
  return interval;
}

void per_minute(Batch& batch, TimeUs from, TimeUs to, const auto& make) {
  for (TimeUs t = from; t < to; t += kMinute) batch.process_intervals.push_back(make(t));
}

class SmUnknown : public ::testing::Test {
 protected:
  void SetUp() override {
    const ProcessIdentity known = testing::process(1, "ada", "GPU-A");
    const ProcessIdentity mig = testing::process(2, "ada", "GPU-M", 1);
    const ProcessIdentity other = testing::process(3, "bob", "GPU-M", 1);
    Batch batch;
    per_minute(batch, kTen, kTen + kHour, [&](TimeUs t) {
      return testing::interval(known, t, t + kMinute, 40, 1 << 30, 200);
    });
    per_minute(batch, kTen, kTen + 2 * kHour,
               [&](TimeUs t) { return mig_interval(mig, t, t + kMinute); });
    per_minute(batch, kTen + 30 * kMinute, kTen + 45 * kMinute,
               [&](TimeUs t) { return mig_interval(other, t, t + kMinute); });
    ASSERT_TRUE(write(store, batch));
  }

  std::vector<UsageRow> usage_of(UsageQuery query) {
    auto rows = usage(store, query);
    EXPECT_TRUE(rows) << rows.error().message;
    return rows ? *rows : std::vector<UsageRow>{};
  }

  TempDir dir;
  std::filesystem::path path = dir / "history.db";
  Store store = testing::open_store(path);
};

TEST_F(SmUnknown, TheLedgerCountsTheHeldTimeAsUnknownWithItsReason) {
  const auto rows = ledger(store, {.since_us = kT0, .until_us = kT0 + 24 * kHour});
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 3U);
  const LedgerRow& known = rows->at(0);
  EXPECT_EQ(known.process.pid, 1);
  EXPECT_DOUBLE_EQ(known.sm_unknown_seconds, 0.0);
  EXPECT_FALSE(known.sm_unknown_reason);
  EXPECT_TRUE(known.sm_known());
  EXPECT_NEAR(*known.sm_percent_while_held(), 40.0, kTolerance);
  const LedgerRow& mig = rows->at(1);
  EXPECT_EQ(mig.process.pid, 2);
  EXPECT_NEAR(mig.gpu_seconds, 7200.0, kTolerance);
  EXPECT_NEAR(mig.sm_unknown_seconds, 7200.0, kTolerance);
  EXPECT_EQ(mig.sm_unknown_reason, "mig");
  EXPECT_FALSE(mig.sm_known());
  EXPECT_FALSE(mig.sm_percent_while_held());  // unknown, not 0 %
}

TEST_F(SmUnknown, TheDetailTiersCarryTheUnknownHeldTime) {
  const auto minutes = process_detail(store, Resolution::minutes, kTen, kTen + kMinute);
  ASSERT_TRUE(minutes);
  ASSERT_EQ(minutes->size(), 2U);  // K and M in the first minute
  EXPECT_DOUBLE_EQ(minutes->at(0).sm_unknown_seconds, 0.0);
  EXPECT_NEAR(minutes->at(0).sm_busy_seconds, 24.0, kTolerance);
  EXPECT_NEAR(minutes->at(1).sm_unknown_seconds, 60.0, kTolerance);
  EXPECT_DOUBLE_EQ(minutes->at(1).sm_busy_seconds, 0.0);
  const auto hours = process_detail(store, Resolution::hours, kTen, kTen + 2 * kHour);
  ASSERT_TRUE(hours);
  ASSERT_EQ(hours->size(), 4U);  // 10:00: K, M, N; 11:00: M
  EXPECT_NEAR(hours->at(1).sm_unknown_seconds, 3600.0, kTolerance);
  EXPECT_NEAR(hours->at(2).sm_unknown_seconds, 900.0, kTolerance);
  EXPECT_NEAR(hours->at(3).sm_unknown_seconds, 3600.0, kTolerance);
}

TEST_F(SmUnknown, AGroupWithNothingKnownHasNoSmFiguresAtAll) {
  // bob: only N, 15 minutes on the MIG GPU. From the minute rows (the window's edges are not
  // whole hours) and from the hour rows (whole hours): the same answer.
  for (const auto& [since, until] :
       {std::pair{kTen + 20 * kMinute, kTen + 50 * kMinute}, std::pair{kTen, kTen + 2 * kHour}}) {
    const auto rows = usage_of(
        {.since_us = since, .until_us = until, .group_by = {GroupBy::user}, .user = "bob"});
    ASSERT_EQ(rows.size(), 1U);
    const UsageRow& bob = rows.front();
    EXPECT_NEAR(bob.gpu_hours, 0.25, kTolerance);
    EXPECT_NEAR(bob.sm_unknown_hours, 0.25, kTolerance);
    EXPECT_EQ(bob.sm_unknown_reason, "mig");
    EXPECT_FALSE(bob.sm_busy_hours);
    EXPECT_FALSE(bob.sm_percent_while_held);
    EXPECT_FALSE(bob.energy_kwh);
    EXPECT_EQ(bob.processes, 1);
  }
}

TEST_F(SmUnknown, AMixedGroupGivesTheKnownPartAndSaysHowMuchIsUnknown) {
  // ada: K (1 h at 40 %, 200 W) and M (2 h unknown). The SM percent is K's 40 %, over the one
  // known hour, not 40 % spread over three hours (13.3 %), nor the unknown hours taken as idle.
  const auto rows =
      usage_of({.since_us = kT0, .until_us = kT0 + 24 * kHour, .group_by = {GroupBy::user}});
  ASSERT_EQ(rows.size(), 2U);
  const UsageRow& ada = rows.front();
  EXPECT_EQ(ada.user, "ada");
  EXPECT_NEAR(ada.gpu_hours, 3.0, kTolerance);
  EXPECT_NEAR(ada.sm_unknown_hours, 2.0, kTolerance);
  EXPECT_NEAR(ada.sm_known_hours(), 1.0, kTolerance);
  EXPECT_EQ(ada.sm_unknown_reason, "mig");
  ASSERT_TRUE(ada.sm_busy_hours);
  EXPECT_NEAR(*ada.sm_busy_hours, 0.4, kTolerance);
  ASSERT_TRUE(ada.sm_percent_while_held);
  EXPECT_NEAR(*ada.sm_percent_while_held, 40.0, kTolerance);
  ASSERT_TRUE(ada.energy_kwh);
  EXPECT_NEAR(*ada.energy_kwh, 0.2, kTolerance);  // K's 200 W for an hour; M's share unknown
}

TEST_F(SmUnknown, GroupedByGpuAndProcessEachRowKeepsItsOwnPart) {
  const auto gpus =
      usage_of({.since_us = kT0, .until_us = kT0 + 24 * kHour, .group_by = {GroupBy::gpu}});
  ASSERT_EQ(gpus.size(), 2U);
  EXPECT_EQ(gpus[0].gpu_uuid, "GPU-A");
  EXPECT_DOUBLE_EQ(gpus[0].sm_unknown_hours, 0.0);
  EXPECT_FALSE(gpus[0].sm_unknown_reason);
  EXPECT_NEAR(*gpus[0].sm_percent_while_held, 40.0, kTolerance);
  EXPECT_EQ(gpus[1].gpu_uuid, "GPU-M");
  EXPECT_NEAR(gpus[1].sm_unknown_hours, 2.25, kTolerance);
  EXPECT_FALSE(gpus[1].sm_busy_hours);
  const auto hours = usage_of({.since_us = kT0,
                               .until_us = kT0 + 24 * kHour,
                               .group_by = {GroupBy::process, GroupBy::hour}});
  ASSERT_EQ(hours.size(), 4U);  // K 10:00; M 10:00 and 11:00; N 10:00
  for (const UsageRow& row : hours) {
    EXPECT_EQ(row.sm_busy_hours.has_value(), row.pid == 1) << row.pid.value_or(0);
    EXPECT_EQ(row.sm_unknown_hours > 0, row.pid != 1) << row.pid.value_or(0);
  }
}

TEST_F(SmUnknown, TheTotalMarksItsUnknownPart) {
  const auto rows = usage_of({.since_us = kT0, .until_us = kT0 + 24 * kHour});
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_NEAR(rows[0].gpu_hours, 3.25, kTolerance);
  EXPECT_NEAR(rows[0].sm_unknown_hours, 2.25, kTolerance);
  EXPECT_NEAR(*rows[0].sm_percent_while_held, 40.0, kTolerance);
}

TEST_F(SmUnknown, AProcessWhoseSmUseIsUnknownIsNeverAnIdleHolder) {
  // M held memory for two hours with "0" SM busy seconds stored; unknown is not idle.
  const auto spells = idle_holders(store, {.since_us = kT0,
                                           .until_us = kT0 + 24 * kHour,
                                           .max_sm_percent = 1.0,
                                           .min_duration_us = kHour});
  ASSERT_TRUE(spells);
  EXPECT_TRUE(spells->empty());
}

TEST_F(SmUnknown, LedgerViewShowsNullWhereNothingIsKnown) {
  RawDatabase raw(path);
  const auto rows = raw.rows(
      "SELECT pid, sm_busy_seconds, sm_percent_while_held, energy_joules, sm_unknown_seconds, "
      "sm_unknown_reason FROM ledger_view ORDER BY pid");
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0][0], "1");
  EXPECT_EQ(std::stod(rows[0][1]), 1440.0);
  EXPECT_EQ(std::stod(rows[0][2]), 40.0);
  EXPECT_EQ(std::stod(rows[0][3]), 720000.0);
  EXPECT_EQ(rows[0][5], "NULL");
  EXPECT_EQ(rows[1], (std::vector<std::string>{"2", "NULL", "NULL", "NULL", "7200.0", "mig"}));
}

TEST(SmUnknownRecord, AFigureBesideTheUnknownMarkIsRefused) {
  ProcessInterval interval = mig_interval(testing::process(9, "eve", "GPU-M"), kT0, kT0 + kMinute);
  EXPECT_TRUE(validate(interval));
  interval.sm_busy_seconds = 1;
  const auto refused = validate(interval);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("unknown"), std::string::npos);
  interval.sm_busy_seconds = 0;
  interval.energy_joules = 5;
  EXPECT_FALSE(validate(interval));
}

TEST(SmUnknownRecord, AProcessThatLeavesMigModeKeepsBothParts) {
  // The GPU leaves MIG mode while the process runs on (a reconfiguration): its row then has a
  // known and an unknown part, and its SM percent is the known part's.
  TempDir dir;
  Store store = testing::open_store(dir / "history.db");
  const ProcessIdentity who = testing::process(5, "cy", "GPU-M");
  ASSERT_TRUE(write(store, {.process_intervals = {
                                mig_interval(who, kTen, kTen + kMinute),
                                testing::interval(who, kTen + kMinute, kTen + 2 * kMinute, 50)}}));
  const auto rows = ledger(store, {.since_us = kT0, .until_us = kT0 + 24 * kHour});
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_NEAR(rows->front().sm_unknown_seconds, 60.0, kTolerance);
  EXPECT_EQ(rows->front().sm_unknown_reason, "mig");
  EXPECT_TRUE(rows->front().sm_known());
  EXPECT_NEAR(*rows->front().sm_percent_while_held(), 50.0, kTolerance);
}

}  // namespace gpumeter::store::sm_unknown_test

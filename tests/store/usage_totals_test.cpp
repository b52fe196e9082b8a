// SPDX-License-Identifier: MIT
// The ledger's running totals (schema step 10): kept by triggers in the same transaction as
// every ledger write, per user and per container, seeded from an older database's ledger, and
// read within bounds for /metrics.
#include "store/usage_totals.h"

#include <gtest/gtest.h>

#include "store/write.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::usage_totals_test {

using gpumeter::testing::TempDir;
using testing::kDay;
using testing::kHour;
using testing::kMinute;
using testing::kT0;
using testing::RawDatabase;

ProcessIdentity who(Pid pid, const char* user, std::optional<Container> container = {}) {
  ProcessIdentity process = testing::process(pid, user, "GPU-0", 0);
  process.container = std::move(container);
  return process;
}

// One interval per minute over [from, to), written one minute per transaction as the daemon
// writes them, so that every minute after the first updates the process's ledger row.
void hold(Store& store, const ProcessIdentity& process, TimeUs from, TimeUs to, double sm) {
  for (TimeUs t = from; t < to; t += kMinute) {
    Batch batch;
    batch.process_intervals.push_back(testing::interval(process, t, t + kMinute, sm, 1 << 20, 100));
    ASSERT_TRUE(write(store, batch));
  }
}

const UsageTotal* find(const std::vector<UsageTotal>& rows, const std::string& key) {
  for (const UsageTotal& row : rows) {
    if (row.key == key) return &row;
  }
  return nullptr;
}

class UsageTotalsTest : public ::testing::Test {
 protected:
  TempDir dir_;
  Store store_ = testing::open_store(dir_ / "totals.db");
};

// ada: 30 min in docker:c1 at 50 % + 15 min outside at 100 %; bob: 20 min in slurm:7 at 25 %.
TEST_F(UsageTotalsTest, EveryLedgerWriteAddsToItsUserAndContainer) {
  hold(store_, who(101, "ada", Container{"docker", "c1"}), kT0, kT0 + 30 * kMinute, 50);
  hold(store_, who(102, "ada"), kT0, kT0 + 15 * kMinute, 100);
  hold(store_, who(201, "bob", Container{"slurm", "7"}), kT0, kT0 + 20 * kMinute, 25);
  const auto totals = read_usage_totals(store_, kT0 + kHour);
  ASSERT_TRUE(totals) << totals.error().message;
  ASSERT_EQ(totals->users.size(), 2U);
  const UsageTotal* ada = find(totals->users, "ada");
  ASSERT_NE(ada, nullptr);
  EXPECT_NEAR(ada->gpu_seconds, 45 * 60, 1e-6);
  EXPECT_NEAR(ada->sm_busy_seconds, 15 * 60 + 15 * 60, 1e-6);
  EXPECT_EQ(ada->last_seen_us, kT0 + 30 * kMinute);
  const UsageTotal* bob = find(totals->users, "bob");
  ASSERT_NE(bob, nullptr);
  EXPECT_NEAR(bob->gpu_seconds, 20 * 60, 1e-6);
  EXPECT_NEAR(bob->sm_busy_seconds, 5 * 60, 1e-6);

  ASSERT_EQ(totals->containers.size(), 2U);  // ada's process outside any container is not one
  EXPECT_EQ(totals->containers[0].key, "docker:c1");
  EXPECT_NEAR(totals->containers[0].gpu_seconds, 30 * 60, 1e-6);
  EXPECT_EQ(totals->containers[1].key, "slurm:7");
  EXPECT_NEAR(totals->containers[1].sm_busy_seconds, 5 * 60, 1e-6);

  // They agree with the ledger itself, energy included.
  RawDatabase raw(dir_ / "totals.db");
  EXPECT_NEAR(ada->energy_joules,
              std::stod(raw.text("SELECT SUM(energy_joules) FROM ledger WHERE user = 'ada'")),
              1e-6);
  EXPECT_GT(ada->energy_joules, 0);
}

// The ledger is the history's; the totals only grow, whatever later happens to its rows.
TEST_F(UsageTotalsTest, TheyOnlyGrow) {
  hold(store_, who(101, "ada"), kT0, kT0 + 10 * kMinute, 50);
  {
    RawDatabase raw(dir_ / "totals.db");
    raw.exec("DELETE FROM process_minutes; DELETE FROM process_hours; DELETE FROM ledger");
  }
  hold(store_, who(101, "ada"), kT0 + 10 * kMinute, kT0 + 12 * kMinute, 50);
  const auto totals = read_usage_totals(store_, kT0 + kHour);
  ASSERT_TRUE(totals) << totals.error().message;
  ASSERT_EQ(totals->users.size(), 1U);
  EXPECT_NEAR(totals->users[0].gpu_seconds, 12 * 60, 1e-6);
}

// A user's name learnt after the first minutes: the earlier part stays where it was counted
// (a counter never goes down), the rest counts for the user.
TEST_F(UsageTotalsTest, AUserKnownLaterCountsFromThen) {
  ProcessIdentity unnamed = who(101, "ada");
  unnamed.user.reset();
  hold(store_, unnamed, kT0, kT0 + 2 * kMinute, 50);
  {
    RawDatabase raw(dir_ / "totals.db");
    EXPECT_EQ(raw.text("SELECT COUNT(*) FROM ledger WHERE user IS NULL"), "1");
  }
  hold(store_, who(101, "ada"), kT0 + 2 * kMinute, kT0 + 5 * kMinute, 50);
  const auto totals = read_usage_totals(store_, kT0 + kHour);
  ASSERT_TRUE(totals) << totals.error().message;
  ASSERT_EQ(totals->users.size(), 2U);
  EXPECT_EQ(totals->users[0].key, "");
  EXPECT_NEAR(totals->users[0].gpu_seconds, 2 * 60, 1e-6);
  EXPECT_EQ(totals->users[1].key, "ada");
  EXPECT_NEAR(totals->users[1].gpu_seconds, 3 * 60, 1e-6);
}

// At most `users` users, the most recently seen; containers seen within the age only.
TEST_F(UsageTotalsTest, TheBoundsKeepTheMostRecent) {
  hold(store_, who(1, "old", Container{"slurm", "1"}), kT0, kT0 + kMinute, 10);
  hold(store_, who(2, "mid", Container{"slurm", "2"}), kT0 + kDay, kT0 + kDay + kMinute, 10);
  hold(store_, who(3, "new", Container{"slurm", "3"}), kT0 + 2 * kDay, kT0 + 2 * kDay + kMinute,
       10);
  const auto totals =
      read_usage_totals(store_, kT0 + 2 * kDay + kHour,
                        {.users = 2, .containers = 500, .container_age_us = 25 * kHour + kMinute});
  ASSERT_TRUE(totals) << totals.error().message;
  ASSERT_EQ(totals->users.size(), 2U);
  EXPECT_EQ(totals->users[0].key, "mid");
  EXPECT_EQ(totals->users[1].key, "new");
  ASSERT_EQ(totals->containers.size(), 2U);
  EXPECT_EQ(totals->containers[0].key, "slurm:2");
  EXPECT_EQ(totals->containers[1].key, "slurm:3");
  const auto one = read_usage_totals(store_, kT0 + 2 * kDay + kHour, {.containers = 1});
  ASSERT_TRUE(one);
  ASSERT_EQ(one->containers.size(), 1U);
  EXPECT_EQ(one->containers[0].key, "slurm:3");
}

}  // namespace gpumeter::store::usage_totals_test

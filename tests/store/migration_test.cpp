// Forward migrations, from a database written with schema version 1 (a frozen fixture).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "store/history.h"
#include "store/maintenance.h"
#include "store/raw_database.h"
#include "store/schema.h"
#include "store/support.h"
#include "store/write.h"

namespace gpumeter::store {
namespace {

using testing::kHour;
using testing::kMinute;
using testing::kSecond;
using testing::kT0;
using testing::RawDatabase;
using testing::TempDir;

const std::filesystem::path kFixture =
    std::filesystem::path(GPUMETER_STORE_FIXTURES) / "schema-v1.sql";

// A version-1 database from the fixture, with `extra` SQL run after it.
std::filesystem::path version_1_database(const TempDir& dir, const std::string& extra = "") {
  const auto path = dir / "v1.db";
  {
    RawDatabase raw(path);
    raw.exec(testing::read_bytes(kFixture));
    if (!extra.empty()) raw.exec(extra);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), 1);
  }
  ::chmod(path.c_str(), 0600);
  return path;
}

// Steps may leave gaps (numbers are given out before the steps are written); migrate applies
// every step above the file's version, in order.
TEST(Migration, TheStepsStartAtOneAndRiseStrictly) {
  const auto steps = migrations();
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.front().version, 1);
  for (std::size_t i = 1; i < steps.size(); ++i)
    EXPECT_LT(steps[i - 1].version, steps[i].version) << "step " << i;
  EXPECT_EQ(latest_schema_version(), steps.back().version);
  EXPECT_TRUE(std::ranges::any_of(steps, [](const Migration& step) { return step.version == 7; }))
      << "step 7: GPM figures in the device tiers";
}

TEST(Migration, AVersion1DatabaseIsMigratedWithEverythingKept) {
  TempDir dir;
  const auto path = version_1_database(dir);
  Store store = testing::open_store(path);
  {
    RawDatabase raw(path);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), latest_schema_version());
    EXPECT_EQ(raw.integer("PRAGMA application_id"), kApplicationId);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM tasks"), 0);
  }
  const auto gpus = devices(store);
  ASSERT_TRUE(gpus);
  ASSERT_EQ(gpus->size(), 1U);
  EXPECT_EQ(gpus->front().device.name, "NVIDIA H100 80GB HBM3");
  const auto minutes = device_series(
      store, {.resolution = Resolution::minutes, .since_us = kT0, .until_us = kT0 + kHour});
  ASSERT_TRUE(minutes);
  ASSERT_EQ(minutes->size(), 2U);
  EXPECT_EQ(minutes->at(1).energy_used_joules, 100.0);
}

TEST(Migration, TheMigratedLedgerAndTiersCarryOn) {
  TempDir dir;
  Store store = testing::open_store(version_1_database(dir));
  // The fixture's process: pid 100 of ada, started an hour before kT0, on GPU-a; 120 s held.
  ProcessIdentity trainer = testing::process(100, "ada", "GPU-a");
  trainer.start_time_us = kT0 - kHour;
  DeviceSampleRecord next = testing::sample("GPU-a", kT0 + 2 * kMinute, 50, 1150);
  ASSERT_TRUE(
      write(store, {.device_samples = {next},
                    .process_intervals = {testing::interval(
                        trainer, kT0 + 2 * kMinute, kT0 + 3 * kMinute, 50, 1ULL << 30, 200)}}));
  const auto rows = ledger(store, {.since_us = kT0, .until_us = kT0 + kHour});
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_DOUBLE_EQ(rows->front().gpu_seconds, 180.0);
  EXPECT_DOUBLE_EQ(rows->front().sm_busy_seconds, 90.0);
  EXPECT_DOUBLE_EQ(rows->front().energy_joules, 24000.0 + 12000.0);
  EXPECT_EQ(rows->front().peak_memory_bytes, 2ULL << 30);
  EXPECT_EQ(rows->front().process.container->id, "c1");
  ASSERT_TRUE(downsample(store, kT0 + 3 * kMinute));
  const auto minutes = device_series(
      store, {.resolution = Resolution::minutes, .since_us = kT0, .until_us = kT0 + kHour});
  ASSERT_TRUE(minutes);
  ASSERT_EQ(minutes->size(), 3U);
  // The counter's rise from the fixture's last sample (1100 J) to the new one.
  EXPECT_EQ(minutes->at(2).energy_used_joules, 50.0);
}

TEST(Migration, AFailedStepIsRolledBackAndTheVersionStays) {
  TempDir dir;
  // Something already named like the table version 2 creates: step 2 cannot run.
  const auto path = version_1_database(dir, "CREATE TABLE tasks (unrelated TEXT);");
  const auto store = Store::open(path, {.host = "node1"});
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::io);
  EXPECT_NE(store.error().message.find("schema step 2 failed"), std::string::npos)
      << store.error().message;
  RawDatabase raw(path);
  EXPECT_EQ(raw.integer("PRAGMA user_version"), 1);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'tasks_by_end'"), 0);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM ledger"), 1);
}

TEST(Migration, Step7GivesTheOldRowsNullGpmAndTakesNewFigures) {
  TempDir dir;
  const auto path = version_1_database(dir);
  Store store = testing::open_store(path);
  DeviceSampleRecord next = testing::sample("GPU-a", kT0 + 2 * kMinute, 50, 1150);
  next.gpm_sm_activity_percent = 47.5;
  ASSERT_TRUE(write(store, {.device_samples = {next}}));
  ASSERT_TRUE(downsample(store, kT0 + 3 * kMinute));
  const auto minutes = device_series(
      store, {.resolution = Resolution::minutes, .since_us = kT0, .until_us = kT0 + kHour});
  ASSERT_TRUE(minutes);
  ASSERT_EQ(minutes->size(), 3U);
  EXPECT_FALSE(minutes->at(0).gpm_sm_activity_percent.avg);  // written before step 7
  EXPECT_EQ(minutes->at(2).gpm_sm_activity_percent, (GaugeStats{47.5, 47.5, 47.5}));
  RawDatabase raw(path);
  EXPECT_EQ(
      raw.integer("SELECT count(*) FROM device_samples WHERE gpm_sm_activity_percent IS NULL"),
      raw.integer("SELECT count(*) FROM device_samples") - 1);
}

}  // namespace
}  // namespace gpumeter::store

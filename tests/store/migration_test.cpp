// SPDX-License-Identifier: MIT
// Forward migrations, from a database written with schema version 1 (a frozen fixture).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "store/history.h"
#include "store/maintenance.h"
#include "store/mig_memory.h"
#include "store/schema.h"
#include "store/write.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::migration_test {

using gpumeter::testing::TempDir;
using testing::kHour;
using testing::kMinute;
using testing::kSecond;
using testing::kT0;
using testing::RawDatabase;

const std::filesystem::path kFixture =
    std::filesystem::path(GPUMETER_STORE_FIXTURES) / "schema-v1.sql";

// A version-1 database from the fixture, with `extra` SQL run after it.
std::filesystem::path version_1_database(const TempDir& dir, const std::string& extra = "") {
  const auto path = dir / "v1.db";
  {
    RawDatabase raw(path);
    raw.exec(gpumeter::testing::read_bytes(kFixture));
    if (!extra.empty()) raw.exec(extra);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), 1);
  }
  ::chmod(path.c_str(), 0600);
  return path;
}

// Steps start at 1 and rise; numbers may be skipped (migrate applies every step above the
// file's version, in order).
TEST(Migration, TheStepsStartAtOneAndRise) {
  const auto steps = migrations();
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.front().version, 1);
  for (std::size_t i = 1; i < steps.size(); ++i)
    EXPECT_LT(steps[i - 1].version, steps[i].version) << "step " << i;
  EXPECT_EQ(latest_schema_version(), steps.back().version);
  EXPECT_EQ(latest_schema_version(), 10);  // running totals of the ledger
  EXPECT_TRUE(std::ranges::any_of(steps, [](const Migration& step) { return step.version == 7; }))
      << "step 7: GPM figures in the device tiers";
  EXPECT_TRUE(std::ranges::any_of(steps, [](const Migration& step) { return step.version == 8; }))
      << "step 8: ledger_view with the accounting columns";
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
  // Written before unknown SM use was recorded: all of it known.
  EXPECT_DOUBLE_EQ(rows->front().sm_unknown_seconds, 0.0);
  EXPECT_FALSE(rows->front().sm_unknown_reason);
  EXPECT_NEAR(*rows->front().sm_percent_while_held(), 50.0, 1e-9);
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

// Step 8 makes ledger_view again with the accounting columns of step 3 (and step 5's); the
// fixture's row shows through it with its accounting figures, and the columns of version 1 stay in
// place.
TEST(Migration, LedgerViewGainsTheAccountingColumns) {
  TempDir dir;
  const auto path = version_1_database(dir);
  testing::open_store(path);
  RawDatabase raw(path);
  std::vector<std::string> columns;
  for (const auto& row : raw.rows("SELECT name FROM pragma_table_info('ledger_view')"))
    columns.push_back(row.front());
  const std::vector<std::string> expected{"id",
                                          "host",
                                          "pid",
                                          "start_time_us",
                                          "gpu_uuid",
                                          "gpu_index",
                                          "uid",
                                          "user",
                                          "command",
                                          "container_runtime",
                                          "container_id",
                                          "first_seen_us",
                                          "last_seen_us",
                                          "gpu_seconds",
                                          "sm_busy_seconds",
                                          "sm_percent_while_held",
                                          "peak_memory_bytes",
                                          "energy_joules",
                                          "final",
                                          "sm_unknown_seconds",
                                          "sm_unknown_reason",
                                          "figures_source",
                                          "accounting_gpu_percent",
                                          "accounting_memory_percent",
                                          "accounting_max_memory_bytes",
                                          "accounting_time_ms"};
  EXPECT_EQ(columns, expected);
  EXPECT_EQ(raw.text("SELECT figures_source FROM ledger_view WHERE pid = 100"), "sampler");
  EXPECT_EQ(raw.text("SELECT accounting_time_ms FROM ledger_view WHERE pid = 100"), "NULL");
  raw.exec(
      "UPDATE ledger SET accounting_gpu_percent = 60, accounting_memory_percent = 40, "
      "accounting_max_memory_bytes = 1024, accounting_time_ms = 5000 WHERE pid = 100");
  EXPECT_EQ(
      raw.rows("SELECT host, gpu_uuid, accounting_gpu_percent, accounting_memory_percent, "
               "accounting_max_memory_bytes, accounting_time_ms FROM ledger_view "
               "WHERE pid = 100"),
      (std::vector<std::vector<std::string>>{{"node1", "GPU-a", "60.0", "40.0", "1024", "5000"}}));
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

// A version-8 database (the fixture taken through steps 2 to 8 by their own SQL) holding one
// minute and one hour of a MIG device's memory, written as version 8 wrote them.
std::filesystem::path version_8_database_with_mig_memory(const TempDir& dir) {
  const auto path = version_1_database(dir);
  RawDatabase raw(path);
  for (const Migration& step : migrations()) {
    if (step.version < 2 || step.version > 8) continue;
    raw.exec(std::string(step.sql));
  }
  raw.exec("PRAGMA user_version = 8");
  for (const std::string table : {"mig_memory_minutes", "mig_memory_hours"}) {
    raw.exec("INSERT INTO " + table +
             " (bucket_us, device_id, mig_uuid, gpu_instance_id, compute_instance_id, profile, "
             "samples, memory_used_bytes_min, memory_used_bytes_sum, memory_used_bytes_max) "
             "VALUES (" +
             std::to_string(kT0) + ", 1, 'MIG-a', 7, 0, '1g.10gb', 2, 10, 30, 20)");
  }
  return path;
}

// Step 9 adds the GPM figures of MIG devices to their minutes and hours: the rows written
// before it have none (count 0, NULL figures, never 0), and a reading after it counts in the
// same minute without its memory figures changing.
TEST(Migration, Step9GivesTheOldMigRowsNoGpmAndTakesNewFigures) {
  TempDir dir;
  const auto path = version_8_database_with_mig_memory(dir);
  Store store = testing::open_store(path);
  {
    RawDatabase raw(path);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), latest_schema_version());
    EXPECT_EQ(raw.rows("SELECT gpm_sm_activity_percent_samples, gpm_sm_activity_percent_min, "
                       "gpm_sm_activity_percent_sum, gpm_nvlink_rx_bytes_per_second_max "
                       "FROM mig_memory_hours"),
              (std::vector<std::vector<std::string>>{{"0", "NULL", "NULL", "NULL"}}));
  }
  const auto before = mig_memory_series(
      store, {.resolution = Resolution::minutes, .since_us = kT0, .until_us = kT0 + kHour});
  ASSERT_TRUE(before) << before.error().message;
  ASSERT_EQ(before->size(), 1U);
  EXPECT_EQ(before->front().memory_used_bytes, (GaugeStats{10.0, 15.0, 20.0}));
  EXPECT_EQ(before->front().gpm_samples[0], 0);
  EXPECT_FALSE(before->front().gpm[0].avg);

  MigMemoryRecord next{.gpu_uuid = "GPU-a",
                       .mig_uuid = "MIG-a",
                       .gpu_instance_id = 7,
                       .profile = "1g.10gb",
                       .time_us = kT0 + 30 * kSecond,
                       .memory_used_bytes = 15};
  next.gpm[0] = 42.5;
  ASSERT_TRUE(write(store, {.mig_memory = {next}}));
  const auto after = mig_memory_series(
      store, {.resolution = Resolution::minutes, .since_us = kT0, .until_us = kT0 + kHour});
  ASSERT_TRUE(after) << after.error().message;
  ASSERT_EQ(after->size(), 1U);
  EXPECT_EQ(after->front().samples, 3);
  EXPECT_EQ(after->front().memory_used_bytes, (GaugeStats{10.0, 15.0, 20.0}));
  EXPECT_EQ(after->front().gpm_samples[0], 1);
  EXPECT_EQ(after->front().gpm[0], (GaugeStats{42.5, 42.5, 42.5}));  // the old readings: none
  EXPECT_EQ(after->front().gpm_samples[1], 0);
  EXPECT_FALSE(after->front().gpm[1].avg);
}

// Step 10 seeds the running totals from the ledger the database already holds (the fixture's
// one process: ada in docker:c1, 120 s held, 60 s busy, 24 kJ), and later writes add to them.
TEST(Migration, Step10SeedsTheTotalsFromTheLedger) {
  TempDir dir;
  const auto path = version_1_database(dir);
  Store store = testing::open_store(path);
  {
    RawDatabase raw(path);
    EXPECT_EQ(
        raw.rows("SELECT user, container, gpu_seconds, sm_busy_seconds, energy_joules "
                 "FROM usage_totals"),
        (std::vector<std::vector<std::string>>{{"ada", "docker:c1", "120.0", "60.0", "24000.0"}}));
  }
  ProcessIdentity ada = testing::process(100, "ada", "GPU-a");
  ada.start_time_us = kT0 - kHour;
  ada.container = Container{"docker", "c1"};
  ASSERT_TRUE(write(store, {.process_intervals = {testing::interval(ada, kT0 + 2 * kMinute,
                                                                    kT0 + 3 * kMinute, 50)}}));
  RawDatabase raw(path);
  EXPECT_EQ(raw.text("SELECT gpu_seconds FROM usage_totals WHERE user = 'ada'"), "180.0");
}

}  // namespace gpumeter::store::migration_test

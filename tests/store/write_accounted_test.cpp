// SPDX-License-Identifier: MIT
// Accounting records into the ledger: a process the sampler saw keeps its sampled figures and
// gains the driver's; one it never saw gets a row of the driver's figures alone; writing the
// same record again changes nothing; a record is never counted twice.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/accounted.h"
#include "store/write.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::write_accounted_test {

using gpumeter::testing::TempDir;
using testing::interval;
using testing::kSecond;
using testing::kT0;
using testing::process;
using testing::RawDatabase;

constexpr std::uint64_t kGiB = 1ULL << 30;

AccountedProcess accounted(Pid pid, TimeUs start_us, std::uint64_t time_ms, double gpu_percent,
                           std::uint64_t max_memory) {
  return AccountedProcess{.gpu_uuid = "GPU-a",
                          .gpu_index = 0,
                          .pid = pid,
                          .start_time_us = start_us,
                          .time_ms = time_ms,
                          .gpu_percent = gpu_percent,
                          .memory_percent = 12,
                          .max_memory_bytes = max_memory};
}

// (figures_source, gpu_seconds, sm_busy_seconds, peak, final, accounting_gpu_percent,
// accounting_time_ms) of every row of a pid.
std::vector<std::vector<std::string>> rows_of(RawDatabase& raw, Pid pid) {
  return raw.rows(
      fmt::format("SELECT figures_source, gpu_seconds, sm_busy_seconds, peak_memory_bytes, final, "
                  "accounting_gpu_percent, accounting_time_ms FROM ledger WHERE pid = {}",
                  pid));
}

TEST(WriteAccounted, AProcessTheSamplerNeverSawGetsARowOfTheDriversFigures) {
  TempDir dir;
  Store store = testing::open_store(dir / "a.db");
  // 400 ms at a lifetime 90 %.
  const AccountedProcess brief = accounted(7, kT0 + 3 * kSecond, 400, 90, 3 * kGiB);
  ASSERT_TRUE(write(store, {.accounted = {brief}}));
  ASSERT_TRUE(write(store, {.accounted = {brief}}));  // a restarted daemon sees it again
  RawDatabase raw(dir / "a.db");
  const auto rows = rows_of(raw, 7);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"accounting", "0.4", "0.36", "3221225472", "1",
                                               "90.0", "400"}));
  EXPECT_EQ(raw.integer("SELECT first_seen_us FROM ledger WHERE pid = 7"), kT0 + 3 * kSecond);
  EXPECT_EQ(raw.integer("SELECT last_seen_us FROM ledger WHERE pid = 7"),
            kT0 + 3 * kSecond + 400'000);
  // Its minute and hour count in reports, as a sampled process's do.
  EXPECT_EQ(raw.text("SELECT held_seconds FROM process_minutes"), "0.4");
  EXPECT_EQ(raw.text("SELECT sm_busy_seconds FROM process_hours"), "0.36");
}

TEST(WriteAccounted, AProcessTheSamplerSawKeepsItsSampledFiguresAndGainsTheDrivers) {
  TempDir dir;
  Store store = testing::open_store(dir / "a.db");
  const ProcessIdentity seen = process(100, "ada", "GPU-a");
  // The driver's start time lies 1.5 s from the host's, its peak above the sampled one.
  const AccountedProcess record =
      accounted(100, seen.start_time_us + 1'500'000, 60'000, 35, 5 * kGiB);
  ASSERT_TRUE(
      write(store, {.process_intervals = {interval(seen, kT0, kT0 + 60 * kSecond, 50, 2 * kGiB)},
                    .accounted = {record}}));
  ASSERT_TRUE(write(store, {.accounted = {record}}));
  RawDatabase raw(dir / "a.db");
  const auto rows = rows_of(raw, 100);
  ASSERT_EQ(rows.size(), 1U) << "never counted twice";
  EXPECT_EQ(rows[0], (std::vector<std::string>{"sampler", "60.0", "30.0", "5368709120", "1", "35.0",
                                               "60000"}));
}

TEST(WriteAccounted, ARowWithAnUnknownStartTimeSeenDuringTheProcessLifeIsTheSameProcess) {
  TempDir dir;
  Store store = testing::open_store(dir / "a.db");
  ProcessIdentity unknown_start = process(200, "bo", "GPU-a");
  unknown_start.start_time_us = 0;
  const AccountedProcess record = accounted(200, kT0 - 20 * kSecond, 30'000, 80, kGiB);
  ASSERT_TRUE(write(store, {.process_intervals = {interval(unknown_start, kT0, kT0 + kSecond, 80)},
                            .accounted = {record}}));
  RawDatabase raw(dir / "a.db");
  ASSERT_EQ(rows_of(raw, 200).size(), 1U);
  EXPECT_EQ(rows_of(raw, 200)[0][0], "sampler");
}

TEST(WriteAccounted, AReusedPidWithAnotherStartTimeIsAnotherProcess) {
  TempDir dir;
  Store store = testing::open_store(dir / "a.db");
  const ProcessIdentity earlier = process(300, "cy", "GPU-a");
  const AccountedProcess later =
      accounted(300, earlier.start_time_us + 3600 * kSecond, 1000, 10, kGiB);
  ASSERT_TRUE(write(store, {.process_intervals = {interval(earlier, kT0, kT0 + kSecond, 80)},
                            .accounted = {later}}));
  RawDatabase raw(dir / "a.db");
  EXPECT_EQ(rows_of(raw, 300).size(), 2U);
}

TEST(WriteAccounted, ABadPercentageIsRefused) {
  EXPECT_FALSE(validate(accounted(1, kT0, 10, 101, kGiB)));
  AccountedProcess no_gpu = accounted(1, kT0, 10, 50, kGiB);
  no_gpu.gpu_uuid.clear();
  EXPECT_FALSE(validate(no_gpu));
  EXPECT_TRUE(validate(accounted(1, kT0, 10, 50, kGiB)));
}

}  // namespace gpumeter::store::write_accounted_test

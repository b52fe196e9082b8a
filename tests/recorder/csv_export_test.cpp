// SPDX-License-Identifier: MIT
// The CSV rows of `gpumeter export csv`, from per-minute detail and ledger rows.
#include "recorder/csv_export.h"

#include <gtest/gtest.h>

namespace gpumeter::recorder::csv_export_test {

constexpr TimeUs kMinute = 60'000'000;
constexpr TimeUs kT0 = 1'767'225'600'000'000;  // 2026-01-01T00:00:00Z

store::LedgerRow ledger_row(std::int64_t id, Pid pid, std::optional<std::string> user,
                            std::uint32_t gpu) {
  store::LedgerRow row{.id = id};
  row.process.pid = pid;
  row.process.start_time_us = kT0 - 1000;
  row.process.user = std::move(user);
  row.process.uid = 1000 + pid;
  row.process.gpu_index = gpu;
  return row;
}

TEST(CsvExport, MinutesSumIntoTheInterval) {
  const std::map<std::int64_t, store::LedgerRow> ledger{{1, ledger_row(1, 10, "alice", 0)},
                                                        {2, ledger_row(2, 20, std::nullopt, 3)}};
  const std::vector<store::ProcessDetailRow> detail{
      {.ledger_id = 1, .bucket_us = kT0, .held_seconds = 60, .sm_busy_seconds = 30},
      {.ledger_id = 2, .bucket_us = kT0, .held_seconds = 60, .sm_busy_seconds = 0},
      {.ledger_id = 1, .bucket_us = kT0 + kMinute, .held_seconds = 60, .sm_busy_seconds = 60},
      {.ledger_id = 1, .bucket_us = kT0 + 2 * kMinute, .held_seconds = 30, .sm_busy_seconds = 6},
      {.ledger_id = 9, .bucket_us = kT0, .held_seconds = 60, .sm_busy_seconds = 60},  // no row
  };
  const std::vector<CsvRow> per_minute = csv_rows(detail, ledger, kMinute);
  ASSERT_EQ(per_minute.size(), 4U);
  EXPECT_EQ(
      per_minute[0],
      (CsvRow{.timestamp_us = kT0, .user = "alice", .pid = 10, .gpu = 0, .usage_percent = 50}));
  EXPECT_EQ(per_minute[1],
            (CsvRow{.timestamp_us = kT0, .user = "1020", .pid = 20, .gpu = 3, .usage_percent = 0}));
  EXPECT_EQ(per_minute[2].usage_percent, 100);
  EXPECT_EQ(per_minute[3].usage_percent, 10);
  const std::vector<CsvRow> per_five = csv_rows(detail, ledger, 5 * kMinute);
  ASSERT_EQ(per_five.size(), 2U);
  EXPECT_EQ(per_five[0].usage_percent, 32);  // 96 busy-seconds of 300
  EXPECT_EQ(per_five[1].usage_percent, 0);
}

}  // namespace gpumeter::recorder::csv_export_test

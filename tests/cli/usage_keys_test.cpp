// SPDX-License-Identifier: MIT
#include "cli/usage_keys.h"

#include <gtest/gtest.h>

#include "support/time_zone.h"

namespace gpumeter::cli::usage_keys_test {

using store::GroupBy;

constexpr TimeUs kNov1 = 1'793'491'200'000'000;  // 2026-11-01T00:00:00Z

store::UsageRow every_key() {
  store::UsageRow row{.host = "node1",
                      .user = "",
                      .gpu_uuid = "GPU-7",
                      .gpu_index = 7,
                      .pid = 4242,
                      .process_start_time_us = kNov1 + 90'000'000,
                      .command = "python /very/long/path/to/a/training/script.py --epochs 100",
                      .container = "",
                      .period = "2026-11-01T13",
                      .period_start_us = kNov1 + 13 * 3'600'000'000LL};
  return row;
}

const std::vector<GroupBy> kAll{GroupBy::host,    GroupBy::user,      GroupBy::gpu,
                                GroupBy::process, GroupBy::container, GroupBy::hour};

TEST(UsageKeys, TableColumnsAndCellsForAPerson) {
  const testing::TimeZone utc("UTC0");
  std::vector<std::string> headers;
  for (const KeyColumn& column : table_key_columns(kAll)) headers.push_back(column.header);
  EXPECT_EQ(headers, (std::vector<std::string>{"HOST", "USER", "GPU", "PID", "STARTED", "COMMAND",
                                               "CONTAINER", "HOUR"}));
  EXPECT_EQ(table_key_cells(every_key(), kAll),
            (std::vector<std::string>{"node1", "?", "7", "4242", "2026-11-01 00:01",
                                      "python /very/long/path/to/a/training/sc…", "-",
                                      "2026-11-01 13:00"}));
}

TEST(UsageKeys, CsvColumnsAndCellsForScripts) {
  std::vector<std::string> names;
  for (const KeyColumn& column : csv_key_columns(kAll)) names.push_back(column.csv_name);
  EXPECT_EQ(names, (std::vector<std::string>{"host", "user", "gpu_index", "gpu_uuid", "pid",
                                             "process_start", "command", "container", "period",
                                             "period_start"}));
  EXPECT_EQ(
      csv_key_cells(every_key(), kAll),
      (std::vector<std::string>{"node1", "", "7", "GPU-7", "4242", "2026-11-01T00:01:30Z",
                                every_key().command, "", "2026-11-01T13", "2026-11-01T13:00:00Z"}));
}

TEST(Cut, CountsCodePoints) {
  EXPECT_EQ(cut("short", 10), "short");
  EXPECT_EQ(cut("exactly10!", 10), "exactly10!");
  EXPECT_EQ(cut("eleven char", 10), "eleven ch…");
  EXPECT_EQ(cut("日本語のコマンド", 4), "日本語…");
}

}  // namespace gpumeter::cli::usage_keys_test

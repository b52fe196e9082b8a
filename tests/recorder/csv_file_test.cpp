// SPDX-License-Identifier: MIT
// Appending to the daily CSV files: one file per local date, the header once, whole lines only,
// a partial last line repaired, symbolic links refused.
#include "recorder/csv_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // setenv, unsetenv: POSIX

#include <ctime>
#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace gpumeter::recorder::csv_file_test {

using gpumeter::testing::read_bytes;
using gpumeter::testing::TempDir;

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kT0 = 1'767'225'600 * kSecond;  // 2026-01-01T00:00:00Z

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Sets TZ for one test.
class Zone {
 public:
  explicit Zone(const char* tz) {
    setenv("TZ", tz, 1);
    tzset();
  }
  ~Zone() {
    unsetenv("TZ");
    tzset();
  }
  Zone(const Zone&) = delete;
  Zone& operator=(const Zone&) = delete;
};

CsvRow row(TimeUs t, Pid pid, int percent) {
  return {.timestamp_us = t, .user = "alice", .pid = pid, .gpu = 1, .usage_percent = percent};
}

TEST(DailyCsv, ANewFileGetsTheHeaderOnceAndRowsAppend) {
  const Zone utc("UTC0");
  TempDir dir;
  const std::vector<CsvRow> first{row(kT0, 10, 50), row(kT0 + 60 * kSecond, 10, 40)};
  CsvAppend appended = append_daily_csv(dir.path() / "csv", first, 0640);
  EXPECT_FALSE(appended.error);
  EXPECT_TRUE(appended.unwritten.empty());
  const std::vector<CsvRow> second{row(kT0 + 120 * kSecond, 11, 7)};
  appended = append_daily_csv(dir.path() / "csv", second, 0640);
  EXPECT_FALSE(appended.error);
  EXPECT_EQ(read_bytes(dir.path() / "csv" / "2026-01-01.csv"),
            "Timestamp,User,PID,GPU Number,GPU Usage\n"
            "1767225600,alice,10,1,50\n"
            "1767225660,alice,10,1,40\n"
            "1767225720,alice,11,1,7\n");
  EXPECT_EQ(std::filesystem::status(dir.path() / "csv" / "2026-01-01.csv").permissions() &
                std::filesystem::perms::others_all,
            std::filesystem::perms::none);
}

TEST(DailyCsv, RowsGoToTheFileOfTheirLocalDate) {
  TempDir dir;
  const std::vector<CsvRow> rows{row(kT0 - kSecond, 1, 1), row(kT0, 2, 2)};
  {
    const Zone utc("UTC0");
    EXPECT_EQ(local_date(kT0 - kSecond), "2025-12-31");
    EXPECT_FALSE(append_daily_csv(dir.path() / "utc", rows, 0600).error);
  }
  {
    const Zone india("IST-5:30");  // POSIX writes the offset west of UTC
    EXPECT_EQ(local_date(kT0 - kSecond), "2026-01-01");
    EXPECT_FALSE(append_daily_csv(dir.path() / "india", rows, 0600).error);
  }
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "utc" / "2025-12-31.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "utc" / "2026-01-01.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "india" / "2025-12-31.csv"));
  EXPECT_EQ(read_bytes(dir.path() / "india" / "2026-01-01.csv"),
            "Timestamp,User,PID,GPU Number,GPU Usage\n"
            "1767225599,alice,1,1,1\n"
            "1767225600,alice,2,1,2\n");
}

TEST(DailyCsv, APartialLastLineIsRemovedBeforeAppending) {
  const Zone utc("UTC0");
  TempDir dir;
  const auto file = dir.path() / "2026-01-01.csv";
  write_bytes(file, "Timestamp,User,PID,GPU Number,GPU Usage\n1767225600,alice,10,1,50\n17672256");
  const std::vector<CsvRow> rows{row(kT0 + 60 * kSecond, 10, 40)};
  const CsvAppend appended = append_daily_csv(dir.path(), rows, 0640);
  EXPECT_FALSE(appended.error);
  EXPECT_EQ(appended.partial_lines_removed, 1U);
  EXPECT_EQ(read_bytes(file),
            "Timestamp,User,PID,GPU Number,GPU Usage\n"
            "1767225600,alice,10,1,50\n"
            "1767225660,alice,10,1,40\n");
}

TEST(DailyCsv, AFileHoldingOnlyAPartialHeaderStartsAgain) {
  const Zone utc("UTC0");
  TempDir dir;
  const auto file = dir.path() / "2026-01-01.csv";
  write_bytes(file, "Timestamp,Us");
  const std::vector<CsvRow> rows{row(kT0, 10, 40)};
  EXPECT_EQ(append_daily_csv(dir.path(), rows, 0640).partial_lines_removed, 1U);
  EXPECT_EQ(read_bytes(file),
            "Timestamp,User,PID,GPU Number,GPU Usage\n1767225600,alice,10,1,40\n");
}

TEST(DailyCsv, ASymbolicLinkIsRefusedAndItsTargetUntouched) {
  const Zone utc("UTC0");
  TempDir dir;
  write_bytes(dir.path() / "target", "precious\n");
  std::filesystem::create_directory(dir.path() / "csv");
  std::filesystem::create_symlink(dir.path() / "target", dir.path() / "csv" / "2026-01-01.csv");
  const std::vector<CsvRow> rows{row(kT0, 10, 40), row(kT0 + kSecond, 11, 41)};
  const CsvAppend appended = append_daily_csv(dir.path() / "csv", rows, 0640);
  ASSERT_TRUE(appended.error);
  EXPECT_EQ(appended.error->code, ErrorCode::io);
  EXPECT_NE(appended.error->message.find("2026-01-01.csv"), std::string::npos)
      << appended.error->message;
  EXPECT_EQ(appended.unwritten, rows);
  EXPECT_EQ(read_bytes(dir.path() / "target"), "precious\n");
}

TEST(DailyCsv, RowsThatCannotBeWrittenAreHandedBack) {
  const Zone utc("UTC0");
  TempDir dir;
  write_bytes(dir.path() / "not-a-directory", "");
  const std::vector<CsvRow> rows{row(kT0 - kSecond, 1, 1), row(kT0, 2, 2)};
  const CsvAppend appended = append_daily_csv(dir.path() / "not-a-directory", rows, 0640);
  ASSERT_TRUE(appended.error);
  EXPECT_EQ(appended.unwritten, rows);
}

}  // namespace gpumeter::recorder::csv_file_test

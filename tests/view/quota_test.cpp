// SPDX-License-Identifier: MIT
#include "view/quota.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace gpumeter::view::quota_test {

constexpr const char* kExample = R"(# GPU-hours per user
default = 100h per month

alice   = 500h per month
bob=20h per day   # short jobs only
carol   = 12.5h per week
root    = unlimited
svc.ci$ = 1e3h per month
)";

std::string error_of(std::string_view text) {
  const auto parsed = parse_quota_file(text, "quotas.txt");
  EXPECT_FALSE(parsed.has_value()) << text;
  if (parsed) return {};
  EXPECT_EQ(parsed.error().code, ErrorCode::invalid_input);
  return parsed.error().message;
}

TEST(QuotaFile, ReadsUsersPeriodsUnlimitedAndTheDefault) {
  const auto file = parse_quota_file(kExample, "quotas.txt");
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->quota_for("alice"), (Quota{500, CalendarPeriod::month}));
  EXPECT_EQ(file->quota_for("bob"), (Quota{20, CalendarPeriod::day}));
  EXPECT_EQ(file->quota_for("carol"), (Quota{12.5, CalendarPeriod::week}));
  EXPECT_EQ(file->quota_for("svc.ci$"), (Quota{1000, CalendarPeriod::month}));
  EXPECT_EQ(file->quota_for("root"), std::nullopt);
  EXPECT_EQ(file->quota_for("dave"), (Quota{100, CalendarPeriod::month}));
  EXPECT_EQ(file->quota_for(""), (Quota{100, CalendarPeriod::month}));
}

TEST(QuotaFile, WithoutADefaultOnlyListedUsersHaveQuotas) {
  const auto file = parse_quota_file("alice = 5h per day\n", "q");
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->quota_for("alice"), (Quota{5, CalendarPeriod::day}));
  EXPECT_EQ(file->quota_for("bob"), std::nullopt);
}

TEST(QuotaFile, AnUnlimitedDefault) {
  const auto file = parse_quota_file("default = unlimited\nalice = 5h per day\n", "q");
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->quota_for("bob"), std::nullopt);
  EXPECT_TRUE(file->default_quota.has_value());
}

TEST(QuotaFile, AnEmptyFileLimitsNobody) {
  const auto file = parse_quota_file("# nothing yet\n\n", "q");
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->quota_for("alice"), std::nullopt);
}

TEST(QuotaFile, ErrorsNameTheLineAndWhatWasExpected) {
  EXPECT_EQ(error_of("alice = 500h per month\nbob 20h per day\n"),
            "quotas.txt:2: expected `USER = HOURSh per day|week|month` or `USER = unlimited`, "
            "e.g. `alice = 500h per month`");
  EXPECT_EQ(error_of("\n\nalice = 500 per month\n"),
            "quotas.txt:3: expected GPU-hours such as `500h` or `12.5h`, or `unlimited`, found "
            "`500`");
  EXPECT_EQ(error_of("alice = 500h a month\n"),
            "quotas.txt:1: expected `per day`, `per week` or `per month` after `500h`");
  EXPECT_EQ(error_of("alice = 500h per year\n"),
            "quotas.txt:1: expected day, week or month after `per`, found `year`");
  EXPECT_EQ(error_of("alice = 500h per month please\n"),
            "quotas.txt:1: unexpected `please` after `per month`");
  EXPECT_EQ(error_of("al ice = 5h per day\n").substr(0, 45),
            "quotas.txt:1: `al ice` is not a user name (le");
  EXPECT_EQ(error_of("alice = 5h per day\nbob = 1h per day\nalice = 6h per day\n"),
            "quotas.txt:3: alice is given a quota twice (first on line 1)");
  EXPECT_EQ(error_of("default = 5h per day\ndefault = unlimited\n"),
            "quotas.txt:2: default is given a quota twice (first on line 1)");
}

TEST(QuotaFile, RefusesOddAmounts) {
  for (const char* bad : {"a = -5h per day", "a = +5h per day", "a = h per day", "a = infh per day",
                          "a = nanh per day", "a = 5hh per day", "a = 5 h per day",
                          "a = ", "= 5h per day", "-a = 5h per day", "a = unlimited please"}) {
    EXPECT_FALSE(parse_quota_file(bad, "q").has_value()) << bad;
  }
  EXPECT_TRUE(parse_quota_file("a = 0h per day", "q").has_value());
}

TEST(QuotaFile, ReadFromDiskOrSayWhyNot) {
  const gpumeter::testing::TempDir dir;
  gpumeter::testing::write_bytes(dir / "q", "alice = 5h per day\nbad line\n");
  const auto bad = read_quota_file(dir / "q");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, (dir / "q").string() +
                                     ":2: expected `USER = HOURSh per "
                                     "day|week|month` or `USER = unlimited`, "
                                     "e.g. `alice = 500h per month`");
  const auto missing = read_quota_file(dir / "none");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "cannot read the quota file " + (dir / "none").string() +
                                         ": No such file or directory");
  const auto directory = read_quota_file(dir.path());
  ASSERT_FALSE(directory);
  EXPECT_NE(directory.error().message.find("it is a directory"), std::string::npos);
}

TEST(QuotaFile, Describes) {
  EXPECT_EQ(to_string(Quota{500, CalendarPeriod::month}), "500h/month");
  EXPECT_EQ(to_string(Quota{12.5, CalendarPeriod::week}), "12.5h/week");
}

}  // namespace gpumeter::view::quota_test

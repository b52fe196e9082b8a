// SPDX-License-Identifier: MIT
#include "cli/report_table.h"

#include <gtest/gtest.h>

#include "support/sample_report.h"
#include "support/time_zone.h"

namespace gpumeter::cli::report_table_test {

using testing::sample_report;

class ReportTable : public ::testing::Test {
 protected:
  const testing::TimeZone utc_{"UTC0"};
};

TEST_F(ReportTable, OneLinePerRowThenTheTotal) {
  EXPECT_EQ(
      render_usage_table(sample_report(false), false),
      "GPU use from 2026-11-01 00:00 to 2026-12-01 00:00 UTC (/var/lib/gpumeter/gpumeter.db)\n"
      "USER   MONTH    GPU-HOURS  SM-HOURS    SM%   ENERGY  PEAK MEM  PROCS\n"
      "ada    2026-11       4.00      1.50  37.5%  0.60kWh    4.0GiB      2\n"
      "bob    2026-11      12.50     12.00  96.0%  3.61kWh    8.0GiB      2\n"
      "?      2026-11       0.50      0.00   0.0%  0.01kWh    1.0GiB      1\n"
      "TOTAL               17.00     13.50  79.4%  4.22kWh    8.0GiB      5\n");
}

TEST_F(ReportTable, QuotaColumnsMarkWhoIsOver) {
  EXPECT_EQ(
      render_usage_table(sample_report(true), false),
      "GPU use from 2026-11-01 00:00 to 2026-12-01 00:00 UTC (/var/lib/gpumeter/gpumeter.db)\n"
      "USER   MONTH    GPU-HOURS  SM-HOURS    SM%   ENERGY  PEAK MEM  PROCS      QUOTA  "
      "PERIOD        USED  USE%\n"
      "ada    2026-11       4.00      1.50  37.5%  0.60kWh    4.0GiB      2  30h/month  "
      "2026-11      4.00h  13.3%\n"
      "bob    2026-11      12.50     12.00  96.0%  3.61kWh    8.0GiB      2     5h/day  "
      "2026-11-02  12.00h  240.0% OVER\n"
      "?      2026-11       0.50      0.00   0.0%  0.01kWh    1.0GiB      1          -\n"
      "TOTAL               17.00     13.50  79.4%  4.22kWh    8.0GiB      5\n"
      "\n"
      "over quota:\n"
      "bob: 12.00 of 5 GPU-hours per day, 2026-11-02 (240.0%)\n");
}

TEST_F(ReportTable, OverQuotaIsRedOnlyWithColour) {
  const std::string painted = render_usage_table(sample_report(true), true);
  EXPECT_NE(painted.find("\x1b[31m240.0% OVER\x1b[0m"), std::string::npos);
  EXPECT_EQ(render_usage_table(sample_report(true), false).find('\x1b'), std::string::npos);
}

TEST_F(ReportTable, NothingRecordedSaysSo) {
  view::UsageReport empty = sample_report(false);
  empty.rows.clear();
  EXPECT_EQ(render_usage_table(empty, false),
            "no usage recorded between 2026-11-01 00:00 and 2026-12-01 00:00 UTC\n");
}

TEST_F(ReportTable, CsvHasTheJsonKeysAndFullPrecision) {
  view::UsageReport report = sample_report(true);
  report.rows[1].sm_percent_while_held = 100.0 / 3;
  report.rows[2].user = "eve, \"the\" admin";
  EXPECT_EQ(
      render_usage_csv(report),
      "user,period,period_start,gpu_hours,sm_busy_hours,sm_percent_while_held,energy_kwh,"
      "peak_memory_bytes,processes,sm_unknown_gpu_hours,sm_unknown_reason,quota_gpu_hours,"
      "quota_period,quota_period_label,quota_used_gpu_hours,quota_percent,over_quota\n"
      "ada,2026-11,2026-11-01T00:00:00Z,4,1.5,37.5,0.6,4294967296,2,0,,30,month,2026-11,4,"
      "13.333333333333334,false\n"
      "bob,2026-11,2026-11-01T00:00:00Z,12.5,12,33.333333333333336,3.61,8589934592,2,0,,5,day,"
      "2026-11-02,12,240,true\n"
      "\"eve, \"\"the\"\" admin\",2026-11,2026-11-01T00:00:00Z,0.5,0,0,0.01,1073741824,1,0,,,,,"
      ",,\n");
}

TEST_F(ReportTable, CsvOfANullSmPercentIsEmpty) {
  view::UsageReport report = sample_report(false);
  report.group_by = {store::GroupBy::user};
  report.rows.resize(1);
  report.rows[0].sm_percent_while_held.reset();
  EXPECT_EQ(render_usage_csv(report),
            "user,gpu_hours,sm_busy_hours,sm_percent_while_held,energy_kwh,peak_memory_bytes,"
            "processes,sm_unknown_gpu_hours,sm_unknown_reason\nada,4,1.5,,0.6,4294967296,2,0,\n");
}

// A user with 4 GPU-hours, 3 of them on a GPU in MIG mode, and one with only MIG hours.
view::UsageReport report_with_unknown_sm() {
  view::UsageReport report = sample_report(false);
  report.group_by = {store::GroupBy::user};
  report.rows.resize(2);
  report.rows[0].sm_unknown_hours = 3;
  report.rows[0].sm_unknown_reason = "mig";
  report.rows[0].sm_busy_hours = 0.5;
  report.rows[0].sm_percent_while_held = 50.0;  // 0.5 SM-hours over the 1 known hour
  report.rows[1].gpu_hours = 2;
  report.rows[1].sm_unknown_hours = 2;
  report.rows[1].sm_unknown_reason = "mig";
  report.rows[1].sm_busy_hours.reset();
  report.rows[1].sm_percent_while_held.reset();
  report.rows[1].energy_kwh.reset();
  report.total = report.rows[0];
  report.total.gpu_hours = 6;
  report.total.sm_unknown_hours = 5;
  return report;
}

TEST_F(ReportTable, UnknownSmUseIsNaWithTheReasonNeverZero) {
  const std::string table = render_usage_table(report_with_unknown_sm(), false);
  EXPECT_NE(table.find("SM N/A-HOURS"), std::string::npos) << table;
  EXPECT_NE(table.find("MIG: the driver reports no per-process utilisation"), std::string::npos);
  const std::size_t bob = table.find("\nbob");
  ASSERT_NE(bob, std::string::npos) << table;
  const std::string line = table.substr(bob + 1, table.find('\n', bob + 1) - bob - 1);
  EXPECT_EQ(line.find("0.0%"), std::string::npos) << line;
  EXPECT_EQ(line.find("kWh"), std::string::npos) << line;
  EXPECT_NE(line.find("N/A"), std::string::npos) << line;
  EXPECT_NE(line.find("2.00"), std::string::npos) << line;  // its unknown hours
}

TEST_F(ReportTable, CsvOfUnknownSmUseIsEmptyWithItsHoursAndReason) {
  EXPECT_EQ(render_usage_csv(report_with_unknown_sm()),
            "user,gpu_hours,sm_busy_hours,sm_percent_while_held,energy_kwh,peak_memory_bytes,"
            "processes,sm_unknown_gpu_hours,sm_unknown_reason\n"
            "ada,4,0.5,50,0.6,4294967296,2,3,mig\n"
            "bob,2,,,,8589934592,2,2,mig\n");
}

TEST_F(ReportTable, WithoutUnknownSmUseThereIsNoExtraColumn) {
  const std::string table = render_usage_table(sample_report(false), false);
  EXPECT_EQ(table.find("SM N/A-HOURS"), std::string::npos) << table;
}

TEST(CsvField, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

TEST(OverQuota, OneLinePerUserAndPeriod) {
  const view::QuotaUse ann{.user = "ann",
                           .quota = {12.5, view::CalendarPeriod::week},
                           .period_label = "week of 2026-11-16",
                           .used_gpu_hours = 20};
  EXPECT_EQ(render_over_quota({ann}),
            "ann: 20.00 of 12.5 GPU-hours per week, week of 2026-11-16 "
            "(160.0%)\n");
  EXPECT_EQ(render_over_quota({}), "");
}

}  // namespace gpumeter::cli::report_table_test

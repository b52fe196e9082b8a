// SPDX-License-Identifier: MIT
#include "cli/report_chart.h"

#include <gtest/gtest.h>

#include "support/sample_report.h"
#include "support/time_zone.h"

namespace gpumeter::cli::report_chart_test {

TEST(ReportChart, ThreeFiguresWithAlignedLabelsAndQuotaMarks) {
  const testing::TimeZone utc("UTC0");
  EXPECT_EQ(
      render_usage_charts(testing::sample_report(true), 50, false),
      "GPU use from 2026-11-01 00:00 to 2026-12-01 00:00 UTC (/var/lib/gpumeter/gpumeter.db)\n"
      "\n"
      "GPU-hours held\n"
      // 50 columns: 11 + 2 + a 24-cell bar + 2 + 6 + " OVER".
      "ada 2026-11  ███████▋                   4.00h\n"
      "bob 2026-11  ████████████████████████  12.50h OVER\n"
      "?   2026-11  █                          0.50h\n"
      "\n"
      "SM busy-hours\n"
      "ada 2026-11  ███▋                            1.50h\n"
      "bob 2026-11  █████████████████████████████  12.00h\n"
      "?   2026-11                                  0.00h\n"
      "\n"
      "Energy\n"
      "ada 2026-11  ████▌                        0.60 kWh\n"
      "bob 2026-11  ███████████████████████████  3.61 kWh\n"
      "?   2026-11  ▏                            0.01 kWh\n"
      "\n"
      "over quota:\n"
      "bob: 12.00 of 5 GPU-hours per day, 2026-11-02 (240.0%)\n");
}

TEST(ReportChart, NothingRecorded) {
  const testing::TimeZone utc("UTC0");
  view::UsageReport report = testing::sample_report(false);
  report.rows.clear();
  EXPECT_EQ(render_usage_charts(report, 80, false),
            "no usage recorded between 2026-11-01 00:00 and 2026-12-01 00:00 UTC\n");
}

}  // namespace gpumeter::cli::report_chart_test

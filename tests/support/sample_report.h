// SPDX-License-Identifier: MIT
// A usage report built by hand for the renderers' tests: three users (one unknown) in November
// 2026, by user and month, with quotas. Times are UTC; tests run under TZ=UTC0.
#pragma once

#include "view/usage_report.h"

namespace gpumeter::cli::testing {

inline constexpr TimeUs kNov1 = 1'793'491'200'000'000;  // 2026-11-01T00:00:00Z
inline constexpr TimeUs kDec1 = kNov1 + 30LL * 86'400'000'000;
inline constexpr std::uint64_t kBytesPerGiB = 1ULL << 30;

inline store::UsageRow usage_row(std::string user, double gpu_hours, double busy_hours, double kwh,
                                 std::uint64_t peak, std::int64_t processes) {
  store::UsageRow row{.user = std::move(user), .period = "2026-11", .period_start_us = kNov1};
  row.gpu_hours = gpu_hours;
  row.sm_busy_hours = busy_hours;
  if (gpu_hours > 0) row.sm_percent_while_held = 100 * busy_hours / gpu_hours;
  row.energy_kwh = kwh;
  row.peak_memory_bytes = peak;
  row.processes = processes;
  return row;
}

inline view::UsageReport sample_report(bool with_quota) {
  view::UsageReport report{.database = "/var/lib/gpumeter/gpumeter.db",
                           .since_us = kNov1,
                           .until_us = kDec1,
                           .group_by = {store::GroupBy::user, store::GroupBy::month}};
  report.rows = {usage_row("ada", 4, 1.5, 0.6, 4 * kBytesPerGiB, 2),
                 usage_row("bob", 12.5, 12, 3.61, 8 * kBytesPerGiB, 2),
                 usage_row("", 0.5, 0, 0.01, kBytesPerGiB, 1)};
  report.total = usage_row("", 17, 13.5, 4.22, 8 * kBytesPerGiB, 5);
  report.total.period.clear();
  report.total.period_start_us.reset();
  if (!with_quota) return report;
  const view::QuotaUse ada{.user = "ada",
                           .quota = {30, view::CalendarPeriod::month},
                           .period_start_us = kNov1,
                           .period_end_us = kDec1,
                           .period_label = "2026-11",
                           .used_gpu_hours = 4};
  const view::QuotaUse bob{.user = "bob",
                           .quota = {5, view::CalendarPeriod::day},
                           .period_start_us = kNov1 + 86'400'000'000,
                           .period_end_us = kNov1 + 2 * 86'400'000'000,
                           .period_label = "2026-11-02",
                           .used_gpu_hours = 12};
  report.quota = view::QuotaSummary{
      .file = "/etc/gpumeter/quota", .rows = {ada, bob, std::nullopt}, .over = {bob}};
  return report;
}

}  // namespace gpumeter::cli::testing

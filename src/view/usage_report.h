// A usage report as every renderer sees it: the window, the grouping, one row per group, the
// total, and with a quota file how each row's user stands against their quota.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "store/usage.h"
#include "view/quota.h"
#include "view/quota_use.h"

namespace gpumeter::view {

struct QuotaSummary {
  std::string file;
  // One per report row: the user's period that speaks for the row (worst_use over the row's
  // period, or over the window when the report has no period); absent when no quota limits the
  // user.
  std::vector<std::optional<QuotaUse>> rows;
  std::vector<QuotaUse> over;  // every (user, period) over quota, by user then period
};

struct UsageReport {
  std::string database;
  TimeUs since_us = 0;
  TimeUs until_us = 0;
  std::vector<store::GroupBy> group_by;
  std::vector<store::UsageRow> rows;
  store::UsageRow total;  // everything in the window; zero when nothing was recorded
  std::optional<QuotaSummary> quota;
};

// Runs the report's queries: the grouped rows, the total, and with `quotas` the quota use of
// every user (view/quota_use.h). Errors: those of store::usage.
std::expected<UsageReport, Error> build_usage_report(store::Store& store,
                                                     const store::UsageQuery& query,
                                                     const QuotaFile* quotas);

// The calendar period of a grouping, if it has one.
std::optional<CalendarPeriod> report_period(const std::vector<store::GroupBy>& group_by);

}  // namespace gpumeter::view

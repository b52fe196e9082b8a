// SPDX-License-Identifier: MIT
// How much of their quota users have used: each user's GPU-hours in each calendar period of
// their quota that overlaps a report's window. A period is counted whole, from its start (even
// when that lies before the window) up to the window's end: a monthly quota is checked against
// the month so far, whatever `--since` says.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "store/usage.h"
#include "view/quota.h"
#include "view/usage_source.h"

namespace gpumeter::view {

struct QuotaUse {
  std::string user;
  Quota quota;
  TimeUs period_start_us = 0;  // local period
  TimeUs period_end_us = 0;    // the next period's start
  std::string period_label;    // "2026-11", "2026-11-16" (a day), "week of 2026-11-16"
  double used_gpu_hours = 0;   // from the period's start to the window's end

  double percent() const {
    return quota.gpu_hours > 0 ? 100.0 * used_gpu_hours / quota.gpu_hours
                               : (used_gpu_hours > 0 ? 100.0 : 0.0);
  }
  bool over() const { return used_gpu_hours > quota.gpu_hours; }
};

struct QuotaScope {
  TimeUs since_us = 0;  // the report's window
  TimeUs until_us = 0;
  std::optional<std::string> user;  // the report's filters
  std::optional<std::string> host;
};

// Every (user, period) of users with a quota and some use, by user then period start. Users
// the file leaves unlimited (or that no line and no default covers) are not listed.
// Errors: those of store::usage.
std::expected<std::vector<QuotaUse>, Error> quota_use(store::Store& store, const QuotaFile& quotas,
                                                      const QuotaScope& scope);
// The same from any source of usage rows (view/usage_source.h).
std::expected<std::vector<QuotaUse>, Error> quota_use(const UsageQueryFunction& usage,
                                                      const QuotaFile& quotas,
                                                      const QuotaScope& scope);

// The use that speaks for a report row covering [from, to) for `user`: the highest percentage
// among the user's periods that overlap it. Null when none does.
const QuotaUse* worst_use(const std::vector<QuotaUse>& uses, const std::string& user, TimeUs from,
                          TimeUs to);

}  // namespace gpumeter::view

// SPDX-License-Identifier: MIT
#include "view/quota_use.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <tuple>
#include <utility>

namespace gpumeter::view {
namespace {

bool has_period(const QuotaFile& quotas, CalendarPeriod period) {
  const auto limits = [&](const std::optional<Quota>& quota) {
    return quota && quota->period == period;
  };
  if (quotas.default_quota && limits(*quotas.default_quota)) return true;
  return std::ranges::any_of(quotas.users, [&](const auto& user) { return limits(user.second); });
}

std::string local_date(TimeUs time_us) {
  const std::time_t seconds = static_cast<std::time_t>(time_us / 1'000'000);
  std::tm fields{};
  localtime_r(&seconds, &fields);
  return fmt::format("{:%Y-%m-%d}", fields);
}

// "2026-11" for a month, "2026-11-03" for a day, "week of 2026-11-02" (its Monday) for a week.
std::string label(CalendarPeriod period, const store::UsageRow& row, TimeUs start) {
  if (period == CalendarPeriod::week) return "week of " + local_date(start);
  return row.period;
}

// Days are summed into weeks here; days and months come straight from the store.
std::expected<std::vector<QuotaUse>, Error> uses_in(const UsageQueryFunction& usage,
                                                    const QuotaFile& quotas,
                                                    const QuotaScope& scope,
                                                    CalendarPeriod period) {
  const store::GroupBy unit =
      period == CalendarPeriod::month ? store::GroupBy::month : store::GroupBy::day;
  auto rows = usage({.since_us = period_start(period, scope.since_us),
                     .until_us = scope.until_us,
                     .group_by = {store::GroupBy::user, unit},
                     .local_time = true,
                     .user = scope.user,
                     .host = scope.host});
  if (!rows) return std::unexpected(std::move(rows.error()));
  std::map<std::pair<std::string, TimeUs>, QuotaUse> uses;
  for (const store::UsageRow& row : *rows) {
    const std::optional<Quota> quota = quotas.quota_for(row.user);
    if (row.user.empty() || !quota || quota->period != period || !row.period_start_us) continue;
    const TimeUs start = period_start(period, *row.period_start_us);
    auto [entry, inserted] = uses.try_emplace({row.user, start});
    QuotaUse& use = entry->second;
    if (inserted) {
      use = QuotaUse{.user = row.user,
                     .quota = *quota,
                     .period_start_us = start,
                     .period_end_us = next_period_start(period, start),
                     .period_label = label(period, row, start)};
    }
    use.used_gpu_hours += row.gpu_hours;
  }
  std::vector<QuotaUse> out;
  out.reserve(uses.size());
  for (auto& [key, use] : uses) out.push_back(std::move(use));
  return out;
}

}  // namespace

std::expected<std::vector<QuotaUse>, Error> quota_use(store::Store& store, const QuotaFile& quotas,
                                                      const QuotaScope& scope) {
  return quota_use(store_usage_source(store).usage, quotas, scope);
}

std::expected<std::vector<QuotaUse>, Error> quota_use(const UsageQueryFunction& usage,
                                                      const QuotaFile& quotas,
                                                      const QuotaScope& scope) {
  std::vector<QuotaUse> all;
  for (const CalendarPeriod period :
       {CalendarPeriod::day, CalendarPeriod::week, CalendarPeriod::month}) {
    if (!has_period(quotas, period)) continue;
    auto uses = uses_in(usage, quotas, scope, period);
    if (!uses) return std::unexpected(std::move(uses.error()));
    all.insert(all.end(), uses->begin(), uses->end());
  }
  std::ranges::sort(all, [](const QuotaUse& a, const QuotaUse& b) {
    return std::tie(a.user, a.period_start_us) < std::tie(b.user, b.period_start_us);
  });
  return all;
}

const QuotaUse* worst_use(const std::vector<QuotaUse>& uses, const std::string& user, TimeUs from,
                          TimeUs to) {
  const QuotaUse* worst = nullptr;
  for (const QuotaUse& use : uses) {
    if (use.user != user || use.period_end_us <= from || use.period_start_us >= to) continue;
    if (worst == nullptr || use.percent() >= worst->percent()) worst = &use;
  }
  return worst;
}

}  // namespace gpumeter::view

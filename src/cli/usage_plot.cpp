// SPDX-License-Identifier: MIT
#include "cli/usage_plot.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>

#include "cli/report_table.h"
#include "view/quota.h"
#include "view/usage_report.h"

namespace gpumeter::cli {
namespace {

constexpr std::size_t kOwnSeries = 9;

std::tm local_tm(TimeUs time_us) {
  const std::time_t seconds = static_cast<std::time_t>(time_us / 1'000'000);
  std::tm fields{};
  localtime_r(&seconds, &fields);
  return fields;
}

// The label the store gives the period (store/usage.h), and the one the axis prints.
std::string store_label(view::CalendarPeriod period, TimeUs start_us) {
  const std::tm fields = local_tm(start_us);
  switch (period) {
    case view::CalendarPeriod::hour: return fmt::format("{:%Y-%m-%dT%H}", fields);
    case view::CalendarPeriod::month: return fmt::format("{:%Y-%m}", fields);
    default: return fmt::format("{:%Y-%m-%d}", fields);
  }
}

std::string axis_label(view::CalendarPeriod period, TimeUs start_us) {
  if (period == view::CalendarPeriod::hour)
    return fmt::format("{:%m-%d %H:00}", local_tm(start_us));
  return store_label(period, start_us);
}

std::size_t columns(view::CalendarPeriod period, TimeUs since_us, TimeUs until_us) {
  std::size_t count = 0;
  for (TimeUs start = view::period_start(period, since_us);
       start < until_us && count <= kMaxPlotColumns;
       start = view::next_period_start(period, start)) {
    ++count;
  }
  return count;
}

// Users by GPU-hours, most first; ties by name.
std::vector<std::string> users_by_use(const std::vector<store::UsageRow>& rows) {
  std::map<std::string, double> totals;
  for (const store::UsageRow& row : rows) totals[row.user] += row.gpu_hours;
  std::vector<std::pair<std::string, double>> ranked(totals.begin(), totals.end());
  std::ranges::stable_sort(ranked,
                           [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> users;
  users.reserve(ranked.size());
  for (auto& [user, hours] : ranked) users.push_back(std::move(user));
  return users;
}

std::string series_name(const std::string& user) {
  return user.empty() ? "(unknown user)" : user;
}

}  // namespace

view::CalendarPeriod plot_period(std::optional<view::CalendarPeriod> grouping, TimeUs since_us,
                                 TimeUs until_us) {
  view::CalendarPeriod period = view::CalendarPeriod::month;
  if (grouping) {
    period = *grouping;
  } else if (until_us - since_us <= 2 * kDayUs) {
    period = view::CalendarPeriod::hour;
  } else if (until_us - since_us <= 92 * kDayUs) {
    period = view::CalendarPeriod::day;
  }
  while (period != view::CalendarPeriod::month &&
         columns(period, since_us, until_us) > kMaxPlotColumns)
    period = period == view::CalendarPeriod::hour ? view::CalendarPeriod::day
                                                  : view::CalendarPeriod::month;
  return period;
}

StackedBars usage_plot(const std::vector<store::UsageRow>& rows, view::CalendarPeriod period,
                       TimeUs since_us, TimeUs until_us) {
  StackedBars chart{.title = fmt::format("GPU-hours by user, per {}", view::period_name(period)),
                    .subtitle = describe_window(since_us, until_us),
                    .x_title = fmt::format("{} (local time)", view::period_name(period)),
                    .y_title = "GPU-hours",
                    .unit = "GPU-hours",
                    .empty_message = "no usage recorded"};
  std::map<std::string, std::size_t> column_of;
  for (TimeUs start = view::period_start(period, since_us); start < until_us;
       start = view::next_period_start(period, start)) {
    column_of[store_label(period, start)] = chart.categories.size();
    chart.categories.push_back(store_label(period, start));
    chart.labels.push_back(axis_label(period, start));
  }
  const std::vector<std::string> users = users_by_use(rows);
  const std::size_t own = users.size() <= kOwnSeries + 1 ? users.size() : kOwnSeries;
  std::map<std::string, std::size_t> series_of;
  for (std::size_t i = 0; i < users.size(); ++i) series_of[users[i]] = std::min(i, own);
  for (std::size_t i = 0; i < own; ++i) chart.series.push_back({series_name(users[i]), {}});
  if (own < users.size())
    chart.series.push_back({fmt::format("others ({})", users.size() - own), {}});
  for (StackedSeries& series : chart.series) series.values.assign(chart.categories.size(), 0.0);
  for (const store::UsageRow& row : rows) {
    const auto column = column_of.find(row.period);
    if (column == column_of.end()) continue;
    chart.series[series_of[row.user]].values[column->second] += row.gpu_hours;
  }
  return chart;
}

std::expected<void, Error> write_usage_plot(store::Store& store, const store::UsageQuery& query,
                                            const std::filesystem::path& path) {
  const view::CalendarPeriod period =
      plot_period(view::report_period(query.group_by), query.since_us, query.until_us);
  store::UsageQuery by_user = query;
  by_user.group_by = {store::GroupBy::user,
                      period == view::CalendarPeriod::hour  ? store::GroupBy::hour
                      : period == view::CalendarPeriod::day ? store::GroupBy::day
                                                            : store::GroupBy::month};
  auto rows = store::usage(store, by_user);
  if (!rows) return std::unexpected(std::move(rows.error()));
  const std::string svg =
      render_stacked_svg(usage_plot(*rows, period, query.since_us, query.until_us));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << svg;
  out.close();
  if (!out) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("cannot write the plot to {}: {}", path.string(), std::strerror(errno))});
  }
  return {};
}

}  // namespace gpumeter::cli

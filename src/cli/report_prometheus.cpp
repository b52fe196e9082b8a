// SPDX-License-Identifier: MIT
#include "cli/report_prometheus.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <memory>
#include <semaphore>
#include <tuple>

#include "cli/report_print.h"
#include "master/prometheus_client.h"
#include "master/url.h"
#include "net/token_file.h"
#include "view/report_time.h"
#include "view/usage_report.h"

namespace gpumeter::cli {
namespace {

using store::GroupBy;

// The counters' figures (exposition/usage_totals.cpp): gpumeter_<user|container>_<figure>_total.
constexpr std::array<std::string_view, 4> kFigures{"gpu_seconds", "sm_busy_seconds",
                                                   "sm_unknown_seconds", "energy_joules"};
// Queries in flight at once: a year by day is 1,464 of them.
constexpr std::size_t kQueriesAtOnce = 32;
constexpr double kSecondsPerHour = 3600;
constexpr double kJoulesPerKwh = 3.6e6;

bool grouped_by(const store::UsageQuery& query, GroupBy by) {
  return std::ranges::count(query.group_by, by) > 0;
}

std::string period_label(view::CalendarPeriod period, TimeUs start_us) {
  const std::time_t seconds = static_cast<std::time_t>(start_us / kSecondUs);
  std::tm fields{};
  localtime_r(&seconds, &fields);
  switch (period) {
    case view::CalendarPeriod::hour: return fmt::format("{:%Y-%m-%dT%H}", fields);
    case view::CalendarPeriod::month: return fmt::format("{:%Y-%m}", fields);
    default: return fmt::format("{:%Y-%m-%d}", fields);
  }
}

// A label value inside a PromQL string literal.
std::string promql_string(std::string_view value) {
  std::string out = "\"";
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + '"';
}

std::string family(const store::UsageQuery& query) {
  return grouped_by(query, GroupBy::container) ? "container" : "user";
}

std::string selector(const store::UsageQuery& query, std::string_view figure) {
  std::vector<std::string> matchers;
  if (query.user && family(query) == "user")
    matchers.push_back("user=" + promql_string(*query.user));
  if (query.host) matchers.push_back("host=" + promql_string(*query.host));
  return fmt::format("gpumeter_{}_{}_total{{{}}}", family(query), figure, fmt::join(matchers, ","));
}

// The last value at or before `at_us`, looked up over `lookback_us`.
std::string value_at(const std::string& selector, TimeUs at_us, TimeUs lookback_us) {
  return fmt::format("last_over_time({}[{}ms] @ {:.3f})", selector,
                     std::max<TimeUs>(lookback_us / 1000, 1000), static_cast<double>(at_us) / 1e6);
}

std::string series_key(const std::string& figure,
                       const std::map<std::string, std::string>& labels) {
  std::string key = figure;
  for (const auto& [name, value] : labels) key += fmt::format("\n{}={}", name, value);
  return key;
}

std::expected<std::vector<store::UsageRow>, Error> fleet_usage(master::PrometheusClient& client,
                                                               const std::string& where,
                                                               const store::UsageQuery& query) {
  if (query.until_us <= query.since_us)
    return std::unexpected(invalid_input("the report's window is empty"));
  if (grouped_by(query, GroupBy::gpu) || grouped_by(query, GroupBy::process))
    return std::unexpected(invalid_input("the counters are per user and container only"));
  const std::vector<ReportSegment> segments = report_segments(query);
  std::vector<TimeUs> boundaries;
  std::vector<TimeUs> lookbacks;
  for (const ReportSegment& segment : segments) {
    boundaries.push_back(segment.from_us);
    lookbacks.push_back(segment.to_us - segment.from_us);
  }
  boundaries.push_back(segments.back().to_us);
  lookbacks.push_back(lookbacks.back());
  std::vector<std::string> queries;
  for (const std::string_view figure : kFigures) {
    const std::string chosen = selector(query, figure);
    for (std::size_t i = 0; i < boundaries.size(); ++i)
      queries.push_back(value_at(chosen, boundaries[i], lookbacks[i]));
  }
  std::map<std::string, CounterSeries> series;
  for (std::size_t first = 0; first < queries.size(); first += kQueriesAtOnce) {
    const std::size_t count = std::min(kQueriesAtOnce, queries.size() - first);
    std::vector<master::QueryResult> answers =
        client.query_all(std::span(queries).subspan(first, count));
    for (std::size_t j = 0; j < answers.size(); ++j) {
      if (!answers[j]) {
        return std::unexpected(
            Error{ErrorCode::io, fmt::format("{}: {}", where, answers[j].error())});
      }
      const std::size_t index = first + j;
      const std::string figure(kFigures[index / boundaries.size()]);
      const std::size_t boundary = index % boundaries.size();
      for (master::PromSample& sample : *answers[j]) {
        CounterSeries& one = series[series_key(figure, sample.labels)];
        if (one.values.empty()) {
          one.labels = std::move(sample.labels);
          one.figure = figure;
          one.values.resize(boundaries.size());
        }
        one.values[boundary] = sample.value;
      }
    }
  }
  std::vector<CounterSeries> all;
  all.reserve(series.size());
  for (auto& [key, one] : series) all.push_back(std::move(one));
  return rows_from_counters(query, segments, all);
}

struct Sums {
  double gpu_seconds = 0;
  double sm_busy_seconds = 0;
  double sm_unknown_seconds = 0;
  double energy_joules = 0;
  bool moved = false;

  void add(std::string_view figure, double value) {
    if (figure == "gpu_seconds") gpu_seconds += value;
    if (figure == "sm_busy_seconds") sm_busy_seconds += value;
    if (figure == "sm_unknown_seconds") sm_unknown_seconds += value;
    if (figure == "energy_joules") energy_joules += value;
    moved = moved || value != 0;
  }
};

// The figures as the store's reports give them: the SM and energy figures cover the held
// time whose SM use is known, and are absent when none of it is.
store::UsageRow row_of(const Sums& sums) {
  store::UsageRow row;
  row.gpu_hours = sums.gpu_seconds / kSecondsPerHour;
  row.sm_unknown_hours = sums.sm_unknown_seconds / kSecondsPerHour;
  if (sums.sm_unknown_seconds > 0) row.sm_unknown_reason = "mig";
  const double known_hours = row.sm_known_hours();
  if (sums.sm_unknown_seconds > 0 && known_hours <= store::kNegligibleHours) {
    row.sm_busy_hours.reset();
    row.energy_kwh.reset();
    return row;
  }
  row.sm_busy_hours = sums.sm_busy_seconds / kSecondsPerHour;
  row.energy_kwh = sums.energy_joules / kJoulesPerKwh;
  if (known_hours > store::kNegligibleHours)
    row.sm_percent_while_held = 100.0 * *row.sm_busy_hours / known_hours;
  return row;
}

std::string label_or_empty(const std::map<std::string, std::string>& labels,
                           const std::string& name) {
  const auto found = labels.find(name);
  return found == labels.end() ? std::string{} : found->second;
}

}  // namespace

std::vector<ReportSegment> report_segments(const store::UsageQuery& query) {
  const std::optional<view::CalendarPeriod> period = view::report_period(query.group_by);
  if (!period) return {{.from_us = query.since_us, .to_us = query.until_us}};
  std::vector<ReportSegment> segments;
  for (TimeUs start = view::period_start(*period, query.since_us); start < query.until_us;) {
    const TimeUs next = view::next_period_start(*period, start);
    segments.push_back({.from_us = std::max(start, query.since_us),
                        .to_us = std::min(next, query.until_us),
                        .period = period_label(*period, start),
                        .period_start_us = start});
    start = next;
  }
  return segments;
}

std::vector<store::UsageRow> rows_from_counters(const store::UsageQuery& query,
                                                std::span<const ReportSegment> segments,
                                                std::span<const CounterSeries> series) {
  const bool by_host = grouped_by(query, GroupBy::host);
  const bool by_key = grouped_by(query, GroupBy::user) || grouped_by(query, GroupBy::container);
  const bool by_period = view::report_period(query.group_by).has_value();
  const std::string key_label = family(query);
  std::map<std::tuple<std::string, std::string, std::size_t>, Sums> groups;
  for (const CounterSeries& one : series) {
    const std::string host = by_host ? label_or_empty(one.labels, "host") : std::string{};
    const std::string key = by_key ? label_or_empty(one.labels, key_label) : std::string{};
    for (std::size_t i = 0; i < segments.size() && i + 1 < one.values.size(); ++i) {
      const std::optional<double>& end = one.values[i + 1];
      if (!end) continue;  // no sample by the segment's end: it did not move
      double increase = *end - one.values[i].value_or(0.0);
      if (increase < 0) increase = *end;  // reset: its database was replaced
      groups[{host, key, by_period ? i : 0}].add(one.figure, increase);
    }
  }
  std::vector<store::UsageRow> rows;
  for (const auto& [group, sums] : groups) {
    if (!sums.moved) continue;
    store::UsageRow row = row_of(sums);
    const auto& [host, key, segment] = group;
    row.host = host;
    (key_label == "user" ? row.user : row.container) = key;
    if (by_period) {
      row.period = segments[segment].period;
      row.period_start_us = segments[segment].period_start_us;
    }
    rows.push_back(std::move(row));
  }
  std::ranges::stable_sort(rows, [&](const store::UsageRow& a, const store::UsageRow& b) {
    for (const GroupBy by : query.group_by) {
      switch (by) {
        case GroupBy::host:
          if (a.host != b.host) return a.host < b.host;
          break;
        case GroupBy::user:
          if (a.user != b.user) return a.user < b.user;
          break;
        case GroupBy::container:
          if (a.container != b.container) return a.container < b.container;
          break;
        case GroupBy::hour:
        case GroupBy::day:
        case GroupBy::month:
          if (a.period_start_us != b.period_start_us) return a.period_start_us < b.period_start_us;
          break;
        default: break;
      }
    }
    return false;
  });
  if (query.offset >= rows.size()) return {};
  rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(query.offset));
  if (query.limit && rows.size() > *query.limit) rows.resize(*query.limit);
  return rows;
}

view::UsageSource prometheus_usage_source(const master::AgentUrl& url,
                                          const master::ClientOptions& options) {
  std::string where = fmt::format("Prometheus at {}{}", url.origin(), url.base_path);
  auto running = std::make_shared<std::counting_semaphore<2>>(2);
  auto usage =
      [url, options, where, running](
          const store::UsageQuery& query) -> std::expected<std::vector<store::UsageRow>, Error> {
    if (!running->try_acquire_for(std::chrono::seconds(10))) {
      return std::unexpected(
          Error{ErrorCode::io, fmt::format("{}: two reports are being read; try again", where)});
    }
    master::PrometheusClient client(url, options);
    auto rows = fleet_usage(client, where, query);
    running->release();
    return rows;
  };
  return view::UsageSource{.name = std::move(where), .usage = std::move(usage)};
}

int run_fleet_report(const Output& output, const ReportSettings& settings,
                     std::span<const std::string>) {
  auto url =
      master::parse_agent_url(settings.prometheus.value_or(""), master::kDefaultPrometheusPort);
  if (!url)
    return fail(output, invalid_input(fmt::format("--prometheus: {}", url.error().message)));
  // A month by day is a hundred queries, each over a day of samples.
  master::ClientOptions options{.timeout = std::chrono::seconds(30)};
  if (settings.prometheus_token_file) {
    auto token = net::read_token_file(*settings.prometheus_token_file);
    if (!token) return fail(output, token.error());
    options.token = std::move(*token);
  }
  master::PrometheusClient client(*url, options);
  const std::string where = fmt::format("Prometheus at {}{}", url->origin(), url->base_path);
  const view::UsageSource source{.name = where,
                                 .usage = [&client, &where](const store::UsageQuery& query) {
                                   return fleet_usage(client, where, query);
                                 }};
  return run_usage_report(output, source, settings);
}

}  // namespace gpumeter::cli

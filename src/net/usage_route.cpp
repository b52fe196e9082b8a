// SPDX-License-Identifier: MIT
#include "net/usage_route.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

#include "net/query_params.h"
#include "net/request_deadline.h"
#include "net/response.h"
#include "view/group_by.h"
#include "view/report_time.h"
#include "view/usage_json.h"
#include "view/usage_report.h"

namespace gpumeter::net {
namespace {

// At most this many rows an answer (`limit`): a report by process over a month of churn has a
// row per process.
constexpr std::size_t kMaxUsageRowsPerPage = 1000;

// Where the next page starts: the window of the first page, pinned (a relative `since` or the
// default `until` would move between requests), and the rows already returned.
struct UsageCursor {
  TimeUs since_us = 0;
  TimeUs until_us = 0;
  std::size_t offset = 0;
};

std::string to_string(const UsageCursor& cursor) {
  return fmt::format("{}:{}:{}", cursor.since_us, cursor.until_us, cursor.offset);
}

std::optional<UsageCursor> parse_cursor(std::string_view text) {
  UsageCursor cursor;
  const char* at = text.data();
  const char* end = text.data() + text.size();
  const auto number = [&](auto& value, bool last) {
    const auto [stop, error] = std::from_chars(at, end, value);
    if (error != std::errc{} || stop == at) return false;
    at = stop;
    if (last) return at == end;
    if (at == end || *at != ':') return false;
    ++at;
    return true;
  };
  if (!number(cursor.since_us, false) || !number(cursor.until_us, false) ||
      !number(cursor.offset, true) || cursor.since_us >= cursor.until_us) {
    return std::nullopt;
  }
  return cursor;
}

std::expected<std::optional<UsageCursor>, Error> after_param(const httplib::Request& request) {
  const auto text = query_param(request, "after");
  if (!text) return std::nullopt;
  auto cursor = parse_cursor(*text);
  if (!cursor) {
    return std::unexpected(bad_param(
        "after",
        fmt::format("\"{}\" is not the \"next\" of an earlier answer (SINCE_US:UNTIL_US:ROWS)",
                    *text)));
  }
  return cursor;
}

// "user,gpu" and the bucket as the names of view/group_by.h.
std::vector<std::string> group_names(const httplib::Request& request) {
  std::vector<std::string> names;
  const std::string by = query_param(request, "by").value_or("user");
  std::size_t from = 0;
  for (std::size_t comma = by.find(','); comma != std::string::npos; comma = by.find(',', from)) {
    names.push_back(by.substr(from, comma - from));
    from = comma + 1;
  }
  names.push_back(by.substr(from));
  if (const auto bucket = query_param(request, "bucket")) names.push_back(*bucket);
  return names;
}

std::expected<store::UsageQuery, Error> usage_query(const httplib::Request& request,
                                                    TimeUs now_us) {
  const auto bucket = query_param(request, "bucket");
  if (bucket && *bucket != "hour" && *bucket != "day" && *bucket != "month") {
    return std::unexpected(bad_param("bucket", "one of hour, day, month"));
  }
  auto group = view::parse_group_by(group_names(request), "by");
  if (!group) return std::unexpected(std::move(group.error()));
  const TimeUs month_start = view::period_start(view::CalendarPeriod::month, now_us);
  auto since = time_param(request, "since", month_start, now_us);
  if (!since) return std::unexpected(std::move(since.error()));
  auto until = time_param(request, "until", now_us, now_us);
  if (!until) return std::unexpected(std::move(until.error()));
  if (*since >= *until) return std::unexpected(bad_param("since", "not before until"));
  auto limit = page_size_param(request, "limit", kMaxUsageRowsPerPage);
  if (!limit) return std::unexpected(std::move(limit.error()));
  auto after = after_param(request);
  if (!after) return std::unexpected(std::move(after.error()));
  const UsageCursor page = after->value_or(UsageCursor{*since, *until, 0});
  // One row more than the page tells whether another page follows.
  return store::UsageQuery{.since_us = page.since_us,
                           .until_us = page.until_us,
                           .group_by = std::move(*group),
                           .local_time = true,
                           .user = query_param(request, "user"),
                           .host = query_param(request, "host"),
                           .limit = *limit + 1,
                           .offset = page.offset};
}

// The report as one page: the rows the query asked for, and where the next page starts.
void reply_page(httplib::Response& response, const store::UsageQuery& query,
                view::UsageReport& report) {
  const std::size_t page_size = query.limit.value_or(1) - 1;  // usage_query() asks one more
  const bool truncated = report.rows.size() > page_size;
  if (truncated) {
    report.rows.resize(page_size);
    if (std::optional<view::QuotaSummary>& quota = report.quota; quota.has_value())
      quota->rows.resize(page_size);
  }
  view::Json document = view::usage_json(report);
  document["truncated"] = truncated;
  document["next"] = truncated ? view::Json(to_string(UsageCursor{query.since_us, query.until_us,
                                                                  query.offset + page_size}))
                               : view::Json(nullptr);
  reply_json(response, document);
}

// The fleet's usage: no database lock, and the source's own failures are the upstream's.
void answer_fleet(const view::UsageSource& fleet, const view::QuotaFile* quotas,
                  const store::UsageQuery& query, httplib::Response& response) {
  auto report = view::build_usage_report(fleet, query, quotas);
  if (!report) {
    const bool refused = report.error().code == ErrorCode::invalid_input;
    return reply_error(response, refused ? 400 : 502, report.error().message);
  }
  reply_page(response, query, *report);
}

void answer(const UsageSources& sources, const httplib::Request& request,
            httplib::Response& response) {
  if (sources.store == nullptr && !sources.fleet) {
    return reply_error(response, 404, "this daemon keeps no history database");
  }
  const auto query = usage_query(request, sources.now_us());
  if (!query) return reply_error(response, 400, query.error().message);
  // Quota standing is per user: only a report grouped by user carries it.
  const bool by_user = std::ranges::count(query->group_by, store::GroupBy::user) > 0;
  const view::QuotaFile* quotas = by_user ? sources.quotas : nullptr;
  if (sources.fleet) return answer_fleet(*sources.fleet, quotas, *query, response);
  const RequestDeadline deadline(sources.store->request_budget());
  std::expected<view::UsageReport, Error> report = std::unexpected(Error{});
  const auto read = sources.store->with_store(
      [&](store::Store& store) { report = view::build_usage_report(store, *query, quotas); },
      deadline.at());
  if (!read) return reply_store_unavailable(response, read.error());
  if (!report) return reply_store_error(response, report.error(), deadline);
  reply_page(response, *query, *report);
}

}  // namespace

void add_usage_route(HttpServer& server, UsageSources sources) {
  server.get("/api/v1/usage", [sources = std::move(sources)](const httplib::Request& request,
                                                             httplib::Response& response) {
    answer(sources, request, response);
  });
}

}  // namespace gpumeter::net

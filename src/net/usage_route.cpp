#include "net/usage_route.h"

#include <algorithm>
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
  return store::UsageQuery{.since_us = *since,
                           .until_us = *until,
                           .group_by = std::move(*group),
                           .local_time = true,
                           .user = query_param(request, "user"),
                           .host = query_param(request, "host")};
}

void answer(const UsageSources& sources, const httplib::Request& request,
            httplib::Response& response) {
  if (sources.store == nullptr) {
    return reply_error(response, 404, "this daemon keeps no history database");
  }
  const RequestDeadline deadline;
  const auto query = usage_query(request, sources.now_us());
  if (!query) return reply_error(response, 400, query.error().message);
  // Quota standing is per user: only a report grouped by user carries it.
  const bool by_user = std::ranges::count(query->group_by, store::GroupBy::user) > 0;
  std::expected<view::UsageReport, Error> report = std::unexpected(Error{});
  const auto read = sources.store->with_store(
      [&](store::Store& store) {
        report = view::build_usage_report(store, *query, by_user ? sources.quotas : nullptr);
      },
      deadline.at());
  if (!read) return reply_error(response, 500, "history database: " + read.error().message);
  if (!report) return reply_store_error(response, report.error(), deadline);
  reply_json(response, view::usage_json(*report));
}

}  // namespace

void add_usage_route(HttpServer& server, UsageSources sources) {
  server.get("/api/v1/usage", [sources = std::move(sources)](const httplib::Request& request,
                                                             httplib::Response& response) {
    answer(sources, request, response);
  });
}

}  // namespace gpumeter::net

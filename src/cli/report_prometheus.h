// SPDX-License-Identifier: MIT
// `gpumeter report --prometheus URL`: the fleet's usage report from the ledger counters that a
// Prometheus server scraped from every daemon (gpumeter_user_*_total, gpumeter_container_*_total;
// docs/report.md, "The fleet from Prometheus"). Runs in gpumeter-serve, which has the HTTP
// client.
//
// A counter's use in [from, to) is its last value at or before `to` less its last value at or
// before `from`, each looked up over the segment's own length. A series with no value at `from`
// began inside the segment and counts from 0; one with no value at `to` did not move; one whose
// value went down was reset (its database replaced) and counts its value at `to`.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/report_options.h"
#include "master/prometheus_client.h"
#include "master/url.h"
#include "store/usage.h"
#include "view/usage_source.h"

namespace gpumeter::cli {

// The fleet report as ServeCommands::fleet_report.
int run_fleet_report(const Output& output, const ReportSettings& settings,
                     std::span<const std::string> args);

// The fleet's usage from the Prometheus at `url`, for the master's GET /api/v1/usage: each
// report gets its own client (a client's calls must not overlap; requests do), and at most
// two run at once, so that page loads cannot pile queries onto the server. A report asked
// while two run waits up to 10 s, then fails (ErrorCode::io).
view::UsageSource prometheus_usage_source(const master::AgentUrl& url,
                                          const master::ClientOptions& options);

// A part of the report's window: the whole window, or the part of one calendar period in it.
struct ReportSegment {
  TimeUs from_us = 0;
  TimeUs to_us = 0;
  std::string period;                     // "2026-11" and the like; empty without a period
  std::optional<TimeUs> period_start_us;  // the whole period's start, perhaps before from_us
};

// The segments of a query's window, in order (local calendar periods, as the store's reports).
std::vector<ReportSegment> report_segments(const store::UsageQuery& query);

// One counter series' values at the segments' boundaries (from of each, then the last to).
struct CounterSeries {
  std::map<std::string, std::string> labels;  // host, user or container, instance, job, ...
  std::string figure;                         // "gpu_seconds", "sm_busy_seconds", ...
  std::vector<std::optional<double>> values;  // absent: no sample at or before the boundary
};

// The report rows that the counters' increases over `segments` give, grouped and ordered as
// the query asks, a page of them when it asks for one (exposed for tests).
std::vector<store::UsageRow> rows_from_counters(const store::UsageQuery& query,
                                                std::span<const ReportSegment> segments,
                                                std::span<const CounterSeries> series);

}  // namespace gpumeter::cli

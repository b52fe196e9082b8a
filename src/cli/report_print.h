// SPDX-License-Identifier: MIT
// What `report` does once it knows where its figures come from, shared by a machine's report
// (cli/report.cpp) and the fleet's from Prometheus (cli/report_prometheus.h).
#pragma once

#include "cli/commands.h"
#include "cli/report_options.h"
#include "core/error.h"
#include "view/usage_report.h"
#include "view/usage_source.h"

namespace gpumeter::cli {

// Exit statuses: someone over quota with --check; anything that went wrong (a bad option or
// quota file, no database or server, an unreadable one, a plot that cannot be written).
inline constexpr int kOverQuota = 1;
inline constexpr int kFailed = 2;

// Prints the error's message on its own line; returns kFailed.
int fail(const Output& output, const Error& error);

// Prints `report` as `settings` asks (table, chart, CSV, JSON; with --check only who is over).
void print_usage(const Output& output, const ReportSettings& settings,
                 const view::UsageReport& report);

// Reads the quota file, builds the usage report from `source`, writes the plot (a database
// only) and prints it; returns the exit status.
int run_usage_report(const Output& output, const view::UsageSource& source,
                     const ReportSettings& settings);

}  // namespace gpumeter::cli

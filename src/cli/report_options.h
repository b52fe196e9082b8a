// SPDX-License-Identifier: MIT
// The options of `gpumeter report` (docs/report.md) and the settings they resolve to.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "store/idle.h"
#include "store/usage.h"

namespace gpumeter::cli {

enum class ReportFormat : std::uint8_t { table, csv, json };

// As typed.
struct ReportOptions {
  std::string database;         // empty: the default (cli/report_database.h)
  std::vector<std::string> by;  // empty: user
  std::string since;            // empty: the start of the current month
  std::string until;            // empty: now
  std::string format = "table";
  std::string user;  // only this user's use
  std::string host;  // only this host's
  std::string quota;
  bool check = false;
  bool idle = false;
  std::string idle_for = "30m";
  double max_sm_percent = 1.0;
  bool chart = false;
  std::string plot;
  std::string prometheus;  // a fleet report from this Prometheus server's ledger counters
  std::string prometheus_token_file;
};

struct ReportSettings {
  std::optional<std::filesystem::path> database;
  store::UsageQuery query;  // the window, the grouping (local time) and the filters
  ReportFormat format = ReportFormat::table;
  std::optional<std::filesystem::path> quota_file;
  bool check = false;
  bool idle = false;
  store::IdleQuery idle_query;  // with `idle`: the same window and user
  bool chart = false;
  std::optional<std::filesystem::path> plot;
  // --by vm: use of each VM's vGPU instance (docs/vgpu.md) instead of processes' use.
  bool by_vm = false;
  // --prometheus: the fleet's report from the ledger counters a Prometheus server scraped
  // (docs/report.md, "The fleet from Prometheus"), run by gpumeter-serve. As typed: the URL is
  // parsed where the HTTP client is.
  std::optional<std::string> prometheus;
  std::optional<std::filesystem::path> prometheus_token_file;
};

// Registers the options on the `report` subcommand.
void add_report_options(CLI::App& report, ReportOptions& options);

// Validates the options and resolves times against `now_us`.
// Errors: invalid_input naming the option and what it expects: a bad time, since not before
// until, --quota without user in --by, --chart with csv or json, --idle with options that do
// not apply to it, a threshold out of range, --prometheus with a grouping or option that
// needs the database (gpu, process, --database, --idle, --plot, --by vm).
std::expected<ReportSettings, Error> resolve_report_options(const ReportOptions& options,
                                                            TimeUs now_us);

}  // namespace gpumeter::cli

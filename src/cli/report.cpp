// SPDX-License-Identifier: MIT
// `gpumeter report`: who used how many GPU-hours, from the history database (docs/report.md).
// It reads no GPU, so it opens no source and works where no driver is installed.
//
// Exit status: 0; 1 with --check when someone is over quota; 2 for anything that went wrong
// (a bad option or quota file, no database, an unreadable one, a plot that cannot be written),
// so that a monitor can tell "over quota" from "broken".
#include <chrono>
#include <cstdlib>
#include <memory>

#include "cli/commands.h"
#include "cli/idle_report.h"
#include "cli/report_chart.h"
#include "cli/report_database.h"
#include "cli/report_json.h"
#include "cli/report_options.h"
#include "cli/report_print.h"
#include "cli/report_table.h"
#include "cli/report_vm.h"
#include "cli/terminal.h"
#include "cli/usage_plot.h"
#include "core/wall_clock.h"
#include "view/usage_report.h"

namespace gpumeter::cli {

int fail(const Output& output, const Error& error) {
  output.err << error.message << '\n';
  return kFailed;
}

namespace {

int run_idle(const Output& output, store::Store& db, const ReportSettings& settings) {
  auto spells = store::idle_holders(db, settings.idle_query);
  if (!spells) return fail(output, spells.error());
  const IdleReport report{db.path().string(), settings.idle_query, std::move(*spells)};
  switch (settings.format) {
    case ReportFormat::json: output.out << dump_json(idle_json(report), false) << '\n'; break;
    case ReportFormat::csv: output.out << render_idle_csv(report); break;
    case ReportFormat::table: output.out << render_idle_table(report, output.color); break;
  }
  return 0;
}

int run_vm(const Output& output, store::Store& db, const ReportSettings& settings) {
  auto rows = store::vm_usage(db, settings.query.since_us, settings.query.until_us);
  if (!rows) return fail(output, rows.error());
  const VmReport report{db.path().string(), settings.query.since_us, settings.query.until_us,
                        std::move(*rows)};
  switch (settings.format) {
    case ReportFormat::json: output.out << dump_json(vm_report_json(report), false) << '\n'; break;
    case ReportFormat::csv: output.out << render_vm_csv(report); break;
    case ReportFormat::table: output.out << render_vm_table(report, output.color); break;
  }
  return 0;
}

}  // namespace

// With --check and a table, only the offenders are printed, so that cron mails nothing while
// everyone is within quota.
void print_usage(const Output& output, const ReportSettings& settings,
                 const view::UsageReport& report) {
  switch (settings.format) {
    case ReportFormat::json:
      output.out << dump_json(view::usage_json(report), false) << '\n';
      return;
    case ReportFormat::csv:
      output.out << render_usage_csv(report);
      if (report.rows.empty()) output.err << no_usage_line(report.since_us, report.until_us);
      output.err << vgpu_note(report);
      return;
    case ReportFormat::table: break;
  }
  if (settings.check && report.quota) {
    output.out << render_over_quota(report.quota->over);
  } else if (settings.chart) {
    const std::size_t width = terminal_width(std::getenv("COLUMNS"), output.out_is_terminal);
    output.out << render_usage_charts(report, width, output.color);
  } else {
    output.out << render_usage_table(report, output.color);
  }
}

int run_usage_report(const Output& output, const view::UsageSource& source,
                     const ReportSettings& settings) {
  std::optional<view::QuotaFile> quotas;
  if (settings.quota_file.has_value()) {
    auto read = view::read_quota_file(settings.quota_file.value());
    if (!read) return fail(output, read.error());
    quotas = std::move(*read);
  }
  auto report = view::build_usage_report(source, settings.query,
                                         quotas.has_value() ? &quotas.value() : nullptr);
  if (!report) return fail(output, report.error());
  if (settings.plot && source.store != nullptr) {
    if (auto written = write_usage_plot(*source.store, settings.query, *settings.plot); !written)
      return fail(output, written.error());
  }
  const view::UsageReport& built = *report;
  print_usage(output, settings, built);
  if (settings.check && built.quota.has_value() && !built.quota->over.empty()) return kOverQuota;
  return 0;
}

namespace {

int run_report(const Output& output, const ReportOptions& options, const ServeCommands& serve,
               std::span<const std::string> args) {
  const auto resolved = resolve_report_options(options, wall_clock_us());
  if (!resolved) return fail(output, resolved.error());
  const ReportSettings& settings = *resolved;
  if (settings.prometheus) return serve.fleet_report(output, settings, args);
  auto db = open_report_database(
      report_database_candidates(settings.database, store::location_environment()));
  if (!db) return fail(output, db.error());
  if (settings.idle) return run_idle(output, *db, settings);
  if (settings.by_vm) return run_vm(output, *db, settings);
  return run_usage_report(output, view::store_usage_source(*db), settings);
}

}  // namespace

Subcommand add_report_command(CLI::App& app, const ServeCommands& serve,
                              std::span<const std::string> args) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* report = app.add_subcommand(
      "report",
      "Report GPU-hours by user, GPU, process, container, hour, day or month from the "
      "history (docs/report.md)");
  add_report_options(*report, *options);
  Subcommand command{report, nullptr};
  command.run_offline = [options, serve, line = std::vector<std::string>(args.begin(), args.end())](
                            const Output& output) {
    return run_report(output, *options, serve, line);
  };
  return command;
}

}  // namespace gpumeter::cli

// SPDX-License-Identifier: MIT
// `gpumeter export csv`: writes the daily CSV files (DIR/YYYY-MM-DD.csv) for a period from the
// history database, as the daemon writes them while it runs (docs/cli.md). It reads no GPU.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <set>

#include "cli/commands.h"
#include "cli/history_options.h"
#include "cli/time_argument.h"
#include "core/duration.h"
#include "core/wall_clock.h"
#include "recorder/csv_export.h"
#include "recorder/csv_file.h"
#include "recorder/windows.h"
#include "store/history.h"
#include "store/store.h"

namespace gpumeter::cli {
namespace {

struct ExportOptions {
  std::string since;
  std::string until = "now";
  std::string dir;
  std::string interval = "60s";
  bool append = false;
  std::string state_dir;
  std::string database;
};

struct Period {
  TimeUs since_us = 0;
  TimeUs until_us = 0;
  TimeUs interval_us = 0;
};

// The period, widened to whole CSV intervals.
std::expected<Period, Error> period_of(const ExportOptions& options) {
  const TimeUs now = wall_clock_us();
  const auto since = parse_time_argument(options.since, now);
  if (!since)
    return std::unexpected(invalid_input(fmt::format(
        "--since: \"{}\" is not a time such as 2026-11-22, 2026-11-22T08:00, @UNIX or 7d",
        options.since)));
  const auto until = parse_time_argument(options.until, now);
  if (!until)
    return std::unexpected(invalid_input(fmt::format(
        "--until: \"{}\" is not a time such as 2026-11-22, 2026-11-22T08:00, @UNIX or now",
        options.until)));
  const auto interval = parse_duration(options.interval);
  if (!interval || interval->count() == 0 || interval->count() % 60'000 != 0)
    return std::unexpected(
        invalid_input("--interval: whole minutes (the store keeps per-minute detail)"));
  if (*until <= *since) return std::unexpected(invalid_input("--until: after --since"));
  const TimeUs interval_us =
      std::chrono::duration_cast<std::chrono::microseconds>(*interval).count();
  return Period{recorder::floor_multiple(*since, interval_us),
                recorder::floor_multiple(*until - 1, interval_us) + interval_us, interval_us};
}

std::expected<std::vector<recorder::CsvRow>, Error> rows_of(store::Store& store,
                                                            const Period& period) {
  auto ledger = store::ledger(store, {.since_us = period.since_us, .until_us = period.until_us});
  if (!ledger) return std::unexpected(std::move(ledger.error()));
  std::map<std::int64_t, store::LedgerRow> by_id;
  for (store::LedgerRow& row : *ledger) by_id.emplace(row.id, std::move(row));
  // Hours reach further back (kept forever by default) and give the same sums for whole hours.
  const auto resolution =
      period.interval_us % kHourUs == 0 ? store::Resolution::hours : store::Resolution::minutes;
  auto detail = store::process_detail(store, resolution, period.since_us, period.until_us);
  if (!detail) return std::unexpected(std::move(detail.error()));
  return recorder::csv_rows(*detail, by_id, period.interval_us);
}

// Files already there are not appended to unless asked: rows would be there twice.
std::expected<void, Error> check_targets(const std::filesystem::path& dir,
                                         const std::vector<recorder::CsvRow>& rows, bool append) {
  if (append) return {};
  std::set<std::filesystem::path> files;
  for (const recorder::CsvRow& row : rows)
    files.insert(recorder::daily_csv_path(dir, row.timestamp_us));
  for (const std::filesystem::path& file : files) {
    std::error_code ignored;
    if (std::filesystem::exists(std::filesystem::symlink_status(file, ignored))) {
      return std::unexpected(invalid_input(
          fmt::format("{} exists; remove it, choose another --dir, or pass --append to add to it",
                      file.string())));
    }
  }
  return {};
}

int run_export(std::ostream& out, std::ostream& err, const ExportOptions& options) {
  const auto period = period_of(options);
  if (!period) return report(err, period.error());
  const auto path =
      database_path(options.state_dir, options.database, store::location_environment());
  if (!path) return report(err, path.error());
  auto store = store::Store::open(*path, {.read_only = true});
  if (!store) return report(err, store.error());
  const auto rows = rows_of(*store, *period);
  if (!rows) return report(err, rows.error());
  const std::filesystem::path dir = std::filesystem::absolute(options.dir);
  if (auto ready = check_targets(dir, *rows, options.append); !ready)
    return report(err, ready.error());
  const auto appended = recorder::append_daily_csv(dir, *rows, ::geteuid() == 0 ? 0640 : 0600);
  if (appended.error) return report(err, *appended.error);
  std::set<std::string> days;
  for (const recorder::CsvRow& row : *rows) days.insert(recorder::local_date(row.timestamp_us));
  out << fmt::format("{} rows in {} file(s) under {}\n", rows->size(), days.size(), dir.string());
  return 0;
}

}  // namespace

Subcommand add_export_command(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* command = app.add_subcommand("export", "Write history out of the database");
  command->require_subcommand(1);
  CLI::App* csv = command->add_subcommand(
      "csv", "The daily CSV files (YYYY-MM-DD.csv) of a period, from the per-minute history");
  csv->add_option("--since", options->since,
                  "From TIME: 2026-11-22, 2026-11-22T08:00, @UNIX_SECONDS or 7d (ago)")
      ->option_text("TIME")
      ->required();
  csv->add_option("--until", options->until, "Until TIME (default now)")->option_text("TIME");
  csv->add_option("--dir", options->dir, "Write the files into DIR")
      ->option_text("DIR")
      ->required();
  csv->add_option("--interval", options->interval,
                  "One row per process and GPU every DURATION, whole minutes (default 60s)")
      ->option_text("DURATION");
  csv->add_flag("--append", options->append, "Append to files that exist already");
  csv->add_option("--state-dir", options->state_dir, "Directory of the history database")
      ->option_text("DIR");
  csv->add_option(
         "--database", options->database,
         "History database (default: STATE_DIR/gpumeter.db when --state-dir is given, else "
         "$GPUMETER_DATABASE, else the default state directory's)")
      ->option_text("PATH");
  return {.app = command, .run_without_session = [options](std::ostream& out, std::ostream& err) {
            return run_export(out, err, *options);
          }};
}

}  // namespace gpumeter::cli

// SPDX-License-Identifier: MIT
// `gpumeter record --once`: one reading into the history database (and the daily CSV files)
// and exit, for machines that run no daemon; a systemd timer runs it every five minutes
// (docs/daemon.md, "Recording without a daemon").
#include <fmt/format.h>
#include <unistd.h>

#include <memory>

#include "cli/commands.h"
#include "cli/config_file.h"
#include "cli/history_options.h"
#include "recorder/csv_file.h"
#include "recorder/one_shot.h"
#include "store/history.h"
#include "store/maintenance.h"
#include "store/store.h"
#include "store/writer.h"

namespace gpumeter::cli {
namespace {

// Transactions of downsampling and pruning per run: a timer that runs every few minutes
// catches up over a few runs after a long pause.
constexpr std::size_t kMaintenanceBatches = 64;

struct RecordOptions {
  bool once = false;
  std::string config;
  HistoryOptions history;
};

// The previous record's time and each GPU's energy counter then.
std::expected<std::optional<recorder::PreviousRecord>, Error> previous_record(store::Store& store) {
  auto until = store::recorded_until(store);
  if (!until) return std::unexpected(std::move(until.error()));
  const std::optional<TimeUs> time = *until;
  if (!time) return std::optional<recorder::PreviousRecord>{};
  recorder::PreviousRecord previous{.time_us = *time};
  auto samples = store::device_series(
      store, {.resolution = store::Resolution::samples, .since_us = *time, .until_us = *time + 1});
  if (!samples) return std::unexpected(std::move(samples.error()));
  for (const store::DeviceSeriesRow& row : *samples) {
    if (row.energy_counter_joules) previous.energy_joules[row.uuid] = *row.energy_counter_joules;
  }
  return previous;
}

std::expected<recorder::OneShotReading, Error> read_now(
    Session& session, const std::optional<recorder::PreviousRecord>& previous) {
  auto snapshot = session.snapshot();
  if (!snapshot) return std::unexpected(std::move(snapshot.error()));
  recorder::OneShotReading reading{.snapshot = std::move(*snapshot)};
  if (!previous) return reading;
  for (const Device& device : reading.snapshot.gpus.devices) {
    if (device.lost) continue;
    reading.drains.emplace(device.identity.index, session.gpus().drain_process_utilization(
                                                      device.identity.index, previous->time_us));
  }
  return reading;
}

std::expected<void, Error> write_records(store::Store& store,
                                         const recorder::OneShotRecords& records, TimeUs now_us,
                                         const store::Retention& retention) {
  store::Writer writer(store);
  for (const auto& record : records.devices) [[maybe_unused]]
    const auto added = writer.add(record);
  for (const auto& sample : records.samples) [[maybe_unused]]
    const auto added = writer.add(sample);
  for (const auto& interval : records.intervals) {
    if (auto added = writer.add(interval); !added) return std::unexpected(std::move(added.error()));
  }
  writer.set_recorded_until(now_us);
  if (auto flushed = writer.flush(); !flushed) return std::unexpected(std::move(flushed.error()));
  if (auto kept = store::maintain(store, now_us, retention, {.max_batches = kMaintenanceBatches});
      !kept) {
    return std::unexpected(std::move(kept.error()));
  }
  return store.checkpoint();
}

std::string summary(const recorder::OneShotRecords& records,
                    const std::optional<recorder::PreviousRecord>& previous, TimeUs now_us,
                    const std::filesystem::path& database) {
  const bool attributed =
      previous && now_us - previous->time_us <= recorder::kLongestOneShotIntervalUs;
  if (!attributed) {
    return fmt::format(
        "gpumeter record: {} GPU(s) read into {}; processes are recorded from the next run on\n",
        records.samples.size(), database.string());
  }
  return fmt::format(
      "gpumeter record: {} GPU(s) and {} process interval(s) over the last {:.0f}s "
      "recorded in {}\n",
      records.samples.size(), records.intervals.size(),
      static_cast<double>(now_us - previous->time_us) / 1e6, database.string());
}

int record_once(Context& context, const HistorySettings& history,
                const std::filesystem::path& database) {
  auto opened = store::Store::open(database, {.host = context.session.collect_options().hostname});
  if (!opened) return report(context.err, opened.error());
  auto previous = previous_record(*opened);
  if (!previous) return report(context.err, previous.error());
  auto reading = read_now(context.session, *previous);
  if (!reading) return report(context.err, reading.error());
  const TimeUs now = reading->snapshot.time_us;
  const recorder::OneShotRecords records = recorder::one_shot_records(*reading, *previous);
  if (auto written = write_records(*opened, records, now, history.retention); !written)
    return report(context.err, written.error());
  if (history.csv_directory) {
    const auto appended = recorder::append_daily_csv(*history.csv_directory, records.csv,
                                                     ::geteuid() == 0 ? 0640 : 0600);
    if (appended.error) return report(context.err, *appended.error);
  }
  context.err << summary(records, *previous, now, database);
  return 0;
}

int run_record(Context& context, CLI::App& command, const RecordOptions& options) {
  ConfigOrigins origins;
  if (!options.config.empty()) {
    auto applied = apply_config_file(command, options.config, kDaemonOnlyKeys);
    if (!applied) return report(context.err, applied.error());
    origins = std::move(*applied);
  }
  // The record interval does not apply to one reading: any valid one passes.
  const auto history = resolve_history_options(options.history, store::location_environment(),
                                               std::chrono::seconds(1), std::chrono::hours(2));
  if (!history) return report(context.err, origins.locate(history.error()));
  const std::optional<std::filesystem::path>& database = history->database;
  if (!database) {
    return report(
        context.err,
        invalid_input("gpumeter record --once needs the history database (history = true): "
                      "it measures the time since the previous record it keeps there"));
  }
  return record_once(context, *history, *database);
}

}  // namespace

Subcommand add_record_command(CLI::App& app) {
  auto options = std::make_shared<RecordOptions>();
  CLI::App* command = app.add_subcommand(
      "record", "Record one reading into the history database and exit (docs/daemon.md)");
  // Checked in run_record rather than marked required: CLI11's mark reads "--once REQUIRED" in
  // the help, as if it took a value.
  command->add_flag("--once", options->once,
                    "Take one reading now (the only mode: the daemon records continuously)");
  command
      ->add_option("--config", options->config,
                   "Read options from FILE, the daemon's config file (its sampling keys are "
                   "ignored)")
      ->option_text("FILE")
      ->configurable(false);
  add_history_options(*command, options->history);
  Subcommand subcommand{command, [options, command](Context& context) {
                          return run_record(context, *command, *options);
                        }};
  // Before any source is opened: a usage error, said as such.
  subcommand.instead_of_session = [options](const Output& output) -> std::optional<int> {
    if (options->once) return std::nullopt;
    output.err << "gpumeter record: --once is required: it takes one reading and exits (from a "
                  "timer: docs/daemon.md); `gpumeter daemon` records continuously\n";
    return 2;
  };
  return subcommand;
}

}  // namespace gpumeter::cli

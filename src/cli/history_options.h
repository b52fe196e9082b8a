// SPDX-License-Identifier: MIT
// The history options of `gpumeter daemon` and `gpumeter record --once`: where the database
// lives, whether to keep one, how often to record, the daily CSV files and each tier's
// retention (docs/daemon.md, "History"). Their config file keys are the same names.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/model.h"
#include "store/location.h"
#include "store/maintenance.h"

namespace gpumeter::cli {

struct HistoryOptions {
  std::string state_dir;  // empty: /var/lib/gpumeter for root, else $XDG_STATE_HOME/gpumeter
  std::string database;   // empty: STATE_DIR/gpumeter.db (or $GPUMETER_DATABASE)
  bool history = true;
  std::string record_interval = "60s";
  std::string csv_dir;       // empty: no CSV files
  std::string csv_interval;  // empty: the record interval
  std::string retain_device_samples = "48h";
  std::string retain_device_minutes = "90d";
  std::string retain_device_hours = "forever";
  std::string retain_process_minutes = "30d";
  std::string retain_process_hours = "forever";
  std::string retain_vgpu_minutes = "90d";
  std::string retain_vgpu_hours = "forever";
};

struct HistorySettings {
  std::optional<std::filesystem::path> database;  // absent with history = false
  std::chrono::milliseconds record_interval{60'000};
  std::optional<std::filesystem::path> csv_directory;
  std::chrono::milliseconds csv_interval{60'000};
  store::Retention retention;

  bool records_anything() const noexcept { return database || csv_directory; }
};

// Registers the options on `command` (the daemon, or record).
void add_history_options(CLI::App& command, HistoryOptions& options);

// The database path the options name: --database, else STATE_DIR/gpumeter.db with --state-dir,
// else the default (store::default_database_path: $GPUMETER_DATABASE, then root's or the
// user's state directory). Errors: invalid_input when a user has no state directory.
std::expected<std::filesystem::path, Error> database_path(const std::string& state_dir,
                                                          const std::string& database,
                                                          const store::LocationEnvironment& env);

// A retention: a duration ("48h", "90d") or "forever" (kept forever, like 0). Absent otherwise.
std::optional<TimeUs> parse_retention(std::string_view text);

// Validates and resolves the options. `sampler_interval` and `horizon` bound the record
// interval: at least the sampler's interval and 1 s, at most an hour and half the horizon (the
// samples of a window must still be there when it is recorded). The CSV interval is a multiple
// of the record interval. Errors: invalid_input naming the option.
std::expected<HistorySettings, Error> resolve_history_options(
    const HistoryOptions& options, const store::LocationEnvironment& env,
    std::chrono::milliseconds sampler_interval, std::chrono::milliseconds horizon);

}  // namespace gpumeter::cli

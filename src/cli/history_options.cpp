// SPDX-License-Identifier: MIT
#include "cli/history_options.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/duration.h"

namespace gpumeter::cli {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kShortestRecordInterval{1000};
constexpr milliseconds kLongestRecordInterval{3'600'000};

CLI::Validator retention_validator() {
  return CLI::Validator(
      [](const std::string& text) {
        return parse_retention(text) ? std::string{}
                                     : fmt::format(
                                           "\"{}\" is not a duration such as 48h or 90d, "
                                           "nor \"forever\"",
                                           text);
      },
      "DURATION");
}

CLI::Validator interval_validator() {
  return CLI::Validator(
      [](const std::string& text) {
        return parse_duration(text)
                   ? std::string{}
                   : fmt::format("\"{}\" is not a duration such as 10s or 1m", text);
      },
      "DURATION");
}

void add_retention_options(CLI::App& command, HistoryOptions& options) {
  struct Tier {
    const char* name;
    std::string* value;
    const char* help;
  };
  const std::array tiers{
      Tier{"--retain-device-samples", &options.retain_device_samples,
           "Keep every GPU sample this long (default 48h)"},
      Tier{"--retain-device-minutes", &options.retain_device_minutes,
           "Keep per-minute GPU aggregates this long (default 90d)"},
      Tier{"--retain-device-hours", &options.retain_device_hours,
           "Keep per-hour GPU aggregates this long (default forever)"},
      Tier{"--retain-process-minutes", &options.retain_process_minutes,
           "Keep per-minute process detail this long (default 30d)"},
      Tier{"--retain-process-hours", &options.retain_process_hours,
           "Keep per-hour process detail this long (default forever)"},
      Tier{"--retain-vgpu-minutes", &options.retain_vgpu_minutes,
           "Keep per-minute vGPU use per VM this long (default 90d)"},
      Tier{"--retain-vgpu-hours", &options.retain_vgpu_hours,
           "Keep per-hour vGPU use per VM this long (default forever)"},
  };
  for (const Tier& tier : tiers) {
    command.add_option(tier.name, *tier.value, tier.help)
        ->option_text("DURATION")
        ->check(retention_validator());
  }
}

std::expected<store::Retention, Error> retention_of(const HistoryOptions& options) {
  const auto us = [](const std::string& text) { return parse_retention(text).value_or(-1); };
  const store::Retention retention{.device_samples_us = us(options.retain_device_samples),
                                   .device_minutes_us = us(options.retain_device_minutes),
                                   .device_hours_us = us(options.retain_device_hours),
                                   .process_minutes_us = us(options.retain_process_minutes),
                                   .process_hours_us = us(options.retain_process_hours),
                                   .vgpu_minutes_us = us(options.retain_vgpu_minutes),
                                   .vgpu_hours_us = us(options.retain_vgpu_hours)};
  if (auto valid = store::validate(retention); !valid)
    return std::unexpected(invalid_input(fmt::format("--retain-*: {}", valid.error().message)));
  return retention;
}

std::expected<milliseconds, Error> record_interval_of(const HistoryOptions& options,
                                                      milliseconds sampler_interval,
                                                      milliseconds horizon) {
  const auto interval = parse_duration(options.record_interval);
  if (!interval)
    return std::unexpected(invalid_input("--record-interval: a duration such as 10s or 1m"));
  if (*interval < std::max(kShortestRecordInterval, sampler_interval))
    return std::unexpected(
        invalid_input("--record-interval: at least 1s and the sampling interval"));
  if (*interval > kLongestRecordInterval || *interval * 2 > horizon)
    return std::unexpected(invalid_input("--record-interval: at most 1h and half the horizon"));
  return *interval;
}

std::expected<milliseconds, Error> csv_interval_of(const HistoryOptions& options,
                                                   milliseconds record_interval) {
  if (options.csv_interval.empty()) return record_interval;
  const auto interval = parse_duration(options.csv_interval);
  if (!interval || interval->count() == 0 || *interval % record_interval != milliseconds(0)) {
    return std::unexpected(
        invalid_input(fmt::format("--csv-interval: a multiple of the record interval ({}s)",
                                  static_cast<double>(record_interval.count()) / 1000.0)));
  }
  return *interval;
}

}  // namespace

std::optional<TimeUs> parse_retention(std::string_view text) {
  if (text == "forever") return 0;
  const auto duration = parse_duration(text);
  if (!duration) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::microseconds>(*duration).count();
}

void add_history_options(CLI::App& command, HistoryOptions& options) {
  command
      .add_option("--state-dir", options.state_dir,
                  "Directory of the history database (default: /var/lib/gpumeter for root, "
                  "$XDG_STATE_HOME/gpumeter for others)")
      ->option_text("DIR");
  command
      .add_option(
          "--database", options.database,
          "History database (default: STATE_DIR/gpumeter.db when --state-dir is given, else "
          "$GPUMETER_DATABASE, else the default state directory's)")
      ->option_text("PATH");
  command.add_option("--history", options.history, "Keep history in the database (default true)")
      ->option_text("true|false");
  command
      .add_option("--record-interval", options.record_interval,
                  "Record process intervals every DURATION (default 60s)")
      ->option_text("DURATION")
      ->check(interval_validator());
  command
      .add_option("--csv-dir", options.csv_dir,
                  "Append daily CSV files (YYYY-MM-DD.csv) to DIR (default: none)")
      ->option_text("DIR");
  command
      .add_option("--csv-interval", options.csv_interval,
                  "One CSV row per process and GPU every DURATION (default: the record interval)")
      ->option_text("DURATION")
      ->check(interval_validator());
  add_retention_options(command, options);
}

std::expected<std::filesystem::path, Error> database_path(const std::string& state_dir,
                                                          const std::string& database,
                                                          const store::LocationEnvironment& env) {
  if (!database.empty()) return std::filesystem::absolute(database);
  if (!state_dir.empty()) return std::filesystem::absolute(state_dir) / store::kDatabaseFileName;
  return store::default_database_path(env);
}

std::expected<HistorySettings, Error> resolve_history_options(const HistoryOptions& options,
                                                              const store::LocationEnvironment& env,
                                                              milliseconds sampler_interval,
                                                              milliseconds horizon) {
  HistorySettings settings;
  auto record_interval = record_interval_of(options, sampler_interval, horizon);
  if (!record_interval) return std::unexpected(std::move(record_interval.error()));
  settings.record_interval = *record_interval;
  auto csv_interval = csv_interval_of(options, settings.record_interval);
  if (!csv_interval) return std::unexpected(std::move(csv_interval.error()));
  settings.csv_interval = *csv_interval;
  auto retention = retention_of(options);
  if (!retention) return std::unexpected(std::move(retention.error()));
  settings.retention = *retention;
  if (!options.csv_dir.empty()) settings.csv_directory = std::filesystem::absolute(options.csv_dir);
  if (options.history) {
    auto path = database_path(options.state_dir, options.database, env);
    if (!path) return std::unexpected(std::move(path.error()));
    settings.database = std::move(*path);
  }
  return settings;
}

}  // namespace gpumeter::cli

// SPDX-License-Identifier: MIT
// The history options of `gpumeter daemon` and `gpumeter record`: defaults, checks, the
// database's path, and the config file they share.
#include "cli/history_options.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // mkstemp: POSIX
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "cli/config_file.h"
#include "cli/daemon_options.h"
#include "support/source_files.h"

namespace gpumeter::cli::history_options_test {

using std::chrono::milliseconds;

const store::LocationEnvironment kRoot{.root = true};
const store::LocationEnvironment kUser{.xdg_state_home = "/home/ada/.state", .home = "/home/ada"};
constexpr milliseconds kSecond{1000};
constexpr milliseconds kHour{3'600'000};

std::expected<HistorySettings, Error> resolve(const HistoryOptions& options,
                                              const store::LocationEnvironment& env = kRoot) {
  return resolve_history_options(options, env, kSecond, kHour);
}

TEST(HistoryOptions, Defaults) {
  const auto settings = resolve({});
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_EQ(settings->database, std::filesystem::path("/var/lib/gpumeter/gpumeter.db"));
  EXPECT_EQ(settings->record_interval, milliseconds(60'000));
  EXPECT_EQ(settings->csv_interval, settings->record_interval);
  EXPECT_FALSE(settings->csv_directory);
  const store::Retention defaults;
  EXPECT_EQ(settings->retention.device_samples_us, defaults.device_samples_us);
  EXPECT_EQ(settings->retention.device_minutes_us, defaults.device_minutes_us);
  EXPECT_EQ(settings->retention.device_hours_us, 0);
  EXPECT_EQ(settings->retention.process_minutes_us, defaults.process_minutes_us);
  EXPECT_EQ(settings->retention.process_hours_us, 0);
  EXPECT_TRUE(settings->records_anything());
}

TEST(HistoryOptions, WhereTheDatabaseLives) {
  EXPECT_EQ(resolve({}, kUser)->database, "/home/ada/.state/gpumeter/gpumeter.db");
  EXPECT_EQ(resolve({.state_dir = "/srv/state"})->database, "/srv/state/gpumeter.db");
  EXPECT_EQ(resolve({.state_dir = "/srv/state", .database = "/data/g.db"})->database, "/data/g.db");
  const store::LocationEnvironment overridden{.gpumeter_database = "/tmp/env.db", .root = true};
  EXPECT_EQ(resolve({}, overridden)->database, "/tmp/env.db");
  EXPECT_EQ(resolve({.state_dir = "/srv/state"}, overridden)->database, "/srv/state/gpumeter.db")
      << "an option wins over the environment";
  const auto nowhere = resolve({}, store::LocationEnvironment{});
  ASSERT_FALSE(nowhere);
  EXPECT_EQ(nowhere.error().code, ErrorCode::invalid_input);
}

TEST(HistoryOptions, HistoryOffKeepsOnlyTheCsvFiles) {
  const auto settings = resolve({.history = false, .csv_dir = "/var/log/gpumeter"});
  ASSERT_TRUE(settings);
  EXPECT_FALSE(settings->database);
  EXPECT_EQ(settings->csv_directory, std::filesystem::path("/var/log/gpumeter"));
  EXPECT_FALSE(resolve({.history = false})->records_anything());
}

TEST(HistoryOptions, TheRecordIntervalIsChecked) {
  EXPECT_EQ(resolve({.record_interval = "10s"})->record_interval, milliseconds(10'000));
  for (const char* bad : {"500ms", "2h", "ten"}) {
    const auto settings = resolve({.record_interval = bad});
    ASSERT_FALSE(settings) << bad;
    EXPECT_NE(settings.error().message.find("--record-interval"), std::string::npos);
  }
  // Not shorter than the sampler's interval, not longer than half the horizon.
  EXPECT_FALSE(
      resolve_history_options({.record_interval = "2s"}, kRoot, milliseconds(5000), kHour));
  EXPECT_FALSE(
      resolve_history_options({.record_interval = "20m"}, kRoot, kSecond, milliseconds(1'800'000)));
}

TEST(HistoryOptions, TheCsvIntervalIsAMultipleOfTheRecordInterval) {
  const auto settings = resolve({.record_interval = "10s", .csv_interval = "1m"});
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->csv_interval, milliseconds(60'000));
  const auto bad = resolve({.record_interval = "10s", .csv_interval = "15s"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--csv-interval"), std::string::npos);
}

TEST(HistoryOptions, Retention) {
  EXPECT_EQ(parse_retention("forever"), 0);
  EXPECT_EQ(parse_retention("2d"), 2LL * 86'400'000'000);
  EXPECT_FALSE(parse_retention("always"));
  const auto settings = resolve({.retain_device_samples = "1d", .retain_process_hours = "400d"});
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->retention.device_samples_us, 86'400'000'000);
  EXPECT_EQ(settings->retention.process_hours_us, 400LL * 86'400'000'000);
  // A finer tier may not outlive the tier it feeds.
  const auto bad = resolve({.retain_device_samples = "100d"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--retain"), std::string::npos);
}

TEST(HistoryOptions, VgpuRetention) {
  const auto defaults = resolve({});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->retention.vgpu_minutes_us, 90LL * 86'400'000'000);
  EXPECT_EQ(defaults->retention.vgpu_hours_us, 0);
  const auto settings = resolve({.retain_vgpu_minutes = "7d", .retain_vgpu_hours = "400d"});
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->retention.vgpu_minutes_us, 7LL * 86'400'000'000);
  EXPECT_EQ(settings->retention.vgpu_hours_us, 400LL * 86'400'000'000);
  const auto bad = resolve({.retain_vgpu_minutes = "30d", .retain_vgpu_hours = "7d"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--retain"), std::string::npos);
}

class SharedConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpumeter-XXXXXX").string();
    const int fd = ::mkstemp(pattern.data());
    ASSERT_GE(fd, 0);
    ::close(fd);
    path_ = pattern;
  }
  void TearDown() override { std::filesystem::remove(path_); }

  std::filesystem::path path_;
};

TEST_F(SharedConfig, TheDaemonReadsTheHistoryKeys) {
  std::ofstream(path_)
      << "interval = \"1s\"\nstate-dir = \"/srv/g\"\nhistory = false\n"
         "csv-dir = \"/srv/csv\"\ncsv-interval = \"5m\"\nrecord-interval = \"30s\"\n"
         "retain-process-minutes = \"7d\"\n";
  CLI::App daemon{"daemon"};
  DaemonOptions options;
  add_daemon_options(daemon, options);
  daemon.parse(std::vector<std::string>{});
  ASSERT_TRUE(apply_config_file(daemon, path_)) << "history keys are daemon keys";
  EXPECT_EQ(options.history.state_dir, "/srv/g");
  EXPECT_FALSE(options.history.history);
  EXPECT_EQ(options.history.csv_dir, "/srv/csv");
  EXPECT_EQ(options.history.csv_interval, "5m");
  EXPECT_EQ(options.history.record_interval, "30s");
  EXPECT_EQ(options.history.retain_process_minutes, "7d");
}

TEST_F(SharedConfig, RecordSkipsTheSamplersKeysButNotTypos) {
  std::ofstream(path_) << "interval = \"1s\"\nsocket-mode = \"0600\"\ncsv-dir = \"/srv/csv\"\n";
  CLI::App record{"record"};
  HistoryOptions options;
  add_history_options(record, options);
  record.parse(std::vector<std::string>{});
  ASSERT_TRUE(apply_config_file(record, path_, kDaemonOnlyKeys));
  EXPECT_EQ(options.csv_dir, "/srv/csv");
  std::ofstream(path_) << "intervall = \"1s\"\n";
  const auto applied = apply_config_file(record, path_, kDaemonOnlyKeys);
  ASSERT_FALSE(applied);
  EXPECT_NE(applied.error().message.find(":1: unknown key \"intervall\""), std::string::npos)
      << applied.error().message;
}

TEST(ExampleConfig, ServesTheDaemonAndRecord) {
  const auto example = gpumeter::testing::source_path("examples/gpumeter.toml");
  CLI::App record{"record"};
  HistoryOptions options;
  add_history_options(record, options);
  record.parse(std::vector<std::string>{});
  const auto applied = apply_config_file(record, example, kDaemonOnlyKeys);
  ASSERT_TRUE(applied) << applied.error().message;
  const auto settings = resolve(options);
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_EQ(settings->record_interval, milliseconds(60'000));
  // The shipped config writes the GPU-stats CSV files, as the timers it replaces did.
  EXPECT_EQ(settings->csv_directory, std::filesystem::path("/var/lib/gpumeter/csv"));
}

}  // namespace gpumeter::cli::history_options_test

// SPDX-License-Identifier: MIT
#include "cli/daemon_options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "cli/config_file.h"
#include "cli/config_tables.h"
#include "support/source_files.h"

namespace gpumeter::cli::daemon_options_test {

using std::chrono::milliseconds;

TEST(DaemonOptions, Intervals) {
  EXPECT_EQ(parse_duration("100ms"), milliseconds(100));
  EXPECT_EQ(parse_duration("1s"), milliseconds(1000));
  EXPECT_EQ(parse_duration("2"), milliseconds(2000));
  EXPECT_EQ(parse_duration("10m"), milliseconds(600'000));
  EXPECT_EQ(parse_duration("1h"), milliseconds(3'600'000));
  EXPECT_EQ(parse_duration("1d"), milliseconds(86'400'000));
  for (const char* bad : {"", "s", "-1s", "1.5s", "1w", "1 s", "99999999999999999999d"}) {
    EXPECT_FALSE(parse_duration(bad)) << bad;
  }
}

TEST(DaemonOptions, SocketModes) {
  EXPECT_EQ(parse_socket_mode("0600"), 0600U);
  EXPECT_EQ(parse_socket_mode("660"), 0660U);
  for (const char* bad : {"", "0800", "1777", "rw", "0600x", "-600"}) {
    EXPECT_FALSE(parse_socket_mode(bad)) << bad;
  }
}

const task::SocketEnvironment kUser{nullptr, "/run/user/1000", false};

TEST(DaemonOptions, ResolvesToSettings) {
  DaemonOptions options;
  options.interval = "250ms";
  options.horizon = "2h";
  options.socket_mode = "0660";
  const auto settings = resolve_daemon_options(options, kUser);
  ASSERT_TRUE(settings.has_value());
  EXPECT_EQ(settings->interval, milliseconds(250));
  EXPECT_EQ(settings->horizon, milliseconds(7'200'000));
  EXPECT_EQ(settings->socket_mode, 0660U);
  EXPECT_EQ(settings->socket, "/run/user/1000/gpumeter.sock");
  EXPECT_TRUE(settings->default_socket);
}

TEST(DaemonOptions, RefusesIntervalsTheSamplerCannotKeep) {
  DaemonOptions options;
  options.interval = "50ms";
  EXPECT_EQ(resolve_daemon_options(options, kUser).error().code, ErrorCode::invalid_input);
  options.interval = "10s";
  options.horizon = "5s";
  EXPECT_EQ(resolve_daemon_options(options, kUser).error().code, ErrorCode::invalid_input);
}

TEST(DaemonOptions, DefaultSocketPaths) {
  EXPECT_EQ(task::default_socket_path({nullptr, "/run/user/5", true}).value(),
            "/run/gpumeter/gpumeter.sock");
  EXPECT_EQ(task::default_socket_path({"/tmp/g.sock", "/run/user/5", true}).value(), "/tmp/g.sock");
  const auto none = task::default_socket_path({nullptr, nullptr, false});
  ASSERT_FALSE(none.has_value());
  EXPECT_NE(none.error().message.find("--socket"), std::string::npos);
  DaemonOptions options;
  options.socket = "/tmp/chosen.sock";
  const auto chosen = resolve_daemon_options(options, {nullptr, nullptr, false});
  ASSERT_TRUE(chosen.has_value());
  EXPECT_FALSE(chosen->default_socket);
}

class ConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpumeter-XXXXXX").string();
    const int fd = ::mkstemp(pattern.data());
    ASSERT_GE(fd, 0);
    ::close(fd);
    path_ = pattern;
    add_daemon_options(daemon_, options_);
  }
  void TearDown() override { std::filesystem::remove(path_); }

  void write(const std::string& text) const { std::ofstream(path_) << text; }
  void parse(std::vector<std::string> args) {
    std::ranges::reverse(args);
    daemon_.parse(args);
  }

  std::filesystem::path path_;
  CLI::App daemon_{"daemon"};
  DaemonOptions options_;
};

TEST_F(ConfigFile, KeysAreTheLongOptionNames) {
  write(
      "interval = \"100ms\"\nhorizon = \"2h\"\nsocket = \"/tmp/x.sock\"\n"
      "socket-mode = \"0660\"\nretain-tasks = 50\n");
  parse({});
  ASSERT_TRUE(apply_config_file(daemon_, path_).has_value());
  EXPECT_EQ(options_.interval, "100ms");
  EXPECT_EQ(options_.horizon, "2h");
  EXPECT_EQ(options_.socket, "/tmp/x.sock");
  EXPECT_EQ(options_.socket_mode, "0660");
  EXPECT_EQ(options_.retain_tasks, 50U);
}

TEST_F(ConfigFile, TheCommandLineWins) {
  write("interval = \"100ms\"\n");
  parse({"--interval", "2s"});
  ASSERT_TRUE(apply_config_file(daemon_, path_).has_value());
  EXPECT_EQ(options_.interval, "2s");
}

TEST_F(ConfigFile, ADaemonSectionIsTheSameAsNone) {
  write("[daemon]\ninterval = \"300ms\"\n");
  parse({});
  ASSERT_TRUE(apply_config_file(daemon_, path_).has_value());
  EXPECT_EQ(options_.interval, "300ms");
}

TEST_F(ConfigFile, AnUnknownKeyNamesFileAndLine) {
  write("# comment\ninterval = \"1s\"\nintervall = \"2s\"\n");
  parse({});
  const auto applied = apply_config_file(daemon_, path_);
  ASSERT_FALSE(applied.has_value());
  EXPECT_EQ(applied.error().code, ErrorCode::invalid_input);
  EXPECT_NE(applied.error().message.find(path_.string() + ":3: unknown key \"intervall\""),
            std::string::npos)
      << applied.error().message;
}

TEST_F(ConfigFile, ABadValueNamesFileAndLine) {
  write("socket-mode = \"rw\"\n");
  parse({});
  const auto applied = apply_config_file(daemon_, path_);
  ASSERT_FALSE(applied.has_value());
  EXPECT_NE(applied.error().message.find(":1: --socket-mode"), std::string::npos)
      << applied.error().message;
}

// An empty array once reached CLI11's flag parsing with no value and crashed the daemon.
TEST_F(ConfigFile, ArraysAndTablesAsValuesNameFileAndLine) {
  for (const char* value : {"[]", "[\"a\", \"b\"]", "{}", "{a = 1}"}) {
    for (const char* key : {"insecure", "no-http", "interval", "retain-tasks"}) {
      write(std::string("# a comment\n") + key + " = " + value + "\n");
      CLI::App daemon{"daemon"};
      DaemonOptions options;
      add_daemon_options(daemon, options);
      daemon.parse(std::vector<std::string>{});
      const auto applied = apply_config_file(daemon, path_);
      ASSERT_FALSE(applied.has_value()) << key << " = " << value;
      EXPECT_EQ(applied.error().message,
                path_.string() +
                    ":2: expected one value (a string, a number or true/false), not an array or "
                    "table");
    }
  }
}

TEST_F(ConfigFile, TablesInsideTablesAndTablesOtherThanDaemonAreRefused) {
  std::string header = "[daemon";
  for (int i = 0; i < 10'000; ++i) header += ".a";
  write("interval = \"1s\"\n" + header + "]\n");
  parse({});
  auto applied = apply_config_file(daemon_, path_);
  ASSERT_FALSE(applied.has_value());
  EXPECT_TRUE(applied.error().message.starts_with(path_.string() + ":2: "))
      << applied.error().message;
  write("[http]\nlisten = \"127.0.0.1:1\"\n");
  applied = apply_config_file(daemon_, path_);
  ASSERT_FALSE(applied.has_value());
  EXPECT_EQ(applied.error().message,
            path_.string() + ":1: unknown table \"http\" (expected [daemon])");
}

TEST_F(ConfigFile, AFileOverOneMebibyteIsRefusedUnread) {
  write(std::string(kMaxConfigBytes + 1, '#'));
  parse({});
  const auto applied = apply_config_file(daemon_, path_);
  ASSERT_FALSE(applied.has_value());
  EXPECT_EQ(applied.error().message,
            path_.string() + ": larger than 1 MiB (expected a config file of at most 1 MiB)");
}

// A mistake across keys names the line of a key the file set.
TEST_F(ConfigFile, AMistakeAcrossKeysNamesFileAndLine) {
  write("# the sampler\ninterval = \"10s\"\nhorizon = \"5s\"\n");
  parse({});
  const auto origins = apply_config_file(daemon_, path_);
  ASSERT_TRUE(origins.has_value()) << origins.error().message;
  const auto settings = resolve_daemon_options(options_, kUser);
  ASSERT_FALSE(settings.has_value());
  EXPECT_EQ(origins->locate(settings.error()).message,
            path_.string() + ":3: --horizon: at least the interval");
  // A key the command line set is not the file's: the message stays as it was.
  CLI::App daemon{"daemon"};
  DaemonOptions options;
  add_daemon_options(daemon, options);
  daemon.parse(std::vector<std::string>{"5s", "--horizon"});
  const auto from_file = apply_config_file(daemon, path_);
  ASSERT_TRUE(from_file.has_value());
  const auto refused = resolve_daemon_options(options, kUser);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(from_file->locate(refused.error()).message, "--horizon: at least the interval");
}

TEST_F(ConfigFile, AMissingFileIsAnError) {
  parse({});
  const auto applied = apply_config_file(daemon_, path_.string() + ".missing");
  ASSERT_FALSE(applied.has_value());
  EXPECT_EQ(applied.error().code, ErrorCode::invalid_input);
}

TEST_F(ConfigFile, TheExampleConfigIsValid) {
  parse({});
  const auto example = gpumeter::testing::source_path("examples/gpumeter.toml");
  const auto applied = apply_config_file(daemon_, example);
  EXPECT_TRUE(applied.has_value()) << applied.error().message;
  EXPECT_TRUE(resolve_daemon_options(options_, kUser).has_value());
}

}  // namespace gpumeter::cli::daemon_options_test

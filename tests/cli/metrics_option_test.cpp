// SPDX-License-Identifier: MIT
// `--metrics-processes` of `gpumeter daemon`: on the command line, in the config file, resolved.
#include "cli/metrics_option.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/config_file.h"
#include "cli/daemon_options.h"

namespace gpumeter::cli::metrics_option_test {

const task::SocketEnvironment kUser{nullptr, "/run/user/1000", false};

TEST(MetricsOption, ResolvesToTheProcessLimit) {
  DaemonOptions options;
  const auto defaults = resolve_daemon_options(options, kUser);
  ASSERT_TRUE(defaults.has_value());
  EXPECT_EQ(defaults->metrics_processes.series, exposition::ProcessSeries::top);
  EXPECT_EQ(defaults->metrics_processes.top, 20U);
  options.metrics_processes = "users";
  EXPECT_EQ(resolve_daemon_options(options, kUser)->metrics_processes.series,
            exposition::ProcessSeries::users);
  options.metrics_processes = "top:0";
  const auto refused = resolve_daemon_options(options, kUser);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message.rfind("--metrics-processes: expected top:N", 0), 0U)
      << refused.error().message;
}

TEST(MetricsOption, TheCommandLineChecksTheValue) {
  CLI::App daemon{"daemon"};
  DaemonOptions options;
  add_daemon_options(daemon, options);
  daemon.parse(std::vector<std::string>{"top:5", "--metrics-processes"});
  EXPECT_EQ(options.metrics_processes, "top:5");
  EXPECT_THROW(daemon.parse(std::vector<std::string>{"all", "--metrics-processes"}),
               CLI::ValidationError);
}

class MetricsConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpumeter-XXXXXX").string();
    const int fd = ::mkstemp(pattern.data());
    ASSERT_GE(fd, 0);
    ::close(fd);
    path_ = pattern;
    add_daemon_options(daemon_, options_);
    daemon_.parse(std::vector<std::string>{});
  }
  void TearDown() override { std::filesystem::remove(path_); }

  std::filesystem::path path_;
  CLI::App daemon_{"daemon"};
  DaemonOptions options_;
};

TEST_F(MetricsConfig, IsAKeyOfTheConfigFile) {
  std::ofstream(path_) << "metrics-processes = \"none\"\n";
  ASSERT_TRUE(apply_config_file(daemon_, path_).has_value());
  EXPECT_EQ(options_.metrics_processes, "none");
}

TEST_F(MetricsConfig, ABadValueNamesFileAndLine) {
  std::ofstream(path_) << "interval = \"1s\"\nmetrics-processes = \"top:x\"\n";
  const auto applied = apply_config_file(daemon_, path_);
  ASSERT_FALSE(applied.has_value());
  EXPECT_NE(applied.error().message.find(":2: --metrics-processes"), std::string::npos)
      << applied.error().message;
}

TEST_F(MetricsConfig, RecordOnceIgnoresIt) {
  EXPECT_NE(std::ranges::find(kDaemonOnlyKeys, "metrics-processes"), kDaemonOnlyKeys.end());
}

}  // namespace gpumeter::cli::metrics_option_test

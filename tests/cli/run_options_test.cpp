// SPDX-License-Identifier: MIT
// The options of `gpumeter run`: how CLI11 takes them (the command after --), and what they
// resolve to against a machine whose online CPUs are read from a temporary root.
#include "cli/run_options.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp: POSIX

#include <filesystem>
#include <fstream>

#include "support/run_cli.h"

namespace gpumeter::cli::run_options_test {

// A root whose sys/devices/system/cpu/online says `online`.
class Machine {
 public:
  explicit Machine(const std::string& online) {
    std::string pattern = ::testing::TempDir() + "gpumeter-run-options-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) root_ = pattern;
    std::filesystem::create_directories(root_ / "sys/devices/system/cpu");
    std::ofstream(root_ / "sys/devices/system/cpu/online") << online << '\n';
  }
  ~Machine() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

// Parses `args` as the options of `run`.
RunOptions parsed(std::vector<std::string> args) {
  CLI::App app{"test"};
  RunOptions options;
  add_run_options(app, options);
  std::ranges::reverse(args);
  app.parse(args);
  return options;
}

TEST(RunOptions, TheCommandFollowsTheDoubleDashWithItsOwnOptions) {
  const RunOptions options =
      parsed({"--json", "out.json", "--interval", "200ms", "--", "python3", "-u", "--json", "x"});
  EXPECT_EQ(options.command, (std::vector<std::string>{"python3", "-u", "--json", "x"}));
  EXPECT_EQ(options.json, "out.json");
  EXPECT_EQ(options.interval, "200ms");
}

TEST(RunOptions, ACommandWithoutOptionsNeedsNoDoubleDash) {
  EXPECT_EQ(parsed({"sleep", "1"}).command, (std::vector<std::string>{"sleep", "1"}));
}

TEST(RunOptions, UsageErrors) {
  EXPECT_THROW(parsed({}), CLI::RequiredError);
  EXPECT_THROW(parsed({"--interval", "50ms", "--", "true"}), CLI::ValidationError);
  EXPECT_THROW(parsed({"--cpus", "1", "--cpu-percent", "50", "--", "true"}), CLI::ExcludesError);
  EXPECT_THROW(parsed({"--no-cgroup", "--memory", "1G", "--", "true"}), CLI::ExcludesError);
}

TEST(RunOptions, ResolvesLimitsAgainstTheOnlineCpus) {
  const Machine machine("0-15");
  RunOptions options = parsed({"--cpus", "1.5", "--cpuset", "0-3", "--memory", "4G", "--", "true"});
  const auto settings = resolve_run_options(options, machine.root());
  ASSERT_TRUE(settings.has_value()) << settings.error().message;
  EXPECT_EQ(settings->limits.cpu, (host::CpuQuota{150'000, 100'000}));
  EXPECT_EQ(settings->limits.cpuset, "0-3");
  EXPECT_EQ(settings->limits.memory_bytes, 4ULL << 30);
  EXPECT_EQ(settings->interval, std::chrono::milliseconds(1000));
  EXPECT_TRUE(settings->cgroup);
}

TEST(RunOptions, CpuPercentIsPerCore) {
  const Machine machine("0-15");
  const auto settings =
      resolve_run_options(parsed({"--cpu-percent", "50", "--", "true"}), machine.root());
  ASSERT_TRUE(settings.has_value()) << settings.error().message;
  EXPECT_EQ(settings->limits.cpu, (host::CpuQuota{800'000, 100'000}));
}

TEST(RunOptions, CpuPercentWithACpusetIsOfTheCpusetsCpus) {
  const Machine machine("0-1");
  const auto settings = resolve_run_options(
      parsed({"--cpu-percent", "50", "--cpuset", "0", "--", "true"}), machine.root());
  ASSERT_TRUE(settings.has_value()) << settings.error().message;
  EXPECT_EQ(settings->limits.cpu, (host::CpuQuota{50'000, 100'000})) << "half of CPU 0";
  EXPECT_EQ(settings->limits.cpuset, "0");
}

TEST(RunOptions, ErrorsNameTheOption) {
  const Machine machine("0-3");
  const auto message = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--", "true"});
    const auto settings = resolve_run_options(parsed(args), machine.root());
    EXPECT_FALSE(settings.has_value());
    if (!settings) {
      EXPECT_EQ(settings.error().code, ErrorCode::invalid_input);
    }
    return settings ? std::string("(resolved)") : settings.error().message;
  };
  EXPECT_EQ(message({"--cpus", "8"}), "--cpus: 8 CPUs is more than the 4 online");
  EXPECT_EQ(message({"--cpuset", "2-5"}), "--cpuset: CPU 4-5 not online (online: 0-3)");
  EXPECT_EQ(message({"--memory", "lots"}),
            "--memory: \"lots\" is not a size such as 512M or 4G (K, M, G, T: powers of 1024)");
  EXPECT_EQ(message({"--cpu-percent", "0"}),
            "--cpu-percent: \"0\" is not a percentage of each CPU in (0, 100]");
}

TEST(RunOptions, WithoutCpuLimitsTheCpusAreNotRead) {
  const auto settings =
      resolve_run_options(parsed({"--memory", "1G", "--", "true"}), "/nonexistent");
  ASSERT_TRUE(settings.has_value()) << settings.error().message;
  EXPECT_EQ(settings->limits.memory_bytes, 1ULL << 30);
}

TEST(RunOptions, NoCgroupIsKept) {
  const auto settings = resolve_run_options(parsed({"--no-cgroup", "--", "true"}), "/nonexistent");
  ASSERT_TRUE(settings.has_value());
  EXPECT_FALSE(settings->cgroup);
  EXPECT_FALSE(settings->limits.any());
}

TEST(RunOptions, TheSubcommandIsRegisteredAndHelpSaysCpuMaxIsNotPerCore) {
  const Result help = run_cli({"run", "--help"});
  EXPECT_EQ(help.status, 0);
  for (const char* word : {"--cpus", "--cpu-percent", "EACH CPU it may use", "not per CPU",
                           "--cpuset", "--memory", "--json", "--interval", "--no-cgroup"}) {
    EXPECT_NE(help.out.find(word), std::string::npos) << word;
  }
  const Result missing = run_cli({"run"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("command is required"), std::string::npos) << missing.err;
}

}  // namespace gpumeter::cli::run_options_test

// SPDX-License-Identifier: MIT
// `gpumeter limit`: its options and what they resolve to (the --cpu-percent rule with a
// cpuset), the record that --clear reads back, the processes it would move, and its errors
// through the whole command line. Moving real processes is tested in
// tests/integration/limit_test.py; the cgroup side on an emulated cgroupfs in
// tests/host/limit_cgroup_test.cpp.
#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp: POSIX
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/limit_options.h"
#include "cli/limit_output.h"
#include "cli/limit_process.h"
#include "cli/limit_state.h"
#include "support/run_cli.h"

namespace gpumeter::cli::limit_test {

namespace fs = std::filesystem;

class TempRoot {
 public:
  TempRoot() {
    std::string pattern = ::testing::TempDir() + "gpumeter-limit-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempRoot() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;
  const fs::path& path() const { return path_; }
  // A machine whose sys/devices/system/cpu/online says `online`.
  const fs::path& with_cpus(const std::string& online) const {
    fs::create_directories(path_ / "sys/devices/system/cpu");
    std::ofstream(path_ / "sys/devices/system/cpu/online") << online << '\n';
    return path_;
  }

 private:
  fs::path path_;
};

LimitOptions parsed(std::vector<std::string> args) {
  CLI::App app{"test"};
  LimitOptions options;
  add_limit_command_options(app, options);
  std::ranges::reverse(args);
  app.parse(args);
  return options;
}

TEST(LimitOptions, TakesThePidTheLimitsAndClear) {
  const LimitOptions options = parsed({"--pid", "1234", "--cpu-percent", "50", "--cpuset", "0",
                                       "--memory", "1G", "--json", "--state-dir", "/tmp/x"});
  EXPECT_EQ(options.pid, 1234U);
  EXPECT_EQ(options.limits.cpu_percent, "50");
  EXPECT_EQ(options.limits.cpuset, "0");
  EXPECT_EQ(options.limits.memory, "1G");
  EXPECT_TRUE(options.json);
  EXPECT_EQ(options.state_dir, "/tmp/x");
  EXPECT_TRUE(parsed({"--pid", "7", "--clear"}).clear);
  EXPECT_FALSE(parsed({"--pid", "7"}).limits.any());
}

TEST(LimitOptions, UsageErrors) {
  EXPECT_THROW(parsed({}), CLI::RequiredError);
  EXPECT_THROW(parsed({"--pid", "0"}), CLI::ValidationError);
  EXPECT_THROW(parsed({"--pid", "x"}), CLI::ParseError);
  EXPECT_THROW(parsed({"--pid", "7", "--clear", "--memory", "1G"}), CLI::ExcludesError);
  EXPECT_THROW(parsed({"--pid", "7", "--cpus", "1", "--cpu-percent", "5"}), CLI::ExcludesError);
}

// The bug this guards against: 50 % with --cpuset 0 on two CPUs made a quota of one whole CPU,
// and the job kept its one CPU 94 % busy.
TEST(LimitOptions, CpuPercentCountsTheCpusOfTheCpuset) {
  const TempRoot machine;
  const auto& root = machine.with_cpus("0-1");
  const auto one = resolve_limits({.cpu_percent = "50", .cpuset = "0"}, root);
  ASSERT_TRUE(one.has_value()) << one.error().message;
  EXPECT_EQ(one->cpu, (host::CpuQuota{50'000, 100'000}));
  const auto both = resolve_limits({.cpu_percent = "50"}, root);
  ASSERT_TRUE(both.has_value()) << both.error().message;
  EXPECT_EQ(both->cpu, (host::CpuQuota{100'000, 100'000}));
  const auto three =
      resolve_limits({.cpu_percent = "25", .cpuset = "0-2,5"}, machine.with_cpus("0-7"));
  ASSERT_TRUE(three.has_value()) << three.error().message;
  EXPECT_EQ(three->cpu, (host::CpuQuota{100'000, 100'000}));
}

TEST(LimitOptions, LimitsThatMakeNoSenseAreRefusedAsRunRefusesThem) {
  const TempRoot machine;
  const auto& root = machine.with_cpus("0-1");
  const auto message = [&](const LimitTexts& texts) {
    const auto limits = resolve_limits(texts, root);
    return limits ? std::string("(resolved)") : limits.error().message;
  };
  EXPECT_EQ(message({.cpus = "3"}), "--cpus: 3 CPUs is more than the 2 online");
  EXPECT_EQ(message({.cpuset = "4"}), "--cpuset: CPU 4 not online (online: 0-1)");
  EXPECT_EQ(message({.cpu_percent = "0.5", .cpuset = "0"}),
            "--cpu-percent: 0.5% of 1 CPUs is less than the kernel's shortest quota, 1000 µs per "
            "100000 µs (0.01 CPU)");
  EXPECT_EQ(message({.memory = "0"}), "--memory: \"0\" is zero bytes");
}

host::LimitedGroup sample_group() {
  return host::LimitedGroup{.version = host::CgroupVersion::v1,
                            .groups = {"/sys/fs/cgroup/memory/gpumeter-limit-100",
                                       "/sys/fs/cgroup/cpu/gpumeter-limit-100"},
                            .origins = {{100, {"/sys/fs/cgroup/memory/a", "/sys/fs/cgroup/cpu"}},
                                        {101, {"/sys/fs/cgroup/memory/b", "/sys/fs/cgroup/cpu"}}}};
}

TEST(LimitRecord, RoundTripsThroughTheStateDirectory) {
  const TempRoot state;
  const fs::path dir = state.path() / "limits";
  const auto none = load_limit_record(dir, 100);
  ASSERT_TRUE(none.has_value()) << none.error().message;
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(save_limit_record(dir, 100, sample_group()).has_value());
  EXPECT_EQ(fs::status(dir).permissions() & fs::perms::all, fs::perms::owner_all);
  const auto loaded = load_limit_record(dir, 100);
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(**loaded, sample_group());
  remove_limit_record(dir, 100);
  EXPECT_FALSE(fs::exists(dir / "100.json"));
}

TEST(LimitRecord, ARecordNamingAnotherGroupOrBrokenIsRefused) {
  Json json = limit_record_json(100, sample_group());
  json["groups"][0] = "/sys/fs/cgroup/memory/system.slice";
  const auto foreign = limit_record_from_json(json, 100);
  ASSERT_FALSE(foreign.has_value());
  EXPECT_NE(foreign.error().message.find("is not a group of gpumeter limit"), std::string::npos)
      << foreign.error().message;
  json = limit_record_json(100, sample_group());
  json["origins"]["101"] = Json::array();
  EXPECT_FALSE(limit_record_from_json(json, 100).has_value());
  const TempRoot state;
  fs::create_directories(state.path() / "limits");
  fs::permissions(state.path() / "limits", fs::perms::owner_all);
  std::ofstream(state.path() / "limits/100.json") << "{not json";
  const auto broken = load_limit_record(state.path() / "limits", 100);
  ASSERT_FALSE(broken.has_value());
  EXPECT_NE(broken.error().message.find("100.json: not JSON"), std::string::npos)
      << broken.error().message;
}

TEST(LimitTargets, TheProcessAndEveryProcessBelowIt) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const auto pids = limit_targets("/", static_cast<Pid>(::getpid()), ::geteuid());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_TRUE(pids.has_value()) << pids.error().message;
  ASSERT_GE(pids->size(), 2U);
  EXPECT_EQ(pids->front(), static_cast<Pid>(::getpid()));
  EXPECT_NE(std::ranges::find(*pids, static_cast<Pid>(child)), pids->end());
}

TEST(LimitTargets, NoSuchProcessAndAnotherUsersProcess) {
  const TempRoot root;
  const auto missing = limit_targets(root.path(), 4242, 0);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(missing.error().message, "gpumeter limit: no process with pid 4242");
  fs::create_directories(root.path() / "proc/4242");
  const auto foreign = limit_targets(root.path(), 4242, ::geteuid() + 1);  // not the owner
  ASSERT_FALSE(foreign.has_value());
  EXPECT_EQ(foreign.error().code, ErrorCode::no_permission);
  EXPECT_NE(foreign.error().message.find("needs root"), std::string::npos)
      << foreign.error().message;
}

TEST(LimitOutput, OneLinePerLimitTheGroupsAndTheProcesses) {
  host::LimitsInForce now;
  now.limits.cpu = host::CpuQuota{50'000, 100'000};
  now.limits.cpuset = "0";
  now.limits.memory_bytes = 1ULL << 30;
  now.members = {100, 101};
  EXPECT_EQ(limit_text(100, sample_group(), now),
            "pid 100: cgroup v1\n"
            "cpu        0.5 CPUs' worth (quota 50000 per 100000 µs)\n"
            "cpuset     0\n"
            "memory     1.0GiB (1073741824 bytes)\n"
            "group      /sys/fs/cgroup/memory/gpumeter-limit-100\n"
            "group      /sys/fs/cgroup/cpu/gpumeter-limit-100\n"
            "processes  100 101\n");
  const Json json = limit_json(100, sample_group(), now);
  EXPECT_EQ(json["limits"]["cpu_quota_us"], 50'000);
  EXPECT_EQ(json["limits"]["memory_bytes"], 1ULL << 30);
  EXPECT_EQ(json["processes"], Json::array({100, 101}));
  EXPECT_EQ(json["version"], 1);
}

TEST(LimitCommand, HelpListsTheOptionsAndErrorsAreOneLine) {
  const Result help = run_cli({"limit", "--help"});
  EXPECT_EQ(help.status, 0);
  for (const char* word : {"--pid", "--cpus", "--cpu-percent", "--cpuset", "--memory", "--clear",
                           "--json", "--state-dir", "EACH CPU it may use"}) {
    EXPECT_NE(help.out.find(word), std::string::npos) << word;
  }
  EXPECT_NE(run_cli({"--help"}).out.find("limit"), std::string::npos);
  const TempRoot state;
  const Result gone = run_cli(
      {"limit", "--pid", "2147483000", "--memory", "1G", "--state-dir", state.path().string()});
  EXPECT_EQ(gone.status, 2);
  EXPECT_EQ(gone.err, "gpumeter limit: no process with pid 2147483000\n");
  const Result unknown =
      run_cli({"limit", "--pid", "2147483000", "--clear", "--state-dir", state.path().string()});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("pid 2147483000 has no limits of gpumeter limit"), std::string::npos)
      << unknown.err;
  const Result bad = run_cli(
      {"limit", "--pid", "1", "--cpu-percent", "150", "--state-dir", state.path().string()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err,
            "gpumeter limit: --cpu-percent: \"150\" is not a percentage of each CPU in "
            "(0, 100]\n");
}

}  // namespace gpumeter::cli::limit_test

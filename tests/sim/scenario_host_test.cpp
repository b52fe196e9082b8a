// SPDX-License-Identifier: MIT
#include "sim/scenario_host.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // setenv, unsetenv: POSIX

#include <filesystem>
#include <fstream>

#include "nvml/abi.h"
#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::scenario_host_test {

using testing::TempScenario;

// Answers every pid with a recognisable command, to show when the scenario falls through.
class FallbackSource final : public ProcessSource {
 public:
  Maybe<HostProcess> describe(Pid pid) override {
    HostProcess p;
    p.pid = pid;
    p.cmdline = std::vector<std::string>{"from-fallback"};
    return p;
  }
};

constexpr const char* kScenario = R"({
  "devices": [{"name": "G", "memory_total_bytes": 1}],
  "processes": [
    {"device": 0, "pid": 100, "host": {"user": "alice", "uid": 1001, "started_s": -7200,
      "command": ["/usr/bin/python3", "train.py"], "container": {"runtime": "docker", "id": "c0ffee"}}},
    {"device": 0, "pid": 200, "host": "hidden"},
    {"device": 0, "pid": 300}
  ]
})";

const std::filesystem::path kLibrary =
    std::filesystem::path(GPUMETER_TEST_LIBRARY_ROOT) / "sim" / "libnvidia-ml.so.1";

// Every case both ways: the scenario parsed here, and parsed by the simulated library
// (sim/host_side_abi.h), which `gpumeter --simulate` uses.
class ScenarioHostTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { setenv("GPUMETER_SIM_EPOCH_US", "1700000000000000", 1); }
  void TearDown() override { unsetenv("GPUMETER_SIM_EPOCH_US"); }

  static std::expected<std::unique_ptr<ProcessSource>, Error> open(
      const std::filesystem::path& scenario, std::unique_ptr<ProcessSource> fallback) {
    if (GetParam()) return open_scenario_host(scenario, kLibrary, std::move(fallback));
    return open_scenario_host(scenario, std::move(fallback));
  }
};

INSTANTIATE_TEST_SUITE_P(ParsedHereOrByTheLibrary, ScenarioHostTest, ::testing::Bool(),
                         [](const auto& instance) { return instance.param ? "library" : "here"; });

TEST_P(ScenarioHostTest, DescribesProcessesFromTheScenario) {
  const TempScenario file(kScenario);
  auto source = open(file.path(), std::make_unique<FallbackSource>());
  ASSERT_TRUE(source.has_value()) << source.error().message;
  const Maybe<HostProcess> p = (*source)->describe(100);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->user, "alice");
  EXPECT_EQ(p->uid, 1001u);
  EXPECT_EQ(p->cmdline, (std::vector<std::string>{"/usr/bin/python3", "train.py"}));
  EXPECT_EQ(p->comm, "python3");
  EXPECT_EQ(p->start_time_us, 1'700'000'000'000'000 - 7'200'000'000);
  ASSERT_TRUE(p->container.has_value());
  EXPECT_EQ(p->container->runtime, "docker");
  EXPECT_EQ(p->container->id, "c0ffee");
}

TEST_P(ScenarioHostTest, HiddenOwnersAreNoPermission) {
  const TempScenario file(kScenario);
  auto source = open(file.path(), std::make_unique<FallbackSource>());
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ((*source)->describe(200), std::unexpected(Unavailable::no_permission));
}

// A pid the scenario does not list is the real machine's: the fallback (procfs) describes it.
TEST_P(ScenarioHostTest, UnlistedPidsGoToTheFallback) {
  const TempScenario file(kScenario);
  auto source = open(file.path(), std::make_unique<FallbackSource>());
  ASSERT_TRUE(source.has_value());
  const auto p = (*source)->describe(12345);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->cmdline, std::vector<std::string>{"from-fallback"});
}

// A made-up pid without a host block is never looked up in /proc, where the same number may
// belong to an unrelated process; a real one (pid_env) is.
TEST_P(ScenarioHostTest, AMadeUpPidIsNeverTheRealMachinesProcess) {
  const TempScenario file(kScenario);
  auto source = open(file.path(), std::make_unique<FallbackSource>());
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ((*source)->describe(300), std::unexpected(Unavailable::not_supported));
  EXPECT_EQ((*source)->usage(300, UsageDetail::current),
            std::unexpected(Unavailable::not_supported));
  setenv("GPUMETER_TEST_REAL_PID", "300", 1);
  const TempScenario real(R"({
    "devices": [{"name": "G", "memory_total_bytes": 1}],
    "processes": [{"device": 0, "pid_env": "GPUMETER_TEST_REAL_PID"}]
  })");
  auto with_real = open(real.path(), std::make_unique<FallbackSource>());
  unsetenv("GPUMETER_TEST_REAL_PID");
  ASSERT_TRUE(with_real.has_value()) << with_real.error().message;
  const auto p = (*with_real)->describe(300);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->cmdline, std::vector<std::string>{"from-fallback"});
}

TEST_P(ScenarioHostTest, WithoutAFallbackUnknownPidsAreGone) {
  const TempScenario file(kScenario);
  auto source = open(file.path(), nullptr);
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ((*source)->describe(12345), std::unexpected(Unavailable::process_gone));
}

TEST_P(ScenarioHostTest, AProcessIsGoneOnceItsLastEntryHasEnded) {
  // pid 400 runs on GPU 0 until t = 10 s and on GPU 1 until t = 20 s.
  const TempScenario file(R"({
    "devices": [{"name": "G", "memory_total_bytes": 1}, {"name": "G", "memory_total_bytes": 1}],
    "processes": [
      {"device": 0, "pid": 400, "end_s": 10, "host": {"user": "bob", "command": ["run"]}},
      {"device": 1, "pid": 400, "end_s": 20, "host": {"user": "bob", "command": ["run"]}}
    ]
  })");
  auto source = open(file.path(), std::make_unique<FallbackSource>());
  ASSERT_TRUE(source.has_value()) << source.error().message;
  for (const auto& [now, alive] :
       {std::pair{"1700000015000000", true}, std::pair{"1700000019999999", true},
        std::pair{"1700000020000000", false}}) {
    setenv("GPUMETER_SIM_NOW_US", now, 1);
    EXPECT_EQ((*source)->describe(400).has_value(), alive) << now;
    EXPECT_EQ((*source)->usage(400, UsageDetail::current),
              std::unexpected(alive ? Unavailable::not_supported : Unavailable::process_gone))
        << now;
  }
  unsetenv("GPUMETER_SIM_NOW_US");
}

TEST_P(ScenarioHostTest, BadScenarioIsInvalidInputWithFileAndLine) {
  const TempScenario file("{\n  \"devices\": [\n    {\"name\": 5}\n  ]\n}\n");
  auto source = open(file.path(), nullptr);
  ASSERT_FALSE(source.has_value());
  EXPECT_EQ(source.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(source.error().message.starts_with(file.path().string() +
                                                 ":3: devices[0].name: expected a string"))
      << source.error().message;
}

TEST(ScenarioHostFromTheLibrary, ItsNextInitUsesTheSameParse) {
  // The library parses the scenario for the host side and keeps the parse for its next
  // nvmlInit: a file changed in between is read at the init after that.
  const TempScenario file(R"({"devices": [{"name": "G", "memory_total_bytes": 1}]})");
  auto source = open_scenario_host(file.path(), kLibrary, nullptr);
  ASSERT_TRUE(source.has_value()) << source.error().message;
  std::ofstream(file.path()) << R"({"devices": [{"name": "G", "memory_total_bytes": 1},
                                              {"name": "G", "memory_total_bytes": 1}]})";
  testing::SimLibrary& library = testing::SimLibrary::open("sim");
  testing::set_environment(file.path(), 100);
  const auto count = [&] {
    unsigned n = 0;
    EXPECT_EQ(library.fn<nvml::abi::InitFn>("nvmlInit_v2")(), nvml::abi::kSuccess);
    EXPECT_EQ(library.fn<nvml::abi::CountFn>("nvmlDeviceGetCount_v2")(&n), nvml::abi::kSuccess);
    EXPECT_EQ(library.fn<nvml::abi::ShutdownFn>("nvmlShutdown")(), nvml::abi::kSuccess);
    return n;
  };
  EXPECT_EQ(count(), 1U) << "the host side's parse";
  EXPECT_EQ(count(), 2U) << "the file as it is now";
  unsetenv("GPUMETER_SIM_SCENARIO");
  unsetenv("GPUMETER_SIM_EPOCH_US");
  unsetenv("GPUMETER_SIM_NOW_US");
}

TEST(ScenarioHostFromTheLibrary, ALibraryWithoutTheHostSideFallsBackToParsingHere) {
  const TempScenario file(kScenario);
  setenv("GPUMETER_SIM_EPOCH_US", "1700000000000000", 1);
  auto source = open_scenario_host(file.path(), "/nonexistent/libnvidia-ml.so.1", nullptr);
  unsetenv("GPUMETER_SIM_EPOCH_US");
  ASSERT_TRUE(source.has_value()) << source.error().message;
  EXPECT_EQ((*source)->describe(100)->user, "alice");
}

}  // namespace gpumeter::sim::scenario_host_test

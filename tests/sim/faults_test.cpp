// SPDX-License-Identifier: MIT
// Scripted faults through dlopen: init failures, a GPU falling off the bus, flaky calls,
// and scenarios that cannot be loaded.
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv, unsetenv: POSIX

#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::testing::faults_test {

class FaultsTest : public ::testing::Test {
 protected:
  SimLibrary& lib = SimLibrary::open("sim");
};

TEST_F(FaultsTest, InitFailsWithTheScriptedCode) {
  const Session s(lib, example_scenario("init-fails"));
  EXPECT_EQ(s.init_result(), abi::kErrorLibRmVersionMismatch);
  unsigned count = 0;
  EXPECT_EQ(lib.fn<abi::CountFn>("nvmlDeviceGetCount_v2")(&count), abi::kErrorUninitialized);
}

// The process running this test is younger than a day: init fails for it, and succeeds for
// a scenario whose wait has passed (0 s).
TEST_F(FaultsTest, InitFailsWhileTheProcessIsYoungerThanTheScriptedWait) {
  const TempScenario waiting(R"({"devices": [], "faults": {"init_fails_for_s": 86400}})");
  {
    const Session s(lib, waiting.path());
    EXPECT_EQ(s.init_result(), abi::kErrorDriverNotLoaded);
  }
  const TempScenario passed(R"({"devices": [], "faults": {"init_fails_for_s": 0}})");
  const Session s(lib, passed.path());
  EXPECT_EQ(s.init_result(), abi::kSuccess);
}

TEST_F(FaultsTest, MalformedScenarioFailsInit) {
  const TempScenario file("{\n  \"devices\": [\n    {\"name\": 3}\n  ]\n}\n");
  ::testing::internal::CaptureStderr();
  const Session s(lib, file.path());
  const std::string stderr_text = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(s.init_result(), abi::kErrorUnknown);
  EXPECT_NE(stderr_text.find(file.path().string() + ":3: devices[0].name: expected a string"),
            std::string::npos)
      << stderr_text;
}

TEST_F(FaultsTest, NoScenarioMeansNoDriver) {
  set_environment("/unused", 0);
  unsetenv("GPUMETER_SIM_SCENARIO");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(lib.fn<abi::InitFn>("nvmlInit_v2")(), abi::kErrorDriverNotLoaded);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("GPUMETER_SIM_SCENARIO"),
            std::string::npos);
}

TEST_F(FaultsTest, MalformedEpochIsReported) {
  set_environment(example_scenario("empty"), 0);
  setenv("GPUMETER_SIM_EPOCH_US", "yesterday", 1);
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(lib.fn<abi::InitFn>("nvmlInit_v2")(), abi::kSuccess);
  EXPECT_NE(
      ::testing::internal::GetCapturedStderr().find("GPUMETER_SIM_EPOCH_US is not a whole number"),
      std::string::npos);
  lib.fn<abi::ShutdownFn>("nvmlShutdown")();
}

TEST_F(FaultsTest, GpuFallsOffTheBusAtItsTime) {
  const Session s(lib, example_scenario("lost-gpu"), 1.0);
  ASSERT_EQ(s.init_result(), abi::kSuccess);
  const abi::Device lost = s.device(1);
  ASSERT_NE(lost, nullptr);
  auto power = s.fn<abi::DeviceUintFn>("nvmlDeviceGetPowerUsage");
  unsigned value = 0;
  EXPECT_EQ(power(lost, &value), abi::kSuccess);
  s.at(2.5);
  EXPECT_EQ(power(lost, &value), abi::kErrorGpuIsLost);
  char name[96];
  EXPECT_EQ(s.fn<abi::DeviceStringFn>("nvmlDeviceGetName")(lost, name, sizeof name),
            abi::kErrorGpuIsLost);
  abi::Device again = nullptr;
  EXPECT_EQ(s.fn<abi::HandleByIndexFn>("nvmlDeviceGetHandleByIndex_v2")(1, &again),
            abi::kErrorGpuIsLost);
  unsigned count = 0;
  EXPECT_EQ(s.fn<abi::CountFn>("nvmlDeviceGetCount_v2")(&count), abi::kSuccess);
  EXPECT_EQ(count, 2u);                                  // still counted
  EXPECT_EQ(power(s.device(0), &value), abi::kSuccess);  // the other GPU carries on
  s.at(1000);
  EXPECT_EQ(power(lost, &value), abi::kErrorGpuIsLost);  // from then on
}

TEST_F(FaultsTest, LegacyInitFailsWhenAGpuIsLost) {
  set_environment(example_scenario("lost-gpu"), 5);
  EXPECT_EQ(lib.fn<abi::InitFn>("nvmlInit")(), abi::kErrorGpuIsLost);
  ASSERT_EQ(lib.fn<abi::InitFn>("nvmlInit_v2")(), abi::kSuccess);  // v2 defers to handle lookup
  lib.fn<abi::ShutdownFn>("nvmlShutdown")();
}

TEST_F(FaultsTest, FlakyCallsFailEveryNthTime) {
  const Session s(lib, example_scenario("flaky"));
  auto power = s.fn<abi::DeviceUintFn>("nvmlDeviceGetPowerUsage");
  unsigned value = 0;
  std::vector<abi::Return> gpu0, gpu1;
  for (int i = 0; i < 9; ++i) {
    gpu0.push_back(power(s.device(0), &value));
    gpu1.push_back(power(s.device(1), &value));
  }
  const abi::Return ok = abi::kSuccess, unknown = abi::kErrorUnknown;
  EXPECT_EQ(gpu0, (std::vector<abi::Return>{ok, ok, unknown, ok, ok, unknown, ok, ok, unknown}));
  EXPECT_EQ(gpu1, std::vector<abi::Return>(9, ok));  // the rule names device 0 only
}

TEST_F(FaultsTest, FaultCountersStartAgainWithEachInit) {
  for (int round = 0; round < 2; ++round) {
    const Session s(lib, example_scenario("flaky"));
    unsigned value = 0;
    auto power = s.fn<abi::DeviceUintFn>("nvmlDeviceGetPowerUsage");
    EXPECT_EQ(power(s.device(0), &value), abi::kSuccess);
    EXPECT_EQ(power(s.device(0), &value), abi::kSuccess);
    EXPECT_EQ(power(s.device(0), &value), abi::kErrorUnknown);
  }
}

}  // namespace gpumeter::sim::testing::faults_test

// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv, unsetenv: POSIX

#include <string>

#include "sim/scenario.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::scenario_parse_test {

using testing::TempScenario;

// The message for `text`, which must fail to parse.
std::string error_of(const std::string& text) {
  auto parsed = parse_scenario(text, "s.json");
  if (parsed) return "(parsed)";
  EXPECT_EQ(parsed.error().code, ErrorCode::invalid_input);
  return parsed.error().message;
}

constexpr const char* kMinimal = R"({
  "devices": [
    {"name": "Tesla T4", "memory_total_bytes": 16106127360}
  ]
})";

TEST(ScenarioParse, MinimalDeviceGetsDefaults) {
  auto s = parse_scenario(kMinimal, "s.json");
  ASSERT_TRUE(s.has_value()) << s.error().message;
  ASSERT_EQ(s->devices.size(), 1u);
  const DeviceSpec& d = s->devices[0];
  EXPECT_EQ(d.name, "Tesla T4");
  EXPECT_EQ(d.uuid, "GPU-00000000-0000-4000-8000-000000000000");
  EXPECT_EQ(d.pci.bus_id, "00000000:01:00.0");
  EXPECT_EQ(d.memory_total_bytes, 16106127360u);
  EXPECT_FALSE(d.supports(Feature::serial));  // no serial given
  EXPECT_TRUE(d.supports(Feature::fan));
  EXPECT_EQ(d.sample_period_us, 166'667);
  EXPECT_EQ(s->driver.driver_version, "570.124.06");
}

TEST(ScenarioParse, MissingNameNamesTheDeviceLine) {
  EXPECT_EQ(error_of("{\n  \"devices\": [\n    {\n      \"memory_total_bytes\": 1\n    }\n  ]\n}"),
            "s.json:3: devices[0]: missing \"name\" (expected the product name, a string)");
}

TEST(ScenarioParse, StringWhereANumberBelongsNamesTheValueLine) {
  const std::string message = error_of(
      "{\n  \"devices\": [\n    {\n      \"name\": \"A100\",\n      \"memory_total_bytes\": "
      "\"lots\"\n    }\n  ]\n}\n");
  EXPECT_TRUE(
      message.starts_with("s.json:5: devices[0].memory_total_bytes: expected a whole number"))
      << message;
  EXPECT_NE(message.find("found a string"), std::string::npos) << message;
}

TEST(ScenarioParse, UnknownKeysAreReportedWithTheirLine) {
  const std::string message = error_of("{\n  \"devices\": [],\n  \"proceses\": []\n}");
  EXPECT_TRUE(message.starts_with("s.json:3: proceses: unknown key \"proceses\"")) << message;
}

TEST(ScenarioParse, CommentsAreAllowedAnywhere) {
  EXPECT_TRUE(
      parse_scenario(
          R"({"comment": "x", "devices": [{"comment": "y", "name": "A", "memory_total_bytes": 1}]})",
          "s.json")
          .has_value());
}

TEST(ScenarioParse, OutOfRangeUtilisation) {
  const std::string message = error_of(R"({"devices": [{"name": "A", "memory_total_bytes": 1}],
  "processes": [{"device": 0, "pid": 5, "utilization": {"sm": 120}}]})");
  EXPECT_TRUE(
      message.starts_with("s.json:2: processes[0].utilization.sm: expected a number from 0 to 100"))
      << message;
}

TEST(ScenarioParse, DeviceIndexMustExist) {
  const std::string message = error_of(R"({"devices": [], "processes": [
    {"device": 0, "pid": 5}]})");
  EXPECT_TRUE(message.starts_with("s.json:2: processes[0].device: expected a device index below 0"))
      << message;
}

TEST(ScenarioParse, StepsMustIncrease) {
  const std::string message = error_of(R"({"devices": [{"name": "A", "memory_total_bytes": 1}],
  "processes": [{"device": 0, "pid": 5, "utilization": {"sm": {"steps": [[0, 1], [0, 2]]}}}]})");
  EXPECT_NE(message.find("increasing order"), std::string::npos) << message;
  EXPECT_TRUE(message.starts_with("s.json:2:")) << message;
}

TEST(ScenarioParse, UnknownFeatureListsTheKnownOnes) {
  const std::string message = error_of(R"({"devices": [{"name": "A", "memory_total_bytes": 1,
    "unsupported": ["fan", "rgb"]}]})");
  EXPECT_TRUE(message.starts_with("s.json:2: devices[0].unsupported[1]: unknown feature \"rgb\""))
      << message;
  EXPECT_NE(message.find("encoder"), std::string::npos) << message;
}

TEST(ScenarioParse, FaultsNeedKnownCodesAndFunctions) {
  EXPECT_NE(error_of(R"({"devices": [], "faults": {"init": "BROKEN"}})")
                .find("unknown return code \"BROKEN\""),
            std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"devices": [], "faults": {"flaky": [{"functions": ["nvmlDoesNotExist"], "every": 2}]}})")
          .find("\"nvmlDoesNotExist\" is not an NVML function"),
      std::string::npos);
}

TEST(ScenarioParse, FaultsAreRead) {
  auto s = parse_scenario(R"({"devices": [{"name": "A", "memory_total_bytes": 1}], "faults": {
    "init": "NVML_ERROR_DRIVER_NOT_LOADED",
    "lost": [{"device": 0, "at_s": 2.5}],
    "flaky": [{"functions": ["nvmlDeviceGetPowerUsage"], "every": 3, "device": 0}]}})",
                          "s.json");
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->faults.init_code, 9u);
  ASSERT_EQ(s->faults.lost.size(), 1u);
  EXPECT_EQ(s->faults.lost[0].at_s, 2.5);
  ASSERT_EQ(s->faults.flaky.size(), 1u);
  EXPECT_EQ(s->faults.flaky[0].every, 3u);
  EXPECT_EQ(s->faults.flaky[0].code, 999u);
}

TEST(ScenarioParse, DeviceDefaultsFillMissingKeys) {
  auto s = parse_scenario(
      R"({"device_defaults": {"name": "V100", "memory_total_bytes": 100, "power_limit_w": 300},
    "devices": [{}, {"name": "A100", "power_limit_w": 400}]})",
      "s.json");
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->devices[0].name, "V100");
  EXPECT_EQ(s->devices[1].name, "A100");
  EXPECT_EQ(s->devices[0].power_limit_w, 300);
  EXPECT_EQ(s->devices[1].power_limit_w, 400);
  EXPECT_EQ(s->devices[1].memory_total_bytes, 100u);
  EXPECT_NE(s->devices[0].uuid, s->devices[1].uuid);
}

TEST(ScenarioParse, PciIdsAndBusIds) {
  auto s = parse_scenario(R"({"devices": [{"name": "A", "memory_total_bytes": 1,
    "pci": {"bus_id": "0000:8a:00.0", "device_id": "0x1DB110DE", "subsystem_id": 303108318}}]})",
                          "s.json");
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->devices[0].pci.bus_id, "00000000:8A:00.0");
  EXPECT_EQ(s->devices[0].pci.bus, 0x8Au);
  EXPECT_EQ(s->devices[0].pci.device_id, 0x1DB110DEu);
  EXPECT_NE(
      error_of(
          R"({"devices": [{"name": "A", "memory_total_bytes": 1, "pci": {"bus_id": "8a:00"}}]})")
          .find("expected a PCI bus id"),
      std::string::npos);
}

TEST(ScenarioParse, PidFromTheEnvironment) {
  const char* text = R"({"devices": [{"name": "A", "memory_total_bytes": 1}],
    "processes": [{"device": 0, "pid_env": "GPUMETER_TEST_PID"}]})";
  unsetenv("GPUMETER_TEST_PID");
  EXPECT_NE(error_of(text).find("GPUMETER_TEST_PID (named by pid_env) is not set"),
            std::string::npos);
  setenv("GPUMETER_TEST_PID", "4321", 1);
  auto s = parse_scenario(text, "s.json");
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->processes[0].pid, 4321u);
  setenv("GPUMETER_TEST_PID", "12abc", 1);
  EXPECT_NE(error_of(text).find("holds \"12abc\", expected a pid"), std::string::npos);
  unsetenv("GPUMETER_TEST_PID");
}

TEST(ScenarioParse, AProcessFromPidEnvIsRealSoProcDescribesItNotItsHostBlock) {
  const char* text = R"({"devices": [{"name": "A", "memory_total_bytes": 1}],
    "processes": [{"device": 0, "pid_env": "GPUMETER_TEST_PID", "pid": 77,
                   "host": {"user": "svc", "command": ["python3"], "started_s": -3600}}]})";
  setenv("GPUMETER_TEST_PID", "4321", 1);
  auto real = parse_scenario(text, "s.json");
  ASSERT_TRUE(real.has_value()) << real.error().message;
  EXPECT_FALSE(real->processes[0].host.has_value());
  EXPECT_EQ(real->processes[0].start_s, -3600) << "its GPU lifetime still starts there";
  unsetenv("GPUMETER_TEST_PID");
  auto simulated = parse_scenario(text, "s.json");
  ASSERT_TRUE(simulated.has_value()) << simulated.error().message;
  ASSERT_TRUE(simulated->processes[0].host.has_value());
  EXPECT_EQ(simulated->processes[0].host->user, "svc");
}

TEST(ScenarioParse, PidEnvFallsBackToPid) {
  unsetenv("GPUMETER_TEST_PID");
  auto s = parse_scenario(R"({"devices": [{"name": "A", "memory_total_bytes": 1}],
    "processes": [{"device": 0, "pid_env": "GPUMETER_TEST_PID", "pid": 77}]})",
                          "s.json");
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->processes[0].pid, 77u);
}

TEST(ScenarioParse, ProcessHostAndLifetime) {
  auto s = parse_scenario(R"({"devices": [{"name": "A", "memory_total_bytes": 1}], "processes": [
    {"device": 0, "pid": 10, "type": ["compute", "graphics"], "used_memory_bytes": null,
     "host": {"user": "ann", "uid": 1000, "command": ["python3", "a.py"], "started_s": -60,
              "container": {"runtime": "docker", "id": "abc"}}},
    {"device": 0, "pid": 11, "host": "hidden", "start_s": 5, "end_s": 9}]})",
                          "s.json");
  ASSERT_TRUE(s.has_value()) << s.error().message;
  const ProcessSpec& a = s->processes[0];
  EXPECT_TRUE(a.types.compute && a.types.graphics && !a.types.mps);
  EXPECT_FALSE(a.memory_bytes.has_value());
  EXPECT_EQ(a.start_s, -60);  // defaults to the host's start
  ASSERT_TRUE(a.host.has_value());
  EXPECT_EQ(a.host->user, "ann");
  EXPECT_EQ(a.host->container->runtime, "docker");
  const ProcessSpec& b = s->processes[1];
  EXPECT_TRUE(b.host->hidden);
  EXPECT_TRUE(b.alive(5));
  EXPECT_FALSE(b.alive(9));
}

TEST(ScenarioParse, EndMustFollowStart) {
  EXPECT_NE(error_of(R"({"devices": [{"name": "A", "memory_total_bytes": 1}],
    "processes": [{"device": 0, "pid": 1, "start_s": 5, "end_s": 5}]})")
                .find("expected end_s after start_s"),
            std::string::npos);
}

TEST(ScenarioLoad, MissingFileIsAnIoError) {
  auto s = load_scenario("/nonexistent/scenario.json");
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::io);
  EXPECT_NE(s.error().message.find("/nonexistent/scenario.json"), std::string::npos);
}

TEST(ScenarioLoad, ErrorsNameTheFilePath) {
  const testing::TempScenario file("{\n  \"devices\": 3\n}\n");
  auto s = load_scenario(file.path());
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().message,
            file.path().string() + ":2: devices: expected an array, found a number");
}

// Up to the cap a file is read whole, across the reader's chunks; one byte more is refused.
TEST(ScenarioLoad, AFileOfTheCapIsReadOneByteMoreIsRefused) {
  const std::string scenario = R"({"devices": [{"name": "Padded", "memory_total_bytes": 1}]})";
  std::string text = scenario + std::string(kMaxScenarioBytes - scenario.size() - 1, ' ') + "\n";
  ASSERT_EQ(text.size(), kMaxScenarioBytes);
  const testing::TempScenario fits(text);
  const auto loaded = load_scenario(fits.path());
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->devices.at(0).name, "Padded");

  const testing::TempScenario over(text + " ");
  const auto refused = load_scenario(over.path());
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(
      refused.error().message,
      over.path().string() + ": larger than 16 MiB (expected a scenario file of at most 16 MiB)");
}

}  // namespace gpumeter::sim::scenario_parse_test

// SPDX-License-Identifier: MIT
// The simulated boards (sim/jetson_tree.h, sim/jetson_board.h) read back through the real
// Jetson source: every file the simulator writes is in the format the source parses, in each
// layout; a scenario's moment becomes the board's load, clocks, rails, memory and nvmap list;
// and the "jetson" block is checked as any scenario key is.
#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "core/model.h"
#include "jetson/source.h"
#include "sim/jetson_board.h"
#include "sim/jetson_tree.h"

namespace gpumeter::simulated_board_test {

using sim::Scenario;

constexpr const char* kOrin = R"({
  "jetson": {"board": "orin-nano", "serial": "42"},
  "devices": [{"name": "Orin", "memory_total_bytes": 8589934592,
               "clocks_mhz": {"graphics": 306, "memory": 2133, "video": 115},
               "max_clocks_mhz": {"graphics": 1020, "memory": 3199, "video": 1152},
               "power_limit_w": 12, "power_idle_w": 4, "temperature_c": {"idle": 40, "busy": 60}}],
  "processes": [{"device": 0, "pid": 700, "name": "detector", "used_memory_bytes": 268435456,
                 "utilization": {"sm": 50, "enc": 10}}]
})";

Scenario parsed(const std::string& text) {
  auto scenario = sim::parse_scenario(text, "board.json");
  EXPECT_TRUE(scenario.has_value()) << (scenario ? "" : scenario.error().message);
  return scenario.value_or(Scenario{});
}

// A private directory, removed at the end of the test.
class Directory {
 public:
  Directory() : path_(make()) {}
  ~Directory() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  static std::filesystem::path make() {
    std::string pattern = (std::filesystem::temp_directory_path() / "board-test-XXXXXX").string();
    EXPECT_NE(mkdtemp(pattern.data()), nullptr);
    return pattern;
  }
  std::filesystem::path path_;
};

void write(const std::filesystem::path& root, const sim::JetsonTree& tree) {
  for (const auto& [path, content] : tree) {
    const std::filesystem::path file = root / std::filesystem::path(path).relative_path();
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
  }
}

GpuReading read_back(const std::filesystem::path& root) {
  auto source = jetson::open_jetson_source({.root = root, .now = [] { return TimeUs{1'000'000}; }});
  EXPECT_TRUE(source.has_value()) << (source ? "" : source.error().message);
  if (!source) return {};
  auto reading = (*source)->read();
  EXPECT_TRUE(reading.has_value());
  return reading.value_or(GpuReading{});
}

double metric(const Device& device, DeviceMetric which) {
  const auto& value = device.state[which];
  EXPECT_TRUE(value.has_value());
  return value.value_or(-1.0);
}

TEST(SimulatedBoard, TheOrinsFilesReadBackAsTheScenarioSaysInTheL4T36Layout) {
  const Scenario scenario = parsed(kOrin);
  ASSERT_TRUE(scenario.jetson.has_value());
  const sim::Timeline timeline(scenario);
  const sim::DeviceReading reading = timeline.reading(0, 5'000'000);
  const std::vector<sim::NvmapEntry> nvmap{{700, "detector", 256U << 20U}};
  Directory root;
  write(root.path(), sim::jetson_tree(*scenario.jetson, scenario.devices.front(), reading, nvmap));
  const GpuReading read = read_back(root.path());
  ASSERT_EQ(read.devices.size(), 1U);
  const Device& gpu = read.devices.front();
  EXPECT_EQ(read.driver.driver_version.value_or(""), "L4T 36.4.7");
  EXPECT_EQ(gpu.identity.name.value_or(""), "Orin");
  EXPECT_EQ(gpu.identity.uuid.value_or(""), "JETSON-42");
  EXPECT_EQ(gpu.identity.architecture.value_or(""), "Ampere");
  EXPECT_DOUBLE_EQ(metric(gpu, DeviceMetric::utilization_gpu), 50.0);
  EXPECT_DOUBLE_EQ(metric(gpu, DeviceMetric::clock_graphics), 663.0);
  EXPECT_DOUBLE_EQ(metric(gpu, DeviceMetric::clock_graphics_max), 1020.0);
  EXPECT_DOUBLE_EQ(metric(gpu, DeviceMetric::clock_memory), 2666.0);
  EXPECT_DOUBLE_EQ(metric(gpu, DeviceMetric::temperature), 50.0);
  // 8 W through the rail: 5.056 V x 1.582 A (the current in whole mA).
  EXPECT_NEAR(metric(gpu, DeviceMetric::power_draw), 8.0, 0.005);
  EXPECT_DOUBLE_EQ(metric(gpu, DeviceMetric::memory_total), 8589934592.0);
  EXPECT_DOUBLE_EQ(metric(gpu, DeviceMetric::memory_used), 268435456.0);  // nvmap's sum
  ASSERT_TRUE(gpu.processes.has_value());
  ASSERT_EQ(gpu.processes->size(), 1U);
  EXPECT_EQ(gpu.processes->front().pid, 700U);
  ASSERT_TRUE(gpu.board.has_value());
  EXPECT_EQ(gpu.board->rails.size(), 3U);
  ASSERT_TRUE(gpu.board->engines.has_value());
  EXPECT_EQ(gpu.board->engines->size(), 4U);
}

TEST(SimulatedBoard, TheNanosFilesUseTheL4T32Layout) {
  std::string text = kOrin;
  text.replace(text.find("orin-nano"), 9, "nano");
  const Scenario scenario = parsed(text);
  ASSERT_TRUE(scenario.jetson.has_value());
  const sim::Timeline timeline(scenario);
  Directory root;
  write(root.path(), sim::jetson_tree(*scenario.jetson, scenario.devices.front(),
                                      timeline.reading(0, 5'000'000), {}));
  const GpuReading read = read_back(root.path());
  ASSERT_EQ(read.devices.size(), 1U);
  const Device& gpu = read.devices.front();
  EXPECT_EQ(read.driver.driver_version.value_or(""), "L4T 32.7.1");
  EXPECT_EQ(gpu.identity.architecture.value_or(""), "Maxwell");
  EXPECT_DOUBLE_EQ(metric(gpu, DeviceMetric::memory_used), 0.0);   // NvMapMemUsed
  EXPECT_NEAR(metric(gpu, DeviceMetric::power_draw), 8.0, 0.005);  // iio's power file
  ASSERT_TRUE(gpu.board.has_value());
  EXPECT_EQ(gpu.board->rails.front().name, "POM_5V_IN");
}

TEST(SimulatedBoard, TheBoardKeepsItsFilesMovingAndRemovesThem) {
  // Frozen at t = 1 s of a fixed epoch, then moved to t = 3 s: the load follows the script.
  setenv("GPUMETER_SIM_EPOCH_US", "1000000000000000", 1);
  setenv("GPUMETER_SIM_NOW_US", "1000000001000000", 1);
  std::string text = kOrin;
  text.replace(text.find("\"sm\": 50"), 8, R"("sm": {"steps": [[0, 20], [2, 90]]})");
  auto board = sim::SimulatedJetson::start(parsed(text), "moving.json");
  ASSERT_TRUE(board.has_value()) << board.error().message;
  const std::filesystem::path root = (*board)->root();
  EXPECT_DOUBLE_EQ(metric(read_back(root).devices.front(), DeviceMetric::utilization_gpu), 20.0);
  setenv("GPUMETER_SIM_NOW_US", "1000000003000000", 1);
  double load = 0;
  for (int i = 0; i < 200 && load != 90.0; ++i) {  // the board's thread rewrites every 50 ms
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    load = metric(read_back(root).devices.front(), DeviceMetric::utilization_gpu);
  }
  EXPECT_DOUBLE_EQ(load, 90.0);
  board->reset();
  EXPECT_FALSE(std::filesystem::exists(root));
  unsetenv("GPUMETER_SIM_NOW_US");
  unsetenv("GPUMETER_SIM_EPOCH_US");
}

TEST(SimulatedBoard, TheJetsonBlockIsChecked) {
  const auto unknown = sim::parse_scenario(
      R"({"jetson": {"board": "thor"}, "devices": [{"name": "x", "memory_total_bytes": 1}]})",
      "b.json");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("b.json:1: jetson.board: expected \"orin-nano\" or "
                                         "\"nano\", found \"thor\""),
            std::string::npos)
      << unknown.error().message;
  const auto two = sim::parse_scenario(
      R"({"jetson": {"board": "nano"},
          "devices": [{"name": "a", "memory_total_bytes": 1}, {"name": "b", "memory_total_bytes": 1}]})",
      "two.json");
  ASSERT_FALSE(two.has_value());
  EXPECT_NE(two.error().message.find("expected one device, found 2"), std::string::npos)
      << two.error().message;
  const auto typo = sim::parse_scenario(
      R"({"jetson": {"board": "nano", "serail": "1"}, "devices": [{"name": "a", "memory_total_bytes": 1}]})",
      "typo.json");
  ASSERT_FALSE(typo.has_value());
  const auto plain = sim::SimulatedJetson::start(parsed(R"({"devices": []})"), "plain.json");
  ASSERT_FALSE(plain.has_value());
  EXPECT_EQ(plain.error().code, ErrorCode::invalid_input);
}

}  // namespace gpumeter::simulated_board_test

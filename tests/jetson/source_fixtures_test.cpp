// SPDX-License-Identifier: MIT
// The Jetson source over a fixture tree of each board generation: what `list` and the daemon
// get from it.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "jetson/source.h"

namespace gpumeter::jetson::source_fixtures_test {

const std::string kFixtures = GPUMETER_JETSON_FIXTURES;

struct BoardCase {
  std::string tree;
  std::string model;
  std::string driver;
  std::string architecture;
  double load_percent;
  double clock_mhz;
  double max_clock_mhz;
  std::optional<double> memory_clock_mhz;
  double gpu_celsius;
  std::optional<double> input_watts;
  double memory_total_bytes;
  std::optional<double> memory_used_bytes;
  // pid and bytes of each process nvmap lists; absent: no list to read
  std::optional<std::vector<std::pair<Pid, std::uint64_t>>> processes;
  std::vector<std::string> rails;            // in the order the board's monitors list them
  std::size_t temperature_sensors;           // PMIC-Die is not one
  std::optional<double> emc_load_percent{};  // actmon's activity over the EMC clock
};

void PrintTo(const BoardCase& board, std::ostream* out) {
  *out << board.tree;
}

class JetsonFixture : public testing::TestWithParam<BoardCase> {
 protected:
  static std::unique_ptr<GpuSource> open(const std::string& tree, std::function<TimeUs()> now) {
    auto source = open_jetson_source({.root = kFixtures + "/" + tree, .now = std::move(now)});
    EXPECT_TRUE(source) << source.error().message;
    return source ? std::move(*source) : nullptr;
  }
};

void expect_near(const Maybe<double>& value, std::optional<double> expected, const char* what) {
  if (!expected) {
    EXPECT_FALSE(value) << what;
    return;
  }
  ASSERT_TRUE(value) << what << ": " << to_string(value.error());
  EXPECT_NEAR(*value, *expected, 1e-6) << what;
}

TEST_P(JetsonFixture, OneIntegratedGpuWithTheBoardsFigures) {
  const BoardCase& board = GetParam();
  TimeUs now = 1'800'000'000'000'000;
  auto source = open(board.tree, [&now] { return now; });
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->name(), "jetson");
  auto reading = source->read();
  ASSERT_TRUE(reading) << reading.error().message;
  EXPECT_EQ(reading->driver.driver_version, board.driver);
  EXPECT_EQ(reading->driver.nvml_version.error(), Unavailable::not_supported);
  ASSERT_EQ(reading->devices.size(), 1U);
  const Device& device = reading->devices.front();
  EXPECT_EQ(device.identity.index, 0U);
  EXPECT_EQ(device.identity.name, board.model);
  EXPECT_EQ(device.identity.architecture, board.architecture);
  ASSERT_TRUE(device.identity.uuid);
  EXPECT_TRUE(device.identity.uuid->starts_with("JETSON-")) << *device.identity.uuid;
  EXPECT_EQ(device.identity.uuid, "JETSON-" + *device.identity.serial);
  EXPECT_EQ(device.identity.pci_bus_id.error(), Unavailable::not_supported);
  const DeviceState& state = device.state;
  expect_near(state[DeviceMetric::utilization_gpu], board.load_percent, "load");
  expect_near(state[DeviceMetric::clock_graphics], board.clock_mhz, "clock");
  expect_near(state[DeviceMetric::clock_sm], board.clock_mhz, "SM clock");
  expect_near(state[DeviceMetric::clock_graphics_max], board.max_clock_mhz, "max clock");
  expect_near(state[DeviceMetric::clock_memory], board.memory_clock_mhz, "EMC clock");
  expect_near(state[DeviceMetric::utilization_memory], board.emc_load_percent, "EMC load");
  expect_near(state[DeviceMetric::temperature], board.gpu_celsius, "temperature");
  expect_near(state[DeviceMetric::power_draw], board.input_watts, "power");
  expect_near(state[DeviceMetric::memory_total], board.memory_total_bytes, "memory total");
  expect_near(state[DeviceMetric::memory_used], board.memory_used_bytes, "memory used");
  for (const DeviceMetric absent :
       {DeviceMetric::fan_speed, DeviceMetric::pcie_tx, DeviceMetric::ecc_errors_corrected,
        DeviceMetric::gpm_sm_activity}) {
    EXPECT_EQ(state[absent].error(), Unavailable::not_supported) << spec(absent).key;
  }
  ASSERT_TRUE(device.board);
  std::vector<std::string> rails;
  for (const PowerRail& rail : device.board->rails) {
    rails.push_back(rail.name);
    ASSERT_TRUE(rail.volts && rail.amperes && rail.watts) << rail.name;
    EXPECT_NEAR(*rail.watts, *rail.volts * *rail.amperes, 0.001) << rail.name;
  }
  EXPECT_EQ(rails, board.rails);
  EXPECT_EQ(device.board->temperatures.size(), board.temperature_sensors);
  if (!board.processes) {
    ASSERT_FALSE(device.processes);
    EXPECT_EQ(device.processes.error(), Unavailable::not_supported);
    return;
  }
  ASSERT_TRUE(device.processes);
  ASSERT_EQ(device.processes->size(), board.processes->size());
  for (std::size_t i = 0; i < board.processes->size(); ++i) {
    EXPECT_EQ((*device.processes)[i].pid, (*board.processes)[i].first);
    EXPECT_EQ((*device.processes)[i].used_memory_bytes, (*board.processes)[i].second);
  }
  const std::uint32_t gpu0 = 0;
  const auto held = source->process_memory(board.processes->front().first, {&gpu0, 1});
  ASSERT_TRUE(held);
  EXPECT_EQ(held->at(0), board.processes->front().second);
}

// The energy counter integrates the input rail's power over the time between readings.
TEST_P(JetsonFixture, EnergyCountsTheInputRailsPowerOverTime) {
  const BoardCase& board = GetParam();
  TimeUs now = 1'800'000'000'000'000;
  auto source = open(board.tree, [&now] { return now; });
  ASSERT_NE(source, nullptr);
  const auto first = source->read();
  now += 2 * kSecondUs;
  const auto second = source->read();
  ASSERT_TRUE(first && second);
  const Maybe<double>& energy = second->devices.front().state[DeviceMetric::energy];
  if (!board.input_watts) {
    EXPECT_EQ(energy.error(), Unavailable::not_supported);
    return;
  }
  EXPECT_DOUBLE_EQ(*first->devices.front().state[DeviceMetric::energy], 0.0);
  EXPECT_NEAR(*energy, 2.0 * *board.input_watts, 1e-9);
}

constexpr double kKiB = 1024.0;

INSTANTIATE_TEST_SUITE_P(
    Boards, JetsonFixture,
    testing::Values(
        // Nano: iio rails (power in mW from the driver), the EMC clock in the clock framework,
        // NvMapMemUsed in /proc/meminfo, a process listed as two clients.
        BoardCase{"nano-l4t32",
                  "NVIDIA Jetson Nano Developer Kit",
                  "L4T 32.7.1",
                  "Maxwell",
                  90.0,
                  921.6,
                  921.6,
                  1600.0,
                  38.0,
                  7.344,
                  4051048 * kKiB,
                  262144 * kKiB,
                  std::vector<std::pair<Pid, std::uint64_t>>{{4711, 24576ULL * 1024},
                                                             {5120, 237568ULL * 1024}},
                  {"POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"},
                  5,
                  16.0},  // 256,000 kHz of 1,600 MHz
        // TX2: two monitors, the input rail on the second; no nvmap list.
        BoardCase{
            "tx2-l4t32",
            "quill",
            "L4T 32.7.3",
            "Pascal",
            45.5,
            1300.5,
            1300.5,
            1866.0,
            39.0,
            7.406,
            8038788 * kKiB,
            98304 * kKiB,
            std::nullopt,
            {"VDD_SYS_GPU", "VDD_SYS_SOC", "VDD_4V0_WIFI", "VDD_IN", "VDD_SYS_CPU", "VDD_SYS_DDR"},
            7},
        // Xavier NX: hwmon rails (power from voltage and current), GPU memory from nvmap's
        // clients where /proc/meminfo has no NvMapMemUsed.
        BoardCase{"xavier-nx-l4t35",
                  "NVIDIA Jetson Xavier NX Developer Kit",
                  "L4T 35.4.1",
                  "Volta",
                  12.3,
                  1109.25,
                  1109.25,
                  1866.0,
                  37.0,
                  5.024 * 1.240,
                  7765184 * kKiB,
                  (524288 + 40960) * kKiB,
                  std::vector<std::pair<Pid, std::uint64_t>>{{2048, 40960ULL * 1024},
                                                             {31337, 524288ULL * 1024}},
                  {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"},
                  7},
        // Orin Nano: the L4T 36 layout ("gpu" node, 17000000.gpu), CV sensors off.
        BoardCase{"orin-nano-l4t36",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super",
                  "L4T 36.4.7",
                  "Ampere",
                  61.2,
                  1020.0,
                  1020.0,
                  3199.0,
                  44.312,
                  5.056 * 1.232,
                  7802652 * kKiB,
                  1310720 * kKiB,
                  std::vector<std::pair<Pid, std::uint64_t>>{
                      {977, 65536ULL * 1024}, {1893, 65536ULL * 1024}, {24012, 1179648ULL * 1024}},
                  {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"},
                  9,
                  20.0}));  // 639,800 kHz of 3,199 MHz (the central actmon, debugfs)

// Engines by their clocks (debugfs): helper clocks ("nvdec.buf") and other clocks ("emc",
// "gpcclk") are not engines; a board read without the clock directory has none to show.
TEST(JetsonSource, EnginesAreReadFromTheirClocks) {
  const auto engines_of = [](const std::string& tree) {
    auto source = open_jetson_source({.root = kFixtures + "/" + tree, .now = {}});
    EXPECT_TRUE(source);
    auto reading = (*source)->read();
    EXPECT_TRUE(reading && reading->devices.front().board);
    return reading->devices.front().board->engines;
  };
  const auto orin = engines_of("orin-nano-l4t36");
  ASSERT_TRUE(orin);
  std::vector<std::string> on;
  std::vector<std::string> all;
  for (const EngineClock& engine : *orin) {
    all.push_back(engine.name);
    ASSERT_TRUE(engine.on && engine.clock_mhz) << engine.name;
    if (*engine.on) on.push_back(engine.name);
  }
  EXPECT_EQ(all, (std::vector<std::string>{"nvdec", "nvenc", "nvjpg", "nvjpg1", "ofa", "pva0_vps0",
                                           "vic"}));
  EXPECT_EQ(on, (std::vector<std::string>{"nvenc", "vic"}));
  EXPECT_DOUBLE_EQ(*orin->at(1).clock_mhz, 115.2);
  const auto nano = engines_of("nano-l4t32");
  ASSERT_TRUE(nano);
  EXPECT_EQ(nano->size(), 6U);  // ape msenc nvdec nvjpg se vic03; not gpcclk
  EXPECT_EQ(engines_of("tx2-l4t32").error(), Unavailable::not_supported);
}

TEST(JetsonSource, ATegraBoardWithoutItsGpuNodeSaysSo) {
  const auto source = open_jetson_source({.root = kFixtures + "/tegra-without-gpu", .now = {}});
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().code, ErrorCode::library_not_found);
  EXPECT_NE(source.error().message.find("no integrated GPU found under"), std::string::npos)
      << source.error().message;
}

TEST(JetsonSource, AnotherMachineIsNotAJetson) {
  const auto source = open_jetson_source({.root = kFixtures + "/nowhere", .now = {}});
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().code, ErrorCode::library_not_found);
  EXPECT_NE(source.error().message.find("not a Jetson board under"), std::string::npos);
}

}  // namespace gpumeter::jetson::source_fixtures_test

// SPDX-License-Identifier: MIT
// The backend through the real dlopen path against the simulated library: every field of a
// scripted device, unsupported fields, faults and lost GPUs.
#include <gtest/gtest.h>

#include "support/sim_backend.h"

namespace gpumeter::nvml::backend_sim_test {

using enum DeviceMetric;
using testing::SimBackendTest;

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Device 0 runs flat out (one process at 100 % SM), so its readings are the scenario's
// "busy" values; device 1 is idle and shows its "idle" values.
constexpr std::string_view kTwoDevices = R"({
  "driver": {"driver_version": "550.54.15", "nvml_version": "12.550.54.15",
             "cuda_driver_version": 12040},
  "devices": [
    {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-11111111-2222-4333-8444-555555555555",
     "serial": "1652123456789",
     "pci": {"bus_id": "00000000:19:00.0", "device_id": "0x233010DE",
             "subsystem_id": "0x16C110DE", "tx_kbps": 5000, "rx_kbps": 20000},
     "minor_number": 3, "architecture": "hopper", "compute_capability": "9.0",
     "memory_total_bytes": 85520809984, "memory_reserved_bytes": 553648128,
     "clocks_mhz": {"graphics": 345, "sm": 345, "memory": 2619, "video": 765},
     "max_clocks_mhz": {"graphics": 1980, "sm": 1755, "memory": 2619, "video": 1545},
     "power_limit_w": 700, "power_idle_w": 70, "fan_percent": {"idle": 20, "busy": 45},
     "temperature_c": {"idle": 30, "busy": 66}, "pstate": {"idle": 8, "busy": 0},
     "ecc_errors": {"corrected": 12, "uncorrected": 1},
     "compute_mode": "exclusive_process", "persistence_mode": true,
     "energy_offset_mj": 987654321},
    {"name": "NVIDIA L4", "uuid": "GPU-aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
     "pci": {"bus_id": "00000000:B4:00.0"}, "minor_number": 7,
     "architecture": "ada", "compute_capability": "8.9",
     "memory_total_bytes": 24152899584, "memory_reserved_bytes": 374341632,
     "clocks_mhz": {"graphics": 210, "sm": 210, "memory": 405, "video": 795},
     "max_clocks_mhz": {"graphics": 2040, "sm": 2040, "memory": 6251, "video": 1770},
     "power_limit_w": 72, "power_idle_w": 16, "temperature_c": {"idle": 34, "busy": 70},
     "pstate": {"idle": 8, "busy": 2}, "persistence_mode": false,
     "unsupported": ["fan", "ecc"]}
  ],
  "processes": [
    {"device": 0, "pid": 4242, "type": ["compute", "graphics"], "used_memory_bytes": 8589934592,
     "utilization": {"sm": 100, "mem": 40, "enc": 10, "dec": 5}, "start_s": -100},
    {"device": 0, "pid": 4343, "type": "mps", "used_memory_bytes": null,
     "utilization": {"sm": 0}, "start_s": -100}
  ]
})";

TEST_F(SimBackendTest, DriverInfo) {
  auto source = open(kTwoDevices);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->name(), "nvml");
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  EXPECT_EQ(reading->driver.driver_version, "550.54.15");
  EXPECT_EQ(reading->driver.nvml_version, "12.550.54.15");
  EXPECT_EQ(reading->driver.cuda_driver_version, "12.4");
  EXPECT_EQ(reading->devices.size(), 2u);
}

TEST_F(SimBackendTest, IdentityOfAScriptedDevice) {
  auto source = open(kTwoDevices);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  const DeviceIdentity& id = reading->devices.at(0).identity;
  EXPECT_EQ(id.index, 0u);
  EXPECT_EQ(id.uuid, "GPU-11111111-2222-4333-8444-555555555555");
  EXPECT_EQ(id.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(id.serial, "1652123456789");
  EXPECT_EQ(id.pci_bus_id, "00000000:19:00.0");
  EXPECT_EQ(id.minor_number, 3u);
  EXPECT_EQ(id.architecture, "Hopper");
  ASSERT_TRUE(id.compute_capability.has_value());
  EXPECT_EQ(id.compute_capability->major, 9);
  EXPECT_EQ(id.compute_capability->minor, 0);
  const DeviceIdentity& l4 = reading->devices.at(1).identity;
  EXPECT_EQ(l4.index, 1u);
  EXPECT_EQ(l4.architecture, "Ada Lovelace");
  EXPECT_EQ(l4.pci_bus_id, "00000000:B4:00.0");
  EXPECT_EQ(l4.minor_number, 7u);
  EXPECT_EQ(l4.serial, std::unexpected(Unavailable::not_supported));
}

TEST_F(SimBackendTest, EveryMetricOfABusyDevice) {
  auto source = open(kTwoDevices);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  const Device& device = reading->devices.at(0);
  EXPECT_FALSE(device.lost);
  const DeviceState& s = device.state;
  EXPECT_EQ(s[utilization_gpu], 100.0);
  EXPECT_EQ(s[utilization_memory], 40.0);
  EXPECT_EQ(s[utilization_encoder], 10.0);
  EXPECT_EQ(s[utilization_decoder], 5.0);
  EXPECT_EQ(s[memory_total], 85520809984.0);
  EXPECT_EQ(s[memory_reserved], 553648128.0);
  EXPECT_EQ(s[memory_used], 8.0 * kGiB);
  EXPECT_EQ(s[memory_free], 85520809984.0 - 553648128.0 - 8.0 * kGiB);
  EXPECT_EQ(s[temperature], 66.0);
  EXPECT_EQ(s[fan_speed], 45.0);
  EXPECT_EQ(s[power_draw], 700.0);
  EXPECT_EQ(s[power_limit], 700.0);
  EXPECT_EQ(s[energy], 987654.321);
  EXPECT_EQ(s[clock_sm], 1755.0);
  EXPECT_EQ(s[clock_graphics], 1980.0);
  EXPECT_EQ(s[clock_memory], 2619.0);
  EXPECT_EQ(s[clock_sm_max], 1755.0);
  EXPECT_EQ(s[clock_graphics_max], 1980.0);
  EXPECT_EQ(s[clock_memory_max], 2619.0);
  EXPECT_EQ(s[performance_state], 0.0);
  EXPECT_EQ(s[pcie_tx], 5000.0 * 1024);
  EXPECT_EQ(s[pcie_rx], 20000.0 * 1024);
  EXPECT_EQ(s[ecc_errors_corrected], 12.0);
  EXPECT_EQ(s[ecc_errors_uncorrected], 1.0);
  EXPECT_EQ(s.compute_mode, ComputeMode::exclusive_process);
  EXPECT_EQ(s.persistence_mode, true);
}

TEST_F(SimBackendTest, IdleDeviceAndUnsupportedFields) {
  auto source = open(kTwoDevices);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  const Device& device = reading->devices.at(1);
  const DeviceState& s = device.state;
  EXPECT_EQ(s[utilization_gpu], 0.0);
  EXPECT_EQ(s[memory_used], 0.0);
  EXPECT_EQ(s[memory_free], 24152899584.0 - 374341632.0);
  EXPECT_EQ(s[temperature], 34.0);
  EXPECT_EQ(s[power_draw], 16.0);
  EXPECT_EQ(s[power_limit], 72.0);
  EXPECT_EQ(s[clock_sm], 210.0);
  EXPECT_EQ(s[clock_sm_max], 2040.0);
  EXPECT_EQ(s[clock_memory_max], 6251.0);
  EXPECT_EQ(s[performance_state], 8.0);
  EXPECT_EQ(s[pcie_tx], 0.0);
  EXPECT_EQ(s[fan_speed], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(s[ecc_errors_corrected], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(s[ecc_errors_uncorrected], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(s.compute_mode, ComputeMode::default_mode);
  EXPECT_EQ(s.persistence_mode, false);
  ASSERT_TRUE(device.processes.has_value());
  EXPECT_TRUE(device.processes->empty());
}

TEST_F(SimBackendTest, ProcessesMergedAcrossLists) {
  auto source = open(kTwoDevices);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  const auto& processes = reading->devices.at(0).processes;
  ASSERT_TRUE(processes.has_value());
  ASSERT_EQ(processes->size(), 2u);
  const GpuProcess& trainer = (*processes)[0];
  EXPECT_EQ(trainer.pid, 4242u);
  EXPECT_TRUE(trainer.contexts.compute);
  EXPECT_TRUE(trainer.contexts.graphics);
  EXPECT_FALSE(trainer.contexts.mps);
  EXPECT_EQ(trainer.used_memory_bytes, 8ull << 30);
  EXPECT_FALSE(trainer.mig.has_value());
  const GpuProcess& client = (*processes)[1];
  EXPECT_EQ(client.pid, 4343u);
  EXPECT_TRUE(client.contexts.mps);
  EXPECT_FALSE(client.contexts.compute);
  EXPECT_EQ(client.used_memory_bytes, std::unexpected(Unavailable::not_supported));
}

TEST_F(SimBackendTest, ProcessMemoryNowReadsOnlyTheProcessLists) {
  auto source = open(kTwoDevices);
  ASSERT_NE(source, nullptr);
  // Before any read(): the lists alone, for a task's edge; 0 where they do not name it.
  const std::vector<std::uint32_t> both{0, 1};
  const auto trainer = source->process_memory(4242, both);
  ASSERT_TRUE(trainer.has_value());
  EXPECT_EQ(*trainer, (std::map<std::uint32_t, std::uint64_t>{{0, 8ull << 30}, {1, 0}}));
  const std::vector<std::uint32_t> second{1};
  EXPECT_EQ(source->process_memory(4242, second), (std::map<std::uint32_t, std::uint64_t>{{1, 0}}))
      << "only the GPUs asked about are read";
  const auto absent = source->process_memory(999, both);
  ASSERT_TRUE(absent.has_value());
  EXPECT_EQ(*absent, (std::map<std::uint32_t, std::uint64_t>{{0, 0}, {1, 0}}));
  // Listed with "N/A" for its memory: what it holds cannot be told.
  EXPECT_EQ(source->process_memory(4343, both), std::unexpected(Unavailable::not_supported));
}

TEST_F(SimBackendTest, ProcessMemoryNowWithoutProcessListsIsNotSupported) {
  auto source = open(R"({"devices": [{"name": "Integrated", "uuid": "GPU-0",
    "memory_total_bytes": 0, "unsupported": ["processes", "mps"]}]})");
  ASSERT_NE(source, nullptr);
  const std::vector<std::uint32_t> first{0};
  EXPECT_EQ(source->process_memory(4242, first), std::unexpected(Unavailable::not_supported));
}

// A board that offers nothing optional: every metric is not_supported, nothing fails.
TEST_F(SimBackendTest, EverythingUnsupported) {
  auto source =
      open(R"({"devices": [{"name": "Integrated", "uuid": "GPU-0", "memory_total_bytes": 0,
    "unsupported": ["serial", "fan", "ecc", "power", "power_limit", "energy", "temperature",
      "clocks", "encoder", "decoder", "pcie", "pstate", "utilization", "process_utilization",
      "memory", "processes", "mps", "accounting", "persistence_mode", "compute_mode",
      "minor_number", "events"]}]})");
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  const Device& device = reading->devices.at(0);
  for (const MetricSpec& row : device_metrics()) {
    EXPECT_EQ(device.state[row.id], std::unexpected(Unavailable::not_supported)) << row.key;
  }
  EXPECT_EQ(device.state.compute_mode, std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(device.state.persistence_mode, std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(device.processes, std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(device.identity.serial, std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(device.identity.minor_number, std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(device.identity.uuid, "GPU-0");
  EXPECT_FALSE(device.lost);
}

constexpr std::string_view kLostAtFive = R"({
  "devices": [
    {"name": "NVIDIA A100-SXM4-40GB", "uuid": "GPU-00000000-0000-4000-8000-000000000000",
     "memory_total_bytes": 42949672960, "architecture": "ampere"},
    {"name": "NVIDIA A100-SXM4-40GB", "uuid": "GPU-11111111-1111-4111-8111-111111111111",
     "memory_total_bytes": 42949672960, "architecture": "ampere"}
  ],
  "processes": [
    {"device": 1, "pid": 61044, "used_memory_bytes": 1073741824, "utilization": {"sm": 97}}
  ],
  "faults": {"lost": [{"device": 1, "at_s": 5}]}
})";

TEST_F(SimBackendTest, LostGpuKeepsItsIdentityAndSpoilsNothingElse) {
  auto source = open(kLostAtFive, 0);
  ASSERT_NE(source, nullptr);
  auto before = source->read();
  ASSERT_TRUE(before.has_value()) << before.error().message;
  EXPECT_FALSE(before->devices.at(1).lost);
  at(10);
  auto after = source->read();
  ASSERT_TRUE(after.has_value()) << after.error().message;
  const Device& lost = after->devices.at(1);
  EXPECT_TRUE(lost.lost);
  EXPECT_EQ(lost.identity.uuid, "GPU-11111111-1111-4111-8111-111111111111");
  EXPECT_EQ(lost.identity.architecture, "Ampere");
  for (const auto& value : lost.state.metrics) {
    EXPECT_EQ(value, std::unexpected(Unavailable::gpu_lost));
  }
  EXPECT_EQ(lost.processes, std::unexpected(Unavailable::gpu_lost));
  const Device& healthy = after->devices.at(0);
  EXPECT_FALSE(healthy.lost);
  EXPECT_EQ(healthy.state[memory_total], 42949672960.0);
  EXPECT_TRUE(healthy.processes.has_value());
}

TEST_F(SimBackendTest, GpuLostBeforeTheFirstReadStillAppears) {
  auto source = open(kLostAtFive, 6);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  ASSERT_EQ(reading->devices.size(), 2u);
  const Device& lost = reading->devices.at(1);
  EXPECT_TRUE(lost.lost);
  EXPECT_EQ(lost.identity.index, 1u);
  EXPECT_EQ(lost.identity.uuid, std::unexpected(Unavailable::gpu_lost));
  EXPECT_EQ(lost.state[power_draw], std::unexpected(Unavailable::gpu_lost));
  EXPECT_FALSE(reading->devices.at(0).lost);
}

constexpr std::string_view kFlakyPower = R"({
  "devices": [
    {"name": "NVIDIA L4", "uuid": "GPU-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
     "memory_total_bytes": 24152899584, "power_limit_w": 72, "power_idle_w": 16,
     "temperature_c": 40}
  ],
  "faults": {"flaky": [{"functions": ["nvmlDeviceGetPowerUsage"], "every": 2, "code": "UNKNOWN"}]}
})";

TEST_F(SimBackendTest, IntermittentFailureAffectsOnlyThatField) {
  auto source = open(kFlakyPower);
  ASSERT_NE(source, nullptr);
  for (int read = 1; read <= 4; ++read) {
    auto reading = source->read();
    ASSERT_TRUE(reading.has_value()) << reading.error().message;
    const Device& device = reading->devices.at(0);
    if (read % 2 == 0) {
      EXPECT_EQ(device.state[power_draw], std::unexpected(Unavailable::error)) << read;
    } else {
      EXPECT_EQ(device.state[power_draw], 16.0) << read;
    }
    EXPECT_EQ(device.state[power_limit], 72.0) << read;
    EXPECT_EQ(device.state[temperature], 40.0) << read;
    EXPECT_EQ(device.identity.uuid, "GPU-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d") << read;
    EXPECT_FALSE(device.lost) << read;
  }
}

// Identity is read once and kept: a name lookup that would fail on the second read is
// never made.
TEST_F(SimBackendTest, IdentityIsReadOnceAndKept) {
  auto source = open(R"({
    "devices": [{"name": "NVIDIA L4", "uuid": "GPU-a", "memory_total_bytes": 1024}],
    "faults": {"flaky": [{"functions": ["nvmlDeviceGetName"], "every": 2, "code": "UNKNOWN"}]}})");
  ASSERT_NE(source, nullptr);
  for (int read = 1; read <= 3; ++read) {
    auto reading = source->read();
    ASSERT_TRUE(reading.has_value()) << reading.error().message;
    EXPECT_EQ(reading->devices.at(0).identity.name, "NVIDIA L4") << read;
  }
}

// A failing identity field is absent with its reason; the rest of the device reads.
TEST_F(SimBackendTest, FailingIdentityFieldAffectsOnlyThatField) {
  auto source = open(R"({
    "devices": [{"name": "NVIDIA L4", "uuid": "GPU-a", "memory_total_bytes": 1024}],
    "faults": {"flaky": [{"functions": ["nvmlDeviceGetName"], "every": 1, "code": "TIMEOUT"}]}})");
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  EXPECT_EQ(reading->devices.at(0).identity.name, std::unexpected(Unavailable::error));
  EXPECT_EQ(reading->devices.at(0).identity.uuid, "GPU-a");
  EXPECT_EQ(reading->devices.at(0).state[memory_total], 1024.0);
}

TEST_F(SimBackendTest, RefusedHandleStillListsTheDevice) {
  auto source = open(R"({
    "devices": [{"name": "A", "uuid": "GPU-a", "memory_total_bytes": 1024},
                {"name": "B", "uuid": "GPU-b", "memory_total_bytes": 1024}],
    "faults": {"flaky": [{"functions": ["nvmlDeviceGetHandleByIndex_v2"], "every": 1,
                          "code": "NO_PERMISSION"}]}})");
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  ASSERT_EQ(reading->devices.size(), 2u);
  for (std::uint32_t i = 0; i < 2; ++i) {
    const Device& device = reading->devices[i];
    EXPECT_EQ(device.identity.index, i);
    EXPECT_EQ(device.identity.uuid, std::unexpected(Unavailable::no_permission));
    EXPECT_EQ(device.state[memory_total], std::unexpected(Unavailable::no_permission));
    EXPECT_EQ(device.processes, std::unexpected(Unavailable::no_permission));
    EXPECT_FALSE(device.lost);
  }
}

TEST_F(SimBackendTest, FailingDeviceCountFailsTheRead) {
  auto source = open(R"({
    "devices": [{"name": "A", "uuid": "GPU-a", "memory_total_bytes": 1024}],
    "faults": {"flaky": [{"functions": ["nvmlDeviceGetCount_v2"], "every": 1, "code": "UNKNOWN"}]}})");
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_FALSE(reading.has_value());
  EXPECT_EQ(reading.error().code, ErrorCode::driver_failed);
  EXPECT_NE(reading.error().message.find("could not count the GPUs"), std::string::npos)
      << reading.error().message;
  EXPECT_NE(reading.error().message.find("UNKNOWN (999)"), std::string::npos)
      << reading.error().message;
}

TEST_F(SimBackendTest, FailingInitIsDriverFailed) {
  write_scenario(R"({"devices": [], "faults": {"init": "DRIVER_NOT_LOADED"}})");
  at(0);
  auto source = open_nvml_source({testing::kSimLibrary});
  ASSERT_FALSE(source.has_value());
  EXPECT_EQ(source.error().code, ErrorCode::driver_failed);
  EXPECT_NE(source.error().message.find("DRIVER_NOT_LOADED (9)"), std::string::npos)
      << source.error().message;
  EXPECT_EQ(source.error().message.find('\n'), std::string::npos);
}

TEST_F(SimBackendTest, NoDevicesIsAnEmptyReading) {
  auto source = open(R"({"devices": []})");
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  EXPECT_TRUE(reading->devices.empty());
  EXPECT_TRUE(reading->driver.driver_version.has_value());
}

}  // namespace gpumeter::nvml::backend_sim_test

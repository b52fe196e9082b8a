// SPDX-License-Identifier: MIT
// The backend against builds of the simulated library that emulate older drivers: the
// 535.43.02-535.86.05 window whose _v3 process calls write 32-byte elements, and a ~470
// driver without the versioned calls.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <bit>

#include "nvml/library.h"
#include "nvml/processes.h"
#include "support/sim_backend.h"

namespace gpumeter::nvml::driver_variants_test {

using enum DeviceMetric;
using testing::kSimLegacyLibrary;
using testing::kSimR535Library;
using testing::SimBackendTest;

constexpr std::string_view kScenario = R"({
  "devices": [
    {"name": "NVIDIA A100-PCIE-40GB", "uuid": "GPU-12345678-9abc-4def-8123-456789abcdef",
     "pci": {"bus_id": "00000000:3B:00.0"}, "architecture": "ampere",
     "compute_capability": "8.0", "memory_total_bytes": 42949672960,
     "memory_reserved_bytes": 633339904, "temperature_c": 41}
  ],
  "processes": [
    {"device": 0, "pid": 3101, "used_memory_bytes": 2147483648, "utilization": {"sm": 30}},
    {"device": 0, "pid": 3102, "used_memory_bytes": 1073741824, "utilization": {"sm": 20}},
    {"device": 0, "pid": 3103, "type": "graphics", "used_memory_bytes": 536870912,
     "utilization": {"sm": 10}}
  ]
})";

void expect_the_three_processes(const Device& device) {
  ASSERT_TRUE(device.processes.has_value());
  ASSERT_EQ(device.processes->size(), 3u);
  const auto& p = *device.processes;
  EXPECT_EQ(p[0].pid, 3101u);
  EXPECT_EQ(p[0].used_memory_bytes, 2ull << 30);
  EXPECT_TRUE(p[0].contexts.compute);
  EXPECT_EQ(p[1].pid, 3102u);
  EXPECT_EQ(p[1].used_memory_bytes, 1ull << 30);
  EXPECT_EQ(p[2].pid, 3103u);
  EXPECT_EQ(p[2].used_memory_bytes, 512ull << 20);
  EXPECT_TRUE(p[2].contexts.graphics);
  EXPECT_FALSE(p[2].contexts.compute);
}

TEST(DriverVariantLoaderTest, R535WindowIsDetected) {
  auto library = Library::open(kSimR535Library);
  ASSERT_TRUE(library.has_value()) << library.error().message;
  EXPECT_TRUE(library->avoided_v3_stride());
  EXPECT_STREQ(library->api().compute_processes.symbol, "nvmlDeviceGetComputeRunningProcesses_v2");
  EXPECT_STREQ(library->api().mps_processes.symbol, "nvmlDeviceGetMPSComputeRunningProcesses_v2");
  EXPECT_EQ(process_element_size(library->api().compute_processes), 24u);
}

TEST(DriverVariantLoaderTest, LegacyUsesOlderCalls) {
  auto library = Library::open(kSimLegacyLibrary);
  ASSERT_TRUE(library.has_value()) << library.error().message;
  const EntryPoints& api = library->api();
  EXPECT_FALSE(library->avoided_v3_stride());
  EXPECT_FALSE(api.memory_info_v2);
  EXPECT_FALSE(api.temperature_v);
  EXPECT_STREQ(api.pci_info.symbol, "nvmlDeviceGetPciInfo_v2");
  EXPECT_STREQ(api.compute_processes.symbol, "nvmlDeviceGetComputeRunningProcesses_v2");
}

TEST(DriverVariantLoaderTest, CurrentSimulatorUsesTheNewestCalls) {
  auto library = Library::open(testing::kSimLibrary);
  ASSERT_TRUE(library.has_value()) << library.error().message;
  const EntryPoints& api = library->api();
  EXPECT_FALSE(library->avoided_v3_stride());
  EXPECT_STREQ(api.compute_processes.symbol, "nvmlDeviceGetComputeRunningProcesses_v3");
  EXPECT_STREQ(api.memory_info_v2.symbol, "nvmlDeviceGetMemoryInfo_v2");
  EXPECT_STREQ(api.temperature_v.symbol, "nvmlDeviceGetTemperatureV");
  EXPECT_STREQ(api.pci_info.symbol, "nvmlDeviceGetPciInfo_v3");
}

TEST_F(SimBackendTest, R535WindowReadsProcessesThroughV2) {
  auto source = open(kScenario, 0, kSimR535Library);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  EXPECT_EQ(reading->driver.driver_version, "535.54.03");
  EXPECT_EQ(reading->driver.cuda_driver_version, "12.2");
  const Device& device = reading->devices.at(0);
  expect_the_three_processes(device);
  EXPECT_EQ(device.state[memory_used], 3.5 * (1ull << 30));
  EXPECT_EQ(device.state[memory_reserved], 633339904.0);
  EXPECT_EQ(device.state[temperature], 41.0);  // no TemperatureV before 565
}

// The stride guard against the real thing: this build's _v3 writes 32-byte elements, and
// reading them as 24-byte ones is refused instead of returning garbage.
TEST_F(SimBackendTest, R535V3StrideIsRefusedByTheGuard) {
  auto source = open(kScenario, 0, kSimR535Library);
  ASSERT_NE(source, nullptr);
  auto library = Library::open(kSimR535Library);
  ASSERT_TRUE(library.has_value()) << library.error().message;
  abi::Device handle = nullptr;
  ASSERT_EQ(library->api().handle_by_index.fn(0, &handle), abi::kSuccess);
  void* loaded = dlopen(kSimR535Library, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(loaded, nullptr);
  constexpr const char* kV3 = "nvmlDeviceGetComputeRunningProcesses_v3";
  const Entry<abi::DeviceProcessesFn> v3{std::bit_cast<abi::DeviceProcessesFn*>(dlsym(loaded, kV3)),
                                         0, kV3};
  dlclose(loaded);
  ASSERT_TRUE(v3);
  DeviceQuery query(library->api(), handle);
  EXPECT_EQ(read_process_list(query, v3), std::unexpected(Unavailable::error));
  EXPECT_TRUE(read_process_list(query, library->api().compute_processes).has_value());
}

TEST_F(SimBackendTest, LegacyDriverUsesV1Fallbacks) {
  auto source = open(kScenario, 0, kSimLegacyLibrary);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  EXPECT_EQ(reading->driver.driver_version, "470.82.01");
  EXPECT_EQ(reading->driver.cuda_driver_version, "11.4");
  const Device& device = reading->devices.at(0);
  expect_the_three_processes(device);
  // v1 memory: `used` includes the reserved memory, which it cannot report apart.
  EXPECT_EQ(device.state[memory_used], 3.5 * (1ull << 30) + 633339904.0);
  EXPECT_EQ(device.state[memory_reserved], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(device.state[memory_total], 42949672960.0);
  EXPECT_EQ(device.state[temperature], 41.0);
  EXPECT_EQ(device.identity.pci_bus_id, "00000000:3B:00.0");
  EXPECT_EQ(device.identity.architecture, "Ampere");
}

}  // namespace gpumeter::nvml::driver_variants_test

// SPDX-License-Identifier: MIT
// The device reader's fallbacks, units and loss handling against fake entry points.
#include <gtest/gtest.h>

#include "nvml/device_reader.h"

namespace gpumeter::nvml::device_state_test {

using namespace abi;
using enum DeviceMetric;

constexpr std::uint64_t kGiB = 1ull << 30;

// One fake GPU: the codes its calls answer and the raw values they write.
struct FakeGpu {
  Return memory_v2 = kSuccess;
  Return memory_v1 = kSuccess;
  Return temperature_v = kSuccess;
  Return utilization = kSuccess;
  int calls = 0;
};
FakeGpu* g_gpu = nullptr;

Return fake_memory_v2(Device, MemoryV2* memory) {
  ++g_gpu->calls;
  if (g_gpu->memory_v2 != kSuccess) return g_gpu->memory_v2;
  // Real drivers answer a wrong version word with FUNCTION_NOT_FOUND.
  if (memory->version != 0x02000028) return kErrorFunctionNotFound;
  *memory = {memory->version, 80 * kGiB, kGiB / 2, 60 * kGiB, 19 * kGiB + kGiB / 2};
  return kSuccess;
}

Return fake_memory_v1(Device, Memory* memory) {
  ++g_gpu->calls;
  if (g_gpu->memory_v1 != kSuccess) return g_gpu->memory_v1;
  *memory = {80 * kGiB, 60 * kGiB, 20 * kGiB};
  return kSuccess;
}

Return fake_temperature_v(Device, Temperature* reading) {
  ++g_gpu->calls;
  if (g_gpu->temperature_v != kSuccess) return g_gpu->temperature_v;
  if (reading->version != 0x0100000C || reading->sensor_type != kTemperatureGpu) {
    return kErrorArgumentVersionMismatch;
  }
  reading->temperature = 61;
  return kSuccess;
}

Return fake_temperature(Device, TemperatureSensor sensor, unsigned* celsius) {
  ++g_gpu->calls;
  if (sensor != kTemperatureGpu) return kErrorInvalidArgument;
  *celsius = 58;
  return kSuccess;
}

Return fake_utilization(Device, Utilization* rates) {
  ++g_gpu->calls;
  if (g_gpu->utilization != kSuccess) return g_gpu->utilization;
  *rates = {87, 42};
  return kSuccess;
}

Return fake_power(Device, unsigned* milliwatts) {
  ++g_gpu->calls;
  *milliwatts = 312'500;
  return kSuccess;
}

Return fake_energy(Device, std::uint64_t* millijoules) {
  ++g_gpu->calls;
  *millijoules = 123'456'789;
  return kSuccess;
}

Return fake_pcie(Device, PcieUtilCounter counter, unsigned* kilobytes) {
  ++g_gpu->calls;
  *kilobytes = counter == kPcieTxBytes ? 1000 : 2000;
  return kSuccess;
}

Return fake_pstate(Device, unsigned* pstate) {
  ++g_gpu->calls;
  *pstate = kPstateUnknown;
  return kSuccess;
}

template <class Fn>
Entry<Fn> entry(Fn* fn, int found = 0) {
  return {fn, found, "fake"};
}

class DeviceStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_gpu = &gpu_;
    api_.memory_info_v2 = entry(&fake_memory_v2);
    api_.memory_info = entry(&fake_memory_v1);
    api_.temperature_v = entry(&fake_temperature_v);
    api_.temperature = entry(&fake_temperature);
    api_.utilization_rates = entry(&fake_utilization);
    api_.power_usage = entry(&fake_power);
    api_.total_energy = entry(&fake_energy);
    api_.pcie_throughput = entry(&fake_pcie);
    api_.performance_state = entry(&fake_pstate);
  }
  void TearDown() override { g_gpu = nullptr; }

  DeviceState read() {
    DeviceQuery query(api_, nullptr);
    return read_state(query);
  }

  FakeGpu gpu_;
  EntryPoints api_;
};

TEST_F(DeviceStateTest, MemoryV2SeparatesReserved) {
  const DeviceState state = read();
  EXPECT_EQ(state[memory_total], 80.0 * kGiB);
  EXPECT_EQ(state[memory_reserved], 0.5 * kGiB);
  EXPECT_EQ(state[memory_free], 60.0 * kGiB);
  EXPECT_EQ(state[memory_used], 19.5 * kGiB);
}

TEST_F(DeviceStateTest, MemoryFallsBackToV1WhenV2IsNotUnderstood) {
  for (Return code : {kErrorFunctionNotFound, kErrorArgumentVersionMismatch, kErrorNotSupported}) {
    gpu_.memory_v2 = code;
    const DeviceState state = read();
    EXPECT_EQ(state[memory_total], 80.0 * kGiB) << return_name(code);
    EXPECT_EQ(state[memory_used], 20.0 * kGiB) << return_name(code);
    EXPECT_EQ(state[memory_free], 60.0 * kGiB) << return_name(code);
    EXPECT_EQ(state[memory_reserved], std::unexpected(Unavailable::not_supported));
  }
}

TEST_F(DeviceStateTest, MemoryFallsBackToV1WhenV2IsAbsent) {
  api_.memory_info_v2 = {};
  const DeviceState state = read();
  EXPECT_EQ(state[memory_used], 20.0 * kGiB);
  EXPECT_EQ(state[memory_reserved], std::unexpected(Unavailable::not_supported));
}

TEST_F(DeviceStateTest, MemoryV2RefusalIsFinal) {
  gpu_.memory_v2 = kErrorNoPermission;
  const DeviceState state = read();
  for (DeviceMetric metric : {memory_total, memory_used, memory_free, memory_reserved}) {
    EXPECT_EQ(state[metric], std::unexpected(Unavailable::no_permission));
  }
}

TEST_F(DeviceStateTest, TemperaturePrefersTheVersionedCall) {
  EXPECT_EQ(read()[temperature], 61.0);
  gpu_.temperature_v = kErrorArgumentVersionMismatch;
  EXPECT_EQ(read()[temperature], 58.0);
  api_.temperature_v = {};
  EXPECT_EQ(read()[temperature], 58.0);
}

TEST_F(DeviceStateTest, UnitsAreConverted) {
  const DeviceState state = read();
  EXPECT_DOUBLE_EQ(*state[power_draw], 312.5);
  EXPECT_DOUBLE_EQ(*state[energy], 123'456.789);
  EXPECT_EQ(state[pcie_tx], 1000.0 * 1024);
  EXPECT_EQ(state[pcie_rx], 2000.0 * 1024);
  EXPECT_EQ(state[utilization_gpu], 87.0);
  EXPECT_EQ(state[utilization_memory], 42.0);
  EXPECT_EQ(state[performance_state], std::unexpected(Unavailable::not_supported));
}

TEST_F(DeviceStateTest, AbsentEntriesAreNotSupported) {
  const DeviceState state = read();
  EXPECT_EQ(state[fan_speed], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(state[clock_sm], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(state.compute_mode, std::unexpected(Unavailable::not_supported));
}

TEST_F(DeviceStateTest, OneFailingFieldLeavesTheOthers) {
  gpu_.utilization = kErrorUnknown;
  const DeviceState state = read();
  EXPECT_EQ(state[utilization_gpu], std::unexpected(Unavailable::error));
  EXPECT_EQ(state[utilization_memory], std::unexpected(Unavailable::error));
  EXPECT_EQ(state[memory_total], 80.0 * kGiB);
  EXPECT_DOUBLE_EQ(*state[power_draw], 312.5);
}

TEST_F(DeviceStateTest, LostGpuStopsTheRead) {
  gpu_.utilization = kErrorGpuIsLost;
  DeviceQuery query(api_, nullptr);
  const DeviceState state = read_state(query);
  EXPECT_TRUE(query.lost());
  EXPECT_EQ(gpu_.calls, 1);  // nothing is asked after the loss
  EXPECT_EQ(state[power_draw], std::unexpected(Unavailable::gpu_lost));
  EXPECT_EQ(state[memory_total], std::unexpected(Unavailable::gpu_lost));
}

TEST(AbsentTest, EveryValueCarriesTheReason) {
  const DeviceState state = absent_state(Unavailable::no_permission);
  for (const auto& value : state.metrics) {
    EXPECT_EQ(value, std::unexpected(Unavailable::no_permission));
  }
  EXPECT_EQ(state.persistence_mode, std::unexpected(Unavailable::no_permission));
  const DeviceIdentity identity = absent_identity(3, Unavailable::gpu_lost);
  EXPECT_EQ(identity.index, 3u);
  EXPECT_EQ(identity.uuid, std::unexpected(Unavailable::gpu_lost));
  EXPECT_FALSE(identity_is_settled(identity));
  EXPECT_TRUE(identity_is_settled(absent_identity(0, Unavailable::not_supported)));
}

}  // namespace gpumeter::nvml::device_state_test

// SPDX-License-Identifier: MIT
// The board-state calls a driver answers and common monitors ask (throttle reasons, power
// limits, fans, ECC and memory health, BAR1, lookups by PCI bus id and serial, brand,
// virtualisation), through dlopen of the default build; and the functions of NVML's header
// that the simulator does not model, which answer NOT_SUPPORTED rather than being absent.
#include <gtest/gtest.h>

#include <cstdint>

#include "sim/symbols.h"
#include "support/protocol_scenario.h"
#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::testing::board_state_test {

using signatures::Bar1Memory;
using signatures::DeviceBar1Fn;
using signatures::DeviceFanSpeedFn;
using signatures::DeviceRemappedRowsFn;
using signatures::DeviceUintPairFn;

class BoardState : public ::testing::Test {
 protected:
  SimLibrary& lib = SimLibrary::open("sim");
  TempScenario scenario{kProtocolScenario};
};

// GPU 0 at t = 100 s: processes at 60 % and bursts (busy); before any process started it idles.
TEST_F(BoardState, ThrottleReasonsFollowTheLoad) {
  const Session s(lib, scenario.path(), 100);
  std::uint64_t reasons = 99;
  const auto current = s.fn<abi::DeviceUllFn>("nvmlDeviceGetCurrentClocksThrottleReasons");
  ASSERT_EQ(current(s.device(0), &reasons), abi::kSuccess);
  EXPECT_EQ(reasons & 0x1U, 0U) << "busy, not idle";
  std::uint64_t supported = 0;
  ASSERT_EQ(s.fn<abi::DeviceUllFn>("nvmlDeviceGetSupportedClocksThrottleReasons")(s.device(1),
                                                                                  &supported),
            abi::kSuccess);
  EXPECT_EQ(supported, 0x1FFU);
  ASSERT_EQ(current(s.device(1), &reasons), abi::kSuccess);
  EXPECT_EQ(reasons, 0x1U) << "GPU 1 runs nothing: idle";
}

TEST_F(BoardState, PowerLimitsComeFromTheScenario) {
  const Session s(lib, scenario.path());
  unsigned limit = 0, low = 0, high = 0;
  EXPECT_EQ(
      s.fn<abi::DeviceUintFn>("nvmlDeviceGetPowerManagementDefaultLimit")(s.device(0), &limit),
      abi::kSuccess);
  EXPECT_EQ(limit, 300'000U);
  EXPECT_EQ(s.fn<DeviceUintPairFn>("nvmlDeviceGetPowerManagementLimitConstraints")(s.device(0),
                                                                                   &low, &high),
            abi::kSuccess);
  EXPECT_EQ(low, 90'000U);
  EXPECT_EQ(high, 300'000U);
}

TEST_F(BoardState, FansEccAndMemoryHealth) {
  const Session s(lib, scenario.path());
  unsigned fans = 0, percent = 0;
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetNumFans")(s.device(0), &fans), abi::kSuccess);
  EXPECT_EQ(fans, 1U);
  EXPECT_EQ(s.fn<DeviceFanSpeedFn>("nvmlDeviceGetFanSpeed_v2")(s.device(0), 0, &percent),
            abi::kSuccess);
  EXPECT_EQ(percent, 40U);
  EXPECT_EQ(s.fn<DeviceFanSpeedFn>("nvmlDeviceGetFanSpeed_v2")(s.device(0), 1, &percent),
            abi::kErrorInvalidArgument);
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetNumFans")(s.device(1), &fans),
            abi::kErrorNotSupported);  // "unsupported": ["fan"]
  unsigned current = 9, pending = 9;
  EXPECT_EQ(s.fn<DeviceUintPairFn>("nvmlDeviceGetEccMode")(s.device(0), &current, &pending),
            abi::kSuccess);
  EXPECT_EQ(current, 1U);
  EXPECT_EQ(s.fn<DeviceUintPairFn>("nvmlDeviceGetEccMode")(s.device(1), &current, &pending),
            abi::kErrorNotSupported);
  // The Volta board retires pages (none so far); the Ampere one would remap rows.
  unsigned count = 9;
  EXPECT_EQ(s.fn<abi::DeviceRetiredPagesFn>("nvmlDeviceGetRetiredPages")(
                s.device(0), abi::kRetiredMultipleSingleBit, &count, nullptr),
            abi::kSuccess);
  EXPECT_EQ(count, 0U);
  unsigned rows[4] = {9, 9, 9, 9};
  EXPECT_EQ(s.fn<DeviceRemappedRowsFn>("nvmlDeviceGetRemappedRows")(s.device(0), &rows[0], &rows[1],
                                                                    &rows[2], &rows[3]),
            abi::kErrorNotSupported);
}

TEST_F(BoardState, Bar1SpansTheFrameBuffer) {
  const Session s(lib, scenario.path());
  Bar1Memory bar1{};
  ASSERT_EQ(s.fn<DeviceBar1Fn>("nvmlDeviceGetBAR1MemoryInfo")(s.device(0), &bar1), abi::kSuccess);
  EXPECT_EQ(bar1.total, 1ULL << 34);  // 16 GB of frame buffer: 16 GiB of BAR1
  EXPECT_EQ(bar1.used + bar1.free, bar1.total);
  EXPECT_GT(bar1.used, 0U);
}

TEST_F(BoardState, HandlesByPciBusIdInEveryFormAndBySerial) {
  const Session s(lib, scenario.path());
  const auto by_bus = s.fn<abi::HandleByUuidFn>("nvmlDeviceGetHandleByPciBusId_v2");
  for (const char* form : {"00000000:06:00.0", "0000:06:00.0", "06:00.0", "0000:06:00.0"}) {
    abi::Device found = nullptr;
    EXPECT_EQ(by_bus(form, &found), abi::kSuccess) << form;
    EXPECT_EQ(found, s.device(0)) << form;
  }
  abi::Device found = nullptr;
  EXPECT_EQ(by_bus("0000:07:00.0", &found), abi::kErrorNotFound);
  EXPECT_EQ(by_bus("06-00", &found), abi::kErrorInvalidArgument);
  const auto by_serial = s.fn<abi::HandleByUuidFn>("nvmlDeviceGetHandleBySerial");
  EXPECT_EQ(by_serial("0323617004913", &found), abi::kSuccess);
  EXPECT_EQ(found, s.device(0));
  EXPECT_EQ(by_serial("nope", &found), abi::kErrorNotFound);
}

TEST_F(BoardState, BrandVirtualisationAndCounts) {
  const Session s(lib, scenario.path());
  unsigned value = 99;
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetBrand")(s.device(0), &value), abi::kSuccess);
  EXPECT_EQ(value, 2U);  // NVML_BRAND_TESLA
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetBrand")(s.device(1), &value), abi::kSuccess);
  EXPECT_EQ(value, 5U);  // NVML_BRAND_GEFORCE
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetVirtualizationMode")(s.device(0), &value),
            abi::kSuccess);
  EXPECT_EQ(value, 0U);  // bare metal
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetHostVgpuMode")(s.device(0), &value),
            abi::kErrorNotSupported);
  EXPECT_EQ(s.fn<abi::CountFn>("nvmlUnitGetCount")(&value), abi::kSuccess);
  EXPECT_EQ(value, 0U);
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetMaxMigDeviceCount")(s.device(0), &value),
            abi::kSuccess);
  EXPECT_EQ(value, 0U);  // no MIG: 0, not NOT_SUPPORTED
}

// An unmodelled function checks what every call checks, then answers NOT_SUPPORTED.
TEST_F(BoardState, UnmodelledFunctionsAnswerLikeADriverWithoutTheFeature) {
  using Bridge = abi::Return(abi::Device, void*);
  const auto bridge = lib.fn<Bridge>("nvmlDeviceGetBridgeChipInfo");
  unsigned char buffer[1024] = {};
  EXPECT_EQ(bridge(nullptr, buffer), abi::kErrorUninitialized);
  const Session s(lib, scenario.path());
  EXPECT_EQ(bridge(s.device(0), buffer), abi::kErrorNotSupported);
  EXPECT_EQ(bridge(reinterpret_cast<abi::Device>(buffer), buffer), abi::kErrorInvalidArgument);
  using UnitHandle = abi::Return(unsigned, void**);
  void* unit = nullptr;
  EXPECT_EQ(lib.fn<UnitHandle>("nvmlUnitGetHandleByIndex")(0, &unit), abi::kErrorNotSupported);
}

}  // namespace gpumeter::sim::testing::board_state_test

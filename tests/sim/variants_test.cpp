// SPDX-License-Identifier: MIT
// The builds that emulate older drivers: which symbols they export, and what _v3 writes.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "sim/symbols.h"
#include "support/protocol_scenario.h"
#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::testing::variants_test {

#define GPUMETER_TEST_SYMBOL(symbol, type) #symbol,
const std::vector<const char*> kAllSymbols = {GPUMETER_SIM_SYMBOLS(GPUMETER_TEST_SYMBOL)};
#undef GPUMETER_TEST_SYMBOL

std::string driver_version(const Session& s) {
  char version[80] = {};
  s.fn<abi::StringGetterFn>("nvmlSystemGetDriverVersion")(version, sizeof version);
  return version;
}

TEST(Variants, DefaultExportsEverySymbol) {
  const SimLibrary& lib = SimLibrary::open("sim");
  for (const char* symbol : kAllSymbols) EXPECT_TRUE(lib.exports(symbol)) << symbol;
  EXPECT_FALSE(lib.exports("nvmlNotAFunction"));
}

TEST(Variants, R535WritesThirtyTwoByteV3Elements) {
  SimLibrary& lib = SimLibrary::open("sim-r535-cc");
  const TempScenario file(kProtocolScenario);
  const Session s(lib, file.path());
  ASSERT_EQ(s.init_result(), abi::kSuccess);
  EXPECT_EQ(driver_version(s), "535.54.03");
  std::vector<abi::ProcessDetailV1> v3(4);
  unsigned count = 4;
  ASSERT_EQ(s.fn<abi::DeviceProcessesFn>("nvmlDeviceGetComputeRunningProcesses_v3")(
                s.device(0), &count, v3.data()),
            abi::kSuccess);
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(v3[0].pid, 1001u);
  EXPECT_EQ(v3[1].pid, 1002u);  // at byte 32
  EXPECT_EQ(v3[1].used_gpu_memory, 2'000'000'000u);
  // _v2 keeps its 24-byte layout on the same driver.
  std::vector<abi::ProcessInfoV2> v2(4);
  count = 4;
  ASSERT_EQ(s.fn<abi::DeviceProcessesFn>("nvmlDeviceGetComputeRunningProcesses_v2")(
                s.device(0), &count, v2.data()),
            abi::kSuccess);
  EXPECT_EQ(v2[1].pid, 1002u);
}

TEST(Variants, R535ExportsTheDetectionSymbolsOfItsDriver) {
  const SimLibrary& lib = SimLibrary::open("sim-r535-cc");
  EXPECT_TRUE(lib.exports("nvmlDeviceGetConfComputeMemSizeInfo"));
  EXPECT_FALSE(lib.exports("nvmlDeviceGetRunningProcessDetailList"));
  EXPECT_FALSE(lib.exports("nvmlDeviceGetProcessesUtilizationInfo"));  // 550 and later
  EXPECT_FALSE(lib.exports("nvmlDeviceGetTemperatureV"));              // 565 and later
  EXPECT_TRUE(lib.exports("nvmlDeviceGetComputeRunningProcesses_v3"));
  EXPECT_TRUE(lib.exports("nvmlDeviceGetMemoryInfo_v2"));
}

TEST(Variants, LegacyLacksNewerCalls) {
  const SimLibrary& lib = SimLibrary::open("sim-legacy");
  for (const char* symbol :
       {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v3",
        "nvmlDeviceGetMPSComputeRunningProcesses_v3", "nvmlDeviceGetProcessesUtilizationInfo",
        "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetTemperatureV", "nvmlDeviceGetPciInfo_v3",
        "nvmlDeviceGetRunningProcessDetailList", "nvmlDeviceGetConfComputeMemSizeInfo"}) {
    EXPECT_FALSE(lib.exports(symbol)) << symbol;
  }
  for (const char* symbol : {"nvmlInit_v2", "nvmlDeviceGetComputeRunningProcesses_v2",
                             "nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetPciInfo_v2",
                             "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetProcessUtilization"}) {
    EXPECT_TRUE(lib.exports(symbol)) << symbol;
  }
}

TEST(Variants, LegacyStillAnswersWithTheOldCalls) {
  SimLibrary& lib = SimLibrary::open("sim-legacy");
  const TempScenario file(kProtocolScenario);
  const Session s(lib, file.path());
  ASSERT_EQ(s.init_result(), abi::kSuccess);
  EXPECT_EQ(driver_version(s), "470.82.01");
  std::vector<abi::ProcessInfoV1> v1(4);
  unsigned count = 4;
  ASSERT_EQ(s.fn<abi::DeviceProcessesFn>("nvmlDeviceGetComputeRunningProcesses")(s.device(0),
                                                                                 &count, v1.data()),
            abi::kSuccess);
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(v1[1].pid, 1002u);  // at byte 16
  abi::Memory memory{};
  ASSERT_EQ(s.fn<abi::DeviceMemoryFn>("nvmlDeviceGetMemoryInfo")(s.device(0), &memory),
            abi::kSuccess);
  EXPECT_EQ(memory.total, 16'000'000'000u);
}

TEST(Variants, EachVariantKeepsItsOwnState) {
  SimLibrary& current = SimLibrary::open("sim");
  SimLibrary& legacy = SimLibrary::open("sim-legacy");
  const TempScenario file(kProtocolScenario);
  const Session s(current, file.path());
  ASSERT_EQ(s.init_result(), abi::kSuccess);
  unsigned count = 0;
  EXPECT_EQ(legacy.fn<abi::CountFn>("nvmlDeviceGetCount_v2")(&count), abi::kErrorUninitialized);
}

}  // namespace gpumeter::sim::testing::variants_test

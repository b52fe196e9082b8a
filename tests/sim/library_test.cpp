// SPDX-License-Identifier: MIT
// The default build of libnvidia-ml.so.1 through dlopen: init, identity, metrics and the
// driver's peculiarities (sizing protocols, version words, NOT_SUPPORTED, faults).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "nvml/entry_points.h"
#include "support/protocol_scenario.h"
#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::testing::library_test {

class LibraryTest : public ::testing::Test {
 protected:
  SimLibrary& lib = SimLibrary::open("sim");
  TempScenario scenario{kProtocolScenario};

  std::string text(const Session& s, const char* symbol, abi::Device device, unsigned length = 96) {
    std::string buffer(length, '\0');
    const abi::Return r = s.fn<abi::DeviceStringFn>(symbol)(device, buffer.data(), length);
    if (r != abi::kSuccess) return "error " + std::to_string(r);
    return buffer.c_str();
  }
};

TEST_F(LibraryTest, CallsBeforeInitAreUninitialized) {
  unsigned count = 7;
  EXPECT_EQ(lib.fn<abi::CountFn>("nvmlDeviceGetCount_v2")(&count), abi::kErrorUninitialized);
  EXPECT_STREQ(lib.fn<abi::ErrorStringFn>("nvmlErrorString")(abi::kErrorGpuIsLost), "GPU is lost");
  EXPECT_STREQ(lib.fn<abi::ErrorStringFn>("nvmlErrorString")(static_cast<abi::Return>(12345)),
               "Unknown Error");
}

TEST_F(LibraryTest, InitIsReferenceCounted) {
  set_environment(scenario.path(), 100);
  auto init = lib.fn<abi::InitFn>("nvmlInit_v2");
  auto shutdown = lib.fn<abi::ShutdownFn>("nvmlShutdown");
  auto count = lib.fn<abi::CountFn>("nvmlDeviceGetCount");
  unsigned n = 0;
  ASSERT_EQ(init(), abi::kSuccess);
  ASSERT_EQ(lib.fn<abi::InitWithFlagsFn>("nvmlInitWithFlags")(abi::kInitFlagNoGpus), abi::kSuccess);
  EXPECT_EQ(shutdown(), abi::kSuccess);
  EXPECT_EQ(count(&n), abi::kSuccess);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(shutdown(), abi::kSuccess);
  EXPECT_EQ(count(&n), abi::kErrorUninitialized);
  EXPECT_EQ(shutdown(), abi::kSuccess);  // an extra shutdown is not an error
}

TEST_F(LibraryTest, SystemQueries) {
  const Session s(lib, scenario.path());
  ASSERT_EQ(s.init_result(), abi::kSuccess);
  char version[80] = {};
  EXPECT_EQ(s.fn<abi::StringGetterFn>("nvmlSystemGetDriverVersion")(version, sizeof version),
            abi::kSuccess);
  EXPECT_STREQ(version, "550.54.15");
  EXPECT_EQ(s.fn<abi::StringGetterFn>("nvmlSystemGetDriverVersion")(version, 5),
            abi::kErrorInsufficientSize);
  EXPECT_EQ(s.fn<abi::StringGetterFn>("nvmlSystemGetNVMLVersion")(version, sizeof version),
            abi::kSuccess);
  EXPECT_STREQ(version, "12.550.54.15");
  int cuda = 0;
  EXPECT_EQ(s.fn<abi::IntGetterFn>("nvmlSystemGetCudaDriverVersion_v2")(&cuda), abi::kSuccess);
  EXPECT_EQ(cuda, 12040);
  char name[256] = {};
  EXPECT_EQ(s.fn<abi::ProcessNameFn>("nvmlSystemGetProcessName")(1003, name, sizeof name),
            abi::kSuccess);
  EXPECT_STREQ(name, "/usr/lib/xorg/Xorg");
  EXPECT_EQ(s.fn<abi::ProcessNameFn>("nvmlSystemGetProcessName")(1003, name, 6), abi::kSuccess);
  EXPECT_STREQ(name, "/usr/");  // cropped, not refused
}

TEST_F(LibraryTest, IdentityEqualsTheScenario) {
  const Session s(lib, scenario.path());
  const abi::Device gpu = s.device(0);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(text(s, "nvmlDeviceGetName", gpu), "Tesla V100-SXM2-16GB");
  EXPECT_EQ(text(s, "nvmlDeviceGetUUID", gpu), "GPU-11111111-2222-4333-8444-555555555555");
  EXPECT_EQ(text(s, "nvmlDeviceGetSerial", gpu), "0323617004913");
  EXPECT_EQ(text(s, "nvmlDeviceGetName", gpu, 10), "error 7");  // INSUFFICIENT_SIZE
  unsigned value = 0;
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetMinorNumber")(gpu, &value), abi::kSuccess);
  EXPECT_EQ(value, 3u);
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetArchitecture")(gpu, &value), abi::kSuccess);
  EXPECT_EQ(value, abi::kArchVolta);
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetIndex")(s.device(1), &value), abi::kSuccess);
  EXPECT_EQ(value, 1u);
  int major = 0, minor = 0;
  EXPECT_EQ(s.fn<abi::DeviceComputeCapabilityFn>("nvmlDeviceGetCudaComputeCapability")(gpu, &major,
                                                                                       &minor),
            abi::kSuccess);
  EXPECT_EQ(major * 10 + minor, 70);
}

TEST_F(LibraryTest, HandlesByIndexAndUuid) {
  const Session s(lib, scenario.path());
  abi::Device by_uuid = nullptr;
  EXPECT_EQ(s.fn<abi::HandleByUuidFn>("nvmlDeviceGetHandleByUUID")(
                "GPU-66666666-7777-4888-9999-000000000000", &by_uuid),
            abi::kSuccess);
  EXPECT_EQ(by_uuid, s.device(1));
  EXPECT_EQ(s.fn<abi::HandleByUuidFn>("nvmlDeviceGetHandleByUUID")("GPU-nope", &by_uuid),
            abi::kErrorNotFound);
  abi::Device handle = nullptr;
  EXPECT_EQ(s.fn<abi::HandleByIndexFn>("nvmlDeviceGetHandleByIndex")(2, &handle),
            abi::kErrorInvalidArgument);
  unsigned value = 0;
  int not_a_handle = 0;
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetIndex")(
                reinterpret_cast<abi::Device>(&not_a_handle), &value),
            abi::kErrorInvalidArgument);
}

TEST_F(LibraryTest, PciInfoLayoutsByName) {
  const Session s(lib, scenario.path());
  abi::PciInfo v3{};
  ASSERT_EQ(s.fn<abi::DevicePciInfoFn>("nvmlDeviceGetPciInfo_v3")(s.device(0), &v3), abi::kSuccess);
  EXPECT_STREQ(v3.bus_id, "00000000:06:00.0");
  EXPECT_STREQ(v3.bus_id_legacy, "0000:06:00.0");
  EXPECT_EQ(v3.bus, 6u);
  EXPECT_EQ(v3.pci_device_id, 0x1DB110DEu);
  EXPECT_EQ(v3.pci_subsystem_id, 0x121210DEu);
  // The legacy calls write 52 bytes: the rest of a 68-byte buffer stays untouched.
  for (const char* symbol : {"nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"}) {
    unsigned char buffer[68];
    std::memset(buffer, 0xAB, sizeof buffer);
    ASSERT_EQ(
        s.fn<abi::DevicePciInfoFn>(symbol)(s.device(0), reinterpret_cast<abi::PciInfo*>(buffer)),
        abi::kSuccess);
    EXPECT_STREQ(reinterpret_cast<const char*>(buffer), "0000:06:00.0") << symbol;
    EXPECT_EQ(buffer[51], 0) << symbol;  // reserved words are zero
    EXPECT_EQ(buffer[52], 0xAB) << symbol;
    EXPECT_EQ(buffer[67], 0xAB) << symbol;
  }
}

TEST_F(LibraryTest, MemoryV1CountsReservedAndV2NeedsItsVersionWord) {
  const Session s(lib, scenario.path());
  abi::Memory v1{};
  ASSERT_EQ(s.fn<abi::DeviceMemoryFn>("nvmlDeviceGetMemoryInfo")(s.device(0), &v1), abi::kSuccess);
  EXPECT_EQ(v1.total, 16'000'000'000u);
  EXPECT_EQ(v1.used, 3'050'000'000u + 300'000'000u);
  EXPECT_EQ(v1.free + v1.used, v1.total);
  abi::MemoryV2 v2{};
  v2.version = 2;  // the literal the header comment suggests; drivers refuse it
  EXPECT_EQ(s.fn<abi::DeviceMemoryV2Fn>("nvmlDeviceGetMemoryInfo_v2")(s.device(0), &v2),
            abi::kErrorFunctionNotFound);
  v2.version = abi::kMemoryV2Version;
  ASSERT_EQ(s.fn<abi::DeviceMemoryV2Fn>("nvmlDeviceGetMemoryInfo_v2")(s.device(0), &v2),
            abi::kSuccess);
  EXPECT_EQ(v2.used, 3'050'000'000u);
  EXPECT_EQ(v2.reserved, 300'000'000u);
  EXPECT_EQ(v2.total, v2.free + v2.used + v2.reserved);
}

TEST_F(LibraryTest, MetricsFollowTheScenario) {
  const Session s(lib, scenario.path(), 105.5);  // last complete period (104, 105]: 60 % SM
  abi::Utilization util{};
  ASSERT_EQ(s.fn<abi::DeviceUtilizationFn>("nvmlDeviceGetUtilizationRates")(s.device(0), &util),
            abi::kSuccess);
  EXPECT_EQ(util.gpu, 60u);
  EXPECT_EQ(util.memory, 25u);
  unsigned value = 0;
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetPowerUsage")(s.device(0), &value), abi::kSuccess);
  EXPECT_EQ(value, 220'000u);  // 100 W idle + 60 % of the 200 W span
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetEnforcedPowerLimit")(s.device(0), &value),
            abi::kSuccess);
  EXPECT_EQ(value, 300'000u);
  EXPECT_EQ(s.fn<abi::DeviceTemperatureFn>("nvmlDeviceGetTemperature")(
                s.device(0), abi::kTemperatureGpu, &value),
            abi::kSuccess);
  EXPECT_EQ(value, 60u);
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetFanSpeed")(s.device(0), &value), abi::kSuccess);
  EXPECT_EQ(value, 40u);
  s.at(101.5);  // (100, 101]: the burst adds 30 %
  ASSERT_EQ(s.fn<abi::DeviceUtilizationFn>("nvmlDeviceGetUtilizationRates")(s.device(0), &util),
            abi::kSuccess);
  EXPECT_EQ(util.gpu, 90u);
}

TEST_F(LibraryTest, TemperatureVChecksItsVersion) {
  const Session s(lib, scenario.path(), 105.5);
  abi::Temperature t{};
  t.version = 1;
  EXPECT_EQ(s.fn<abi::DeviceTemperatureVFn>("nvmlDeviceGetTemperatureV")(s.device(0), &t),
            abi::kErrorArgumentVersionMismatch);
  t.version = abi::kTemperatureVersion;
  ASSERT_EQ(s.fn<abi::DeviceTemperatureVFn>("nvmlDeviceGetTemperatureV")(s.device(0), &t),
            abi::kSuccess);
  EXPECT_EQ(t.temperature, 60);
}

TEST_F(LibraryTest, UnsupportedFeaturesAnswerNotSupported) {
  const Session s(lib, scenario.path());
  const abi::Device consumer = s.device(1);
  unsigned value = 0;
  std::uint64_t big = 0;
  char serial[30];
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetFanSpeed")(consumer, &value),
            abi::kErrorNotSupported);
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetPowerUsage")(consumer, &value),
            abi::kErrorNotSupported);
  EXPECT_EQ(s.fn<abi::DeviceUllFn>("nvmlDeviceGetTotalEnergyConsumption")(consumer, &big),
            abi::kErrorNotSupported);
  EXPECT_EQ(s.fn<abi::DeviceStringFn>("nvmlDeviceGetSerial")(consumer, serial, sizeof serial),
            abi::kErrorNotSupported);
  EXPECT_EQ(s.fn<abi::DeviceEccFn>("nvmlDeviceGetTotalEccErrors")(
                consumer, abi::kMemoryErrorCorrected, abi::kVolatileEcc, &big),
            abi::kErrorNotSupported);
  EXPECT_EQ(s.fn<abi::DeviceEccFn>("nvmlDeviceGetTotalEccErrors")(
                s.device(0), abi::kMemoryErrorCorrected, abi::kAggregateEcc, &big),
            abi::kSuccess);
  // Everything else on the same GPU still answers.
  abi::Utilization util{};
  EXPECT_EQ(s.fn<abi::DeviceUtilizationFn>("nvmlDeviceGetUtilizationRates")(consumer, &util),
            abi::kSuccess);
}

TEST_F(LibraryTest, EnergyIntegratesPowerAndNeverGoesBack) {
  const Session s(lib, scenario.path(), 10);
  auto energy = s.fn<abi::DeviceUllFn>("nvmlDeviceGetTotalEnergyConsumption");
  std::uint64_t at10 = 0, at20 = 0, back = 0;
  ASSERT_EQ(energy(s.device(0), &at10), abi::kSuccess);
  // 0-2 s at 90 % (280 W), 2-10 s at 60 % (220 W), from a 5000 mJ offset.
  EXPECT_EQ(at10, 5000u + 560'000u + 1'760'000u);
  s.at(20);
  ASSERT_EQ(energy(s.device(0), &at20), abi::kSuccess);
  EXPECT_EQ(at20 - at10, 560'000u + 1'760'000u);
  s.at(15);  // the clock steps back
  ASSERT_EQ(energy(s.device(0), &back), abi::kSuccess);
  EXPECT_EQ(back, at20);
}

TEST_F(LibraryTest, FieldValuesCarryPerFieldStatus) {
  const Session s(lib, scenario.path(), 105.5);
  abi::FieldValue fields[3] = {};
  fields[0].field_id = 83;   // total energy
  fields[1].field_id = 186;  // instant power
  fields[2].field_id = 9999;
  ASSERT_EQ(s.fn<abi::DeviceFieldValuesFn>("nvmlDeviceGetFieldValues")(s.device(0), 3, fields),
            abi::kSuccess);
  EXPECT_EQ(fields[0].nvml_return, abi::kSuccess);
  EXPECT_EQ(fields[0].value_type, abi::kValueTypeUnsignedLongLong);
  EXPECT_GT(fields[0].value.ull, 5000u);
  EXPECT_EQ(fields[1].value.ui, 220'000u);
  EXPECT_EQ(fields[2].nvml_return, abi::kErrorNotSupported);
  EXPECT_EQ(fields[0].timestamp, kEpochUs + 105'500'000);
}

TEST_F(LibraryTest, MigIsNotSupportedOrDisabled) {
  const Session s(lib, scenario.path());
  unsigned current = 9, pending = 9, count = 9;
  EXPECT_EQ(s.fn<abi::DeviceMigModeFn>("nvmlDeviceGetMigMode")(s.device(0), &current, &pending),
            abi::kErrorNotSupported);
  EXPECT_EQ(s.fn<abi::DeviceMigModeFn>("nvmlDeviceGetMigMode")(s.device(1), &current, &pending),
            abi::kSuccess);
  EXPECT_EQ(current, abi::kMigDisable);
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceGetMaxMigDeviceCount")(s.device(1), &count),
            abi::kSuccess);
  EXPECT_EQ(count, 0u);
  abi::Device mig = nullptr;
  EXPECT_EQ(s.fn<abi::DeviceMigHandleByIndexFn>("nvmlDeviceGetMigDeviceHandleByIndex")(s.device(1),
                                                                                       0, &mig),
            abi::kErrorNotFound);
  EXPECT_EQ(s.fn<abi::DeviceUintFn>("nvmlDeviceIsMigDeviceHandle")(s.device(1), &count),
            abi::kSuccess);
  EXPECT_EQ(count, 0u);
}

TEST_F(LibraryTest, AccountingAveragesOverTheProcessLifetime) {
  const Session s(lib, scenario.path(), 100);
  unsigned count = 0;
  auto pids = s.fn<abi::DeviceAccountingPidsFn>("nvmlDeviceGetAccountingPids");
  ASSERT_EQ(pids(s.device(0), &count, nullptr), abi::kErrorInsufficientSize);
  ASSERT_EQ(count, 3u);
  std::vector<unsigned> list(count);
  ASSERT_EQ(pids(s.device(0), &count, list.data()), abi::kSuccess);
  EXPECT_EQ(list, (std::vector<unsigned>{1001, 1002, 1003}));
  abi::AccountingStats stats{};
  ASSERT_EQ(
      s.fn<abi::DeviceAccountingStatsFn>("nvmlDeviceGetAccountingStats")(s.device(0), 1002, &stats),
      abi::kSuccess);
  EXPECT_EQ(stats.gpu_utilization, 6u);  // 30 % for 2 s in every 10
  EXPECT_EQ(stats.is_running, 1u);
  EXPECT_EQ(stats.time, 0u);
  EXPECT_EQ(stats.max_memory_usage, 2'000'000'000u);
  EXPECT_EQ(stats.start_time, static_cast<std::uint64_t>(kEpochUs));
  EXPECT_EQ(
      s.fn<abi::DeviceAccountingStatsFn>("nvmlDeviceGetAccountingStats")(s.device(0), 4242, &stats),
      abi::kErrorNotFound);
  // Accounting disabled there: an empty list, as driver 580.159.04 answers (not NOT_SUPPORTED).
  count = 0;
  EXPECT_EQ(pids(s.device(1), &count, nullptr), abi::kErrorInsufficientSize);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(pids(s.device(1), &count, list.data()), abi::kSuccess);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(
      s.fn<abi::DeviceAccountingStatsFn>("nvmlDeviceGetAccountingStats")(s.device(1), 1002, &stats),
      abi::kErrorNotFound);
}

TEST_F(LibraryTest, ExportsEveryEntryPointTheLoaderKnows) {
#define GPUMETER_TEST_SYMBOL_NAMES(member, type, ...) __VA_ARGS__,
  const std::vector<const char*> names = {GPUMETER_NVML_ENTRY_POINTS(GPUMETER_TEST_SYMBOL_NAMES)};
#undef GPUMETER_TEST_SYMBOL_NAMES
  EXPECT_GT(names.size(), 60u);
  for (const char* name : names) EXPECT_TRUE(lib.exports(name)) << name;
}

}  // namespace gpumeter::sim::testing::library_test

// SPDX-License-Identifier: MIT
// MIG through dlopen of the simulated library: the mode, MIG handles with empty slots, ids,
// parent, identity, memory and processes per MIG device, and what a MIG-enabled GPU refuses.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "sim/scenario.h"
#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::mig_test {

namespace abi = nvml::abi;
using testing::Session;
using testing::SimLibrary;
using testing::TempScenario;

constexpr std::uint64_t kGiB = 1024ULL * 1024 * 1024;

// Instances in slots 1 and 4 of 7 (slots 0, 2, 3, 5, 6 are empty); a second GPU with MIG off.
constexpr std::string_view kMig = R"({
  "devices": [
    {"name": "NVIDIA H100 80GB HBM3", "architecture": "hopper", "memory_total_bytes": 85899345920,
     "accounting": {"enabled": true},
     "mig": {"max_count": 7, "instances": [
       {"slot": 1, "gpu_instance": 2, "compute_instance": 0, "profile": "3g.40gb",
        "memory_total_bytes": 42949672960, "uuid": "MIG-11111111-2222-5333-8444-555555555555"},
       {"slot": 4, "gpu_instance": 9, "compute_instance": 1, "profile": "1g.10gb",
        "memory_total_bytes": 10737418240}]}},
    {"name": "NVIDIA A100-SXM4-40GB", "memory_total_bytes": 42949672960, "mig": "disabled"}
  ],
  "processes": [
    {"device": 0, "pid": 500, "used_memory_bytes": 3221225472, "utilization": {"sm": 80},
     "mig": {"gpu_instance": 2}},
    {"device": 0, "pid": 501, "used_memory_bytes": 1073741824, "utilization": {"sm": 40},
     "mig": {"gpu_instance": 2, "compute_instance": 0}},
    {"device": 0, "pid": 502, "used_memory_bytes": 2147483648, "utilization": {"sm": 10},
     "mig": {"gpu_instance": 9, "compute_instance": 1}}
  ]
})";

class Mig : public ::testing::Test {
 protected:
  TempScenario scenario{kMig};
  SimLibrary& library = SimLibrary::open("sim");
  Session session{library, scenario.path()};

  abi::Device mig_handle(unsigned slot) const {
    abi::Device handle = nullptr;
    EXPECT_EQ(session.fn<abi::DeviceMigHandleByIndexFn>("nvmlDeviceGetMigDeviceHandleByIndex")(
                  session.device(0), slot, &handle),
              abi::kSuccess);
    return handle;
  }

  std::string text(const char* symbol, abi::Device device) const {
    std::array<char, 96> buffer{};
    EXPECT_EQ(session.fn<abi::DeviceStringFn>(symbol)(device, buffer.data(), buffer.size()),
              abi::kSuccess);
    return buffer.data();
  }

  std::vector<abi::ProcessInfoV2> processes(abi::Device device) const {
    std::vector<abi::ProcessInfoV2> out(8);
    auto count = static_cast<unsigned>(out.size());
    EXPECT_EQ(session.fn<abi::DeviceProcessesFn>("nvmlDeviceGetComputeRunningProcesses_v3")(
                  device, &count, out.data()),
              abi::kSuccess);
    out.resize(count);
    return out;
  }
};

TEST_F(Mig, ModeAndMaxCount) {
  unsigned current = 9, pending = 9, max = 0;
  const auto mode = session.fn<abi::DeviceMigModeFn>("nvmlDeviceGetMigMode");
  const auto count = session.fn<abi::DeviceUintFn>("nvmlDeviceGetMaxMigDeviceCount");
  EXPECT_EQ(mode(session.device(0), &current, &pending), abi::kSuccess);
  EXPECT_EQ(current, abi::kMigEnable);
  EXPECT_EQ(pending, abi::kMigEnable);
  EXPECT_EQ(count(session.device(0), &max), abi::kSuccess);
  EXPECT_EQ(max, 7U);
  EXPECT_EQ(mode(session.device(1), &current, &pending), abi::kSuccess);
  EXPECT_EQ(current, abi::kMigDisable);
  EXPECT_EQ(count(session.device(1), &max), abi::kSuccess);
  EXPECT_EQ(max, 0U);
}

TEST_F(Mig, EmptySlotsAreNotFoundAndTheWalkGoesOn) {
  const auto by_index =
      session.fn<abi::DeviceMigHandleByIndexFn>("nvmlDeviceGetMigDeviceHandleByIndex");
  std::vector<unsigned> found;
  for (unsigned slot = 0; slot < 7; ++slot) {
    abi::Device handle = nullptr;
    const abi::Return code = by_index(session.device(0), slot, &handle);
    if (code == abi::kSuccess)
      found.push_back(slot);
    else
      EXPECT_EQ(code, abi::kErrorNotFound) << slot;
  }
  EXPECT_EQ(found, (std::vector<unsigned>{1, 4}));
  abi::Device handle = nullptr;
  EXPECT_EQ(by_index(session.device(0), 7, &handle), abi::kErrorInvalidArgument);
}

TEST_F(Mig, HandlesKnowTheirIdsParentAndIdentity) {
  const abi::Device mig = mig_handle(4);
  unsigned is_mig = 0, gi = 0, ci = 0;
  EXPECT_EQ(session.fn<abi::DeviceUintFn>("nvmlDeviceIsMigDeviceHandle")(mig, &is_mig),
            abi::kSuccess);
  EXPECT_EQ(is_mig, 1U);
  EXPECT_EQ(
      session.fn<abi::DeviceUintFn>("nvmlDeviceIsMigDeviceHandle")(session.device(0), &is_mig),
      abi::kSuccess);
  EXPECT_EQ(is_mig, 0U);
  EXPECT_EQ(session.fn<abi::DeviceUintFn>("nvmlDeviceGetGpuInstanceId")(mig, &gi), abi::kSuccess);
  EXPECT_EQ(session.fn<abi::DeviceUintFn>("nvmlDeviceGetComputeInstanceId")(mig, &ci),
            abi::kSuccess);
  EXPECT_EQ(gi, 9U);
  EXPECT_EQ(ci, 1U);
  abi::Device parent = nullptr;
  EXPECT_EQ(
      session.fn<abi::DeviceParentFn>("nvmlDeviceGetDeviceHandleFromMigDeviceHandle")(mig, &parent),
      abi::kSuccess);
  EXPECT_EQ(parent, session.device(0));
  EXPECT_EQ(text("nvmlDeviceGetName", mig), "NVIDIA H100 80GB HBM3 MIG 1g.10gb");
  // Without a UUID in the scenario: "MIG-" and 36 characters, unique in the scenario.
  const std::string uuid = text("nvmlDeviceGetUUID", mig);
  EXPECT_EQ(uuid.size(), 40U);
  EXPECT_TRUE(uuid.starts_with("MIG-")) << uuid;
  EXPECT_EQ(text("nvmlDeviceGetUUID", mig_handle(1)), "MIG-11111111-2222-5333-8444-555555555555");
  abi::Device by_uuid = nullptr;
  EXPECT_EQ(session.fn<abi::HandleByUuidFn>("nvmlDeviceGetHandleByUUID")(uuid.c_str(), &by_uuid),
            abi::kSuccess);
  EXPECT_EQ(by_uuid, mig);
}

TEST_F(Mig, MemoryAndProcessesPerMigDevice) {
  const abi::Device big = mig_handle(1);
  abi::MemoryV2 memory{};
  memory.version = abi::kMemoryV2Version;
  EXPECT_EQ(session.fn<abi::DeviceMemoryV2Fn>("nvmlDeviceGetMemoryInfo_v2")(big, &memory),
            abi::kSuccess);
  EXPECT_EQ(memory.total, 40 * kGiB);
  EXPECT_EQ(memory.used, 4 * kGiB);  // pids 500 and 501
  EXPECT_EQ(memory.free, 36 * kGiB);
  abi::Memory v1{};
  EXPECT_EQ(session.fn<abi::DeviceMemoryFn>("nvmlDeviceGetMemoryInfo")(mig_handle(4), &v1),
            abi::kSuccess);
  EXPECT_EQ(v1.total, 10 * kGiB);
  EXPECT_EQ(v1.used, 2 * kGiB);

  const auto on_big = processes(big);
  ASSERT_EQ(on_big.size(), 2U);
  EXPECT_EQ(on_big[0].pid, 500U);
  EXPECT_EQ(on_big[1].pid, 501U);
  EXPECT_EQ(on_big[0].gpu_instance_id, 2U);
  EXPECT_EQ(on_big[0].compute_instance_id, 0U);
  const auto on_parent = processes(session.device(0));
  ASSERT_EQ(on_parent.size(), 3U);
  EXPECT_EQ(on_parent[2].pid, 502U);
  EXPECT_EQ(on_parent[2].gpu_instance_id, 9U);
  EXPECT_EQ(on_parent[2].compute_instance_id, 1U);
}

TEST_F(Mig, MigEnabledGpuRefusesUtilisationAndKeepsAccountingOff) {
  const abi::Device gpu = session.device(0);
  abi::Utilization rates{};
  EXPECT_EQ(session.fn<abi::DeviceUtilizationFn>("nvmlDeviceGetUtilizationRates")(gpu, &rates),
            abi::kErrorNotSupported);
  unsigned value = 0, period = 0;
  EXPECT_EQ(session.fn<abi::DeviceCodecUtilizationFn>("nvmlDeviceGetEncoderUtilization")(
                gpu, &value, &period),
            abi::kErrorNotSupported);
  EXPECT_EQ(session.fn<abi::DeviceCodecUtilizationFn>("nvmlDeviceGetDecoderUtilization")(
                gpu, &value, &period),
            abi::kErrorNotSupported);
  for (const abi::SamplingType type : {abi::kGpuUtilizationSamples, abi::kMemoryUtilizationSamples,
                                       abi::kEncUtilizationSamples, abi::kDecUtilizationSamples}) {
    abi::ValueType value_type{};
    unsigned count = 0;
    EXPECT_EQ(session.fn<abi::DeviceSamplesFn>("nvmlDeviceGetSamples")(gpu, type, 0, &value_type,
                                                                       &count, nullptr),
              abi::kErrorNotSupported)
        << type;
  }
  unsigned count = 0;
  EXPECT_EQ(session.fn<abi::DeviceProcessUtilizationFn>("nvmlDeviceGetProcessUtilization")(
                gpu, nullptr, &count, 0),
            abi::kErrorNotSupported);
  unsigned mode = 9;
  EXPECT_EQ(session.fn<abi::DeviceUintFn>("nvmlDeviceGetAccountingMode")(gpu, &mode),
            abi::kSuccess);
  EXPECT_EQ(mode, abi::kFeatureDisabled);  // the scenario enables it; MIG mode forces it off
  // The GPU with MIG off still reports utilisation.
  EXPECT_EQ(session.fn<abi::DeviceUtilizationFn>("nvmlDeviceGetUtilizationRates")(session.device(1),
                                                                                  &rates),
            abi::kSuccess);
}

TEST_F(Mig, WholeGpuCallsOnAMigHandleAreNotSupported) {
  unsigned temperature = 0;
  EXPECT_EQ(session.fn<abi::DeviceTemperatureFn>("nvmlDeviceGetTemperature")(
                mig_handle(1), abi::kTemperatureGpu, &temperature),
            abi::kErrorNotSupported);
}

TEST(MigScenario, MigEnabledIsTheScenariosMigObject) {
  const auto scenario = parse_scenario(kMig, "mig.json");
  ASSERT_TRUE(scenario) << scenario.error().message;
  EXPECT_TRUE(mig_enabled(scenario->devices[0]));
  EXPECT_FALSE(mig_enabled(scenario->devices[1]));
  EXPECT_TRUE(scenario->devices[1].mig_capable);
}

TEST(MigScenario, PlacementMustNameAnInstanceOfAMigGpu) {
  const auto wrong_instance = parse_scenario(R"({
    "devices": [{"name": "H100", "memory_total_bytes": 1000,
                 "mig": {"instances": [{"gpu_instance": 1, "profile": "7g.80gb",
                                        "memory_total_bytes": 1000}]}}],
    "processes": [{"device": 0, "pid": 5, "mig": {"gpu_instance": 2}}]})",
                                             "x.json");
  ASSERT_FALSE(wrong_instance);
  EXPECT_NE(wrong_instance.error().message.find("no MIG instance with gpu_instance 2"),
            std::string::npos)
      << wrong_instance.error().message;
  const auto unplaced = parse_scenario(R"({
    "devices": [{"name": "H100", "memory_total_bytes": 1000,
                 "mig": {"instances": [{"gpu_instance": 1, "profile": "7g.80gb",
                                        "memory_total_bytes": 1000}]}}],
    "processes": [{"device": 0, "pid": 5}]})",
                                       "x.json");
  ASSERT_FALSE(unplaced);
  EXPECT_NE(unplaced.error().message.find("needs \"mig\""), std::string::npos);
  const auto duplicate = parse_scenario(R"({
    "devices": [{"name": "H100", "memory_total_bytes": 1000,
                 "mig": {"instances": [
                   {"gpu_instance": 1, "profile": "1g.10gb", "memory_total_bytes": 10},
                   {"gpu_instance": 1, "profile": "1g.10gb", "memory_total_bytes": 10}]}}]})",
                                        "x.json");
  ASSERT_FALSE(duplicate);
  EXPECT_NE(duplicate.error().message.find("two MIG instances"), std::string::npos);
}

}  // namespace gpumeter::sim::mig_test

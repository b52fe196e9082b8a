// SPDX-License-Identifier: MIT
// Process lists and utilisation samples through dlopen: each sizing protocol, each
// element layout, lastSeenTimeStamp filtering and the version words.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "support/protocol_scenario.h"
#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::testing::processes_test {

constexpr unsigned char kSentinel = 0xAB;

class ProcessesTest : public ::testing::Test {
 protected:
  SimLibrary& lib = SimLibrary::open("sim");
  TempScenario scenario{kProtocolScenario};
};

// Calls a process-list symbol with room for `capacity` elements of up to 32 bytes, the
// buffer pre-filled with a sentinel, and returns the bytes.
std::vector<unsigned char> list_bytes(const Session& s, const char* symbol, abi::Device device,
                                      unsigned& count, abi::Return& result) {
  std::vector<unsigned char> buffer(8 * 32, kSentinel);
  result = s.fn<abi::DeviceProcessesFn>(symbol)(device, &count, buffer.data());
  return buffer;
}

std::uint32_t pid_at(const std::vector<unsigned char>& bytes, std::size_t offset) {
  std::uint32_t pid = 0;
  std::memcpy(&pid, bytes.data() + offset, sizeof pid);
  return pid;
}

TEST_F(ProcessesTest, SizingWithCountZero) {
  const Session s(lib, scenario.path());
  auto compute = s.fn<abi::DeviceProcessesFn>("nvmlDeviceGetComputeRunningProcesses_v3");
  unsigned count = 0;
  EXPECT_EQ(compute(s.device(0), &count, nullptr), abi::kErrorInsufficientSize);
  EXPECT_EQ(count, 2u);
  count = 1;  // too small, with a buffer
  std::vector<abi::ProcessInfoV2> infos(2);
  EXPECT_EQ(compute(s.device(0), &count, infos.data()), abi::kErrorInsufficientSize);
  EXPECT_EQ(count, 2u);
  ASSERT_EQ(compute(s.device(0), &count, infos.data()), abi::kSuccess);
  EXPECT_EQ(infos[0].pid, 1001u);
  EXPECT_EQ(infos[0].used_gpu_memory, 1'000'000'000u);
  EXPECT_EQ(infos[0].gpu_instance_id, 0xFFFFFFFFu);
  EXPECT_EQ(infos[1].pid, 1002u);
  count = 0;  // an idle GPU: SUCCESS with nothing
  EXPECT_EQ(compute(s.device(1), &count, nullptr), abi::kSuccess);
  EXPECT_EQ(count, 0u);
}

TEST_F(ProcessesTest, GraphicsAndComputeListsAreSeparate) {
  const Session s(lib, scenario.path());
  unsigned count = 4;
  std::vector<abi::ProcessInfoV2> infos(4);
  ASSERT_EQ(s.fn<abi::DeviceProcessesFn>("nvmlDeviceGetGraphicsRunningProcesses_v2")(
                s.device(0), &count, infos.data()),
            abi::kSuccess);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(infos[0].pid, 1003u);
  count = 4;
  EXPECT_EQ(s.fn<abi::DeviceProcessesFn>("nvmlDeviceGetMPSComputeRunningProcesses_v3")(
                s.device(0), &count, infos.data()),
            abi::kSuccess);
  EXPECT_EQ(count, 0u);
}

TEST_F(ProcessesTest, ElementSizeFollowsTheSymbolName) {
  const Session s(lib, scenario.path());
  const struct {
    const char* symbol;
    std::size_t stride;
  } cases[] = {{"nvmlDeviceGetComputeRunningProcesses", 16},
               {"nvmlDeviceGetComputeRunningProcesses_v2", 24},
               {"nvmlDeviceGetComputeRunningProcesses_v3", 24}};
  for (const auto& c : cases) {
    unsigned count = 8;
    abi::Return result = abi::kErrorUnknown;
    const auto bytes = list_bytes(s, c.symbol, s.device(0), count, result);
    ASSERT_EQ(result, abi::kSuccess) << c.symbol;
    ASSERT_EQ(count, 2u);
    EXPECT_EQ(pid_at(bytes, 0), 1001u) << c.symbol;
    EXPECT_EQ(pid_at(bytes, c.stride), 1002u) << c.symbol;
    EXPECT_EQ(bytes[2 * c.stride], kSentinel) << c.symbol;  // nothing written past the list
    EXPECT_NE(bytes[2 * c.stride - 1], kSentinel) << c.symbol;
  }
}

TEST_F(ProcessesTest, DetailListChecksVersionAndArchitecture) {
  const char* hopper =
      R"({"devices": [{"name": "H100", "architecture": "hopper", "memory_total_bytes": 1000}],
    "processes": [{"device": 0, "pid": 7, "used_memory_bytes": 10, "utilization": {"sm": 1}}]})";
  auto detail = lib.fn<abi::DeviceProcessDetailListFn>("nvmlDeviceGetRunningProcessDetailList");
  abi::ProcessDetailListV1 list{};
  std::vector<abi::ProcessDetailV1> entries(1);
  {
    const TempScenario file(hopper);
    const Session s(lib, file.path());
    EXPECT_EQ(detail(s.device(0), &list), abi::kErrorArgumentVersionMismatch);
    list.version = abi::kProcessDetailListVersion;
    list.mode = abi::kProcessModeCompute;
    EXPECT_EQ(detail(s.device(0), &list), abi::kErrorInsufficientSize);
    EXPECT_EQ(list.num_proc_array_entries, 1u);
    list.proc_array = entries.data();
    ASSERT_EQ(detail(s.device(0), &list), abi::kSuccess);
    EXPECT_EQ(entries[0].pid, 7u);
    EXPECT_EQ(entries[0].used_gpu_memory, 10u);
  }
  const Session volta(lib, scenario.path());
  EXPECT_EQ(detail(volta.device(0), &list), abi::kErrorNotSupported);
}

TEST_F(ProcessesTest, DeviceSamplesNullBufferAnswersTheCount) {
  const Session s(lib, scenario.path(), 100.5);
  auto samples = s.fn<abi::DeviceSamplesFn>("nvmlDeviceGetSamples");
  abi::ValueType type{};
  unsigned count = 0;
  ASSERT_EQ(samples(s.device(0), abi::kGpuUtilizationSamples, 0, &type, &count, nullptr),
            abi::kSuccess);
  EXPECT_EQ(count, 10u);  // a 10-second buffer of 1-second samples
  std::vector<abi::Sample> buffer(4);
  count = 4;  // a small buffer gets the oldest samples, so draining with lastSeen works
  ASSERT_EQ(samples(s.device(0), abi::kGpuUtilizationSamples, 0, &type, &count, buffer.data()),
            abi::kSuccess);
  EXPECT_EQ(count, 4u);
  EXPECT_EQ(type, abi::kValueTypeUnsignedInt);
  EXPECT_EQ(buffer[0].time_stamp, static_cast<std::uint64_t>(kEpochUs + 91'000'000));
  EXPECT_EQ(buffer[0].value.ui, 90u);  // (90, 91]: 60 % plus a 30 % burst
  EXPECT_EQ(buffer[2].value.ui, 60u);
  EXPECT_EQ(buffer[3].time_stamp, static_cast<std::uint64_t>(kEpochUs + 94'000'000));
  const std::uint64_t newest = kEpochUs + 100'000'000;
  EXPECT_EQ(samples(s.device(0), abi::kGpuUtilizationSamples, newest, &type, &count, buffer.data()),
            abi::kErrorNotFound);
  count = 0;
  EXPECT_EQ(samples(s.device(0), abi::kGpuUtilizationSamples, 0, &type, &count, buffer.data()),
            abi::kErrorInvalidArgument);
  count = 4;
  ASSERT_EQ(samples(s.device(0), abi::kTotalPowerSamples, newest - 1'000'000, &type, &count,
                    buffer.data()),
            abi::kSuccess);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(buffer[0].value.ui, 220'000u);  // (99, 100]: 60 %
}

TEST_F(ProcessesTest, ProcessUtilizationNullBufferAnswersAFixedCapacity) {
  const Session s(lib, scenario.path(), 100.5);
  auto utilization = s.fn<abi::DeviceProcessUtilizationFn>("nvmlDeviceGetProcessUtilization");
  unsigned count = 0;
  ASSERT_EQ(utilization(s.device(0), nullptr, &count, 0), abi::kErrorInsufficientSize);
  EXPECT_EQ(count, 100u);  // the driver's buffer size, not the number of samples
  std::vector<abi::ProcessUtilizationSample> buffer(count);
  ASSERT_EQ(utilization(s.device(0), buffer.data(), &count, 0), abi::kSuccess);
  // One sample per busy process, its mean over the whole buffer (ten 1 s periods), stamped
  // with the newest period's end: pid 1001 at 60 % throughout; the bursty pid 1002 at 30 %
  // in two periods of ten, (90, 92]; idle pid 1003 not at all.
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(buffer[0].pid, 1001u);
  EXPECT_EQ(buffer[0].sm_util, 60u);
  EXPECT_EQ(buffer[1].pid, 1002u);
  EXPECT_EQ(buffer[1].sm_util, 6u);
  for (unsigned i = 0; i < count; ++i) {
    EXPECT_EQ(buffer[i].time_stamp, static_cast<std::uint64_t>(kEpochUs + 100'000'000));
  }
  // Only samples newer than lastSeen, and NOT_FOUND when there are none.
  count = 100;
  ASSERT_EQ(utilization(s.device(0), buffer.data(), &count, kEpochUs + 99'000'000), abi::kSuccess);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(buffer[0].pid, 1001u);
  EXPECT_EQ(buffer[0].time_stamp, static_cast<std::uint64_t>(kEpochUs + 100'000'000));
  count = 100;
  EXPECT_EQ(utilization(s.device(0), buffer.data(), &count, kEpochUs + 100'000'000),
            abi::kErrorNotFound);
  count = 100;
  EXPECT_EQ(utilization(s.device(1), buffer.data(), &count, 0),
            abi::kErrorNotFound);  // an idle GPU
  // The sizing call too answers NOT_FOUND when nothing is newer, before any size, as a 550
  // driver does for an idle GPU (rust-nvml issue #56) and as the newer call does.
  count = 0;
  EXPECT_EQ(utilization(s.device(1), nullptr, &count, 0), abi::kErrorNotFound);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(utilization(s.device(0), nullptr, &count, kEpochUs + 100'000'000), abi::kErrorNotFound);
  EXPECT_EQ(count, 0u);
}

TEST_F(ProcessesTest, ProcessesUtilizationInfoNeedsItsVersionAndAnswersTheNeed) {
  const Session s(lib, scenario.path(), 100.5);
  auto info_call =
      s.fn<abi::DeviceProcessesUtilizationInfoFn>("nvmlDeviceGetProcessesUtilizationInfo");
  abi::ProcessesUtilizationInfoV1 info{};
  EXPECT_EQ(info_call(s.device(0), &info), abi::kErrorArgumentVersionMismatch);
  info.version = abi::kProcessesUtilizationInfoVersion;
  info.last_seen_time_stamp = kEpochUs + 95'000'000;
  EXPECT_EQ(info_call(s.device(0), &info), abi::kErrorInsufficientSize);
  EXPECT_EQ(info.process_samples_count, 1u);  // the real need: pid 1001's mean over (95, 100]
  std::vector<abi::ProcessUtilizationInfoV1> buffer(2);
  info.proc_util_array = buffer.data();
  info.process_samples_count = 0;
  EXPECT_EQ(info_call(s.device(0), &info), abi::kErrorInsufficientSize);
  EXPECT_EQ(info.process_samples_count, 1u);
  ASSERT_EQ(info_call(s.device(0), &info), abi::kSuccess);
  EXPECT_EQ(info.process_samples_count, 1u);
  EXPECT_EQ(buffer[0].pid, 1001u);
  EXPECT_EQ(buffer[0].sm_util, 60u);
  EXPECT_EQ(buffer[0].mem_util, 25u);
  EXPECT_EQ(buffer[0].time_stamp, static_cast<std::uint64_t>(kEpochUs + 100'000'000));
  info.last_seen_time_stamp = buffer[0].time_stamp;
  EXPECT_EQ(info_call(s.device(0), &info), abi::kErrorNotFound);
  // Nothing newer is NOT_FOUND to the sizing call as well: the two calls agree on the order.
  info.proc_util_array = nullptr;
  info.process_samples_count = 0;
  EXPECT_EQ(info_call(s.device(0), &info), abi::kErrorNotFound);
  EXPECT_EQ(info.process_samples_count, 0u);
}

TEST_F(ProcessesTest, DrainingWithLastSeenMissesNothingAsTimeMoves) {
  const Session s(lib, scenario.path(), 100.5);
  auto utilization = s.fn<abi::DeviceProcessUtilizationFn>("nvmlDeviceGetProcessUtilization");
  std::vector<abi::ProcessUtilizationSample> buffer(100);
  std::uint64_t last_seen = kEpochUs + 100'000'000;
  unsigned seen_1002 = 0;
  for (double t = 101.5; t < 121; t += 1.0) {  // one poll per period, two bursts of pid 1002
    s.at(t);
    unsigned count = 100;
    if (utilization(s.device(0), buffer.data(), &count, last_seen) != abi::kSuccess) continue;
    for (unsigned i = 0; i < count; ++i) {
      EXPECT_GT(buffer[i].time_stamp, last_seen);
      seen_1002 += buffer[i].pid == 1002;
    }
    last_seen = buffer[count - 1].time_stamp;
  }
  EXPECT_EQ(seen_1002, 4u);  // (100, 102] and (110, 112]
}

}  // namespace gpumeter::sim::testing::processes_test

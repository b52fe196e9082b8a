// SPDX-License-Identifier: MIT
// The process-list protocol against scripted fake entry points: sizing, growth, element
// layouts and the stride guard, without any library.
#include "nvml/processes.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

#include "nvml/device_reader.h"

namespace gpumeter::nvml::processes_test {

using namespace abi;

constexpr std::uint64_t kGiB = 1ull << 30;

// What one fake list call answers. Elements are kept in the widest (32-byte) layout and
// written with `stride` bytes each, as a driver of that layout would.
struct Script {
  std::vector<ProcessDetailV1> processes;
  std::size_t stride = sizeof(ProcessInfoV2);
  std::size_t grow_per_fill = 0;  // processes that appear just before each filling call
  int fills_that_grow = 0;        // how many filling calls see the growth (-1: all)
  Return forced = kSuccess;       // answered to every call when not kSuccess
  int calls = 0;
};

std::array<Script*, 3> g_scripts{};

ProcessDetailV1 process(unsigned pid, std::uint64_t memory = kGiB,
                        std::uint32_t gi = kValueNotAvailableU32,
                        std::uint32_t ci = kValueNotAvailableU32) {
  return {pid, memory, gi, ci, 0};
}

void grow(Script& script) {
  if (script.fills_that_grow == 0) return;
  if (script.fills_that_grow > 0) --script.fills_that_grow;
  for (std::size_t i = 0; i < script.grow_per_fill; ++i) {
    script.processes.push_back(process(static_cast<unsigned>(9000 + script.processes.size())));
  }
}

template <int N>
Return fake_list(Device, unsigned* count, void* infos) {
  Script& script = *g_scripts[N];
  ++script.calls;
  if (script.forced != kSuccess) return script.forced;
  if (infos != nullptr) grow(script);
  const auto size = static_cast<unsigned>(script.processes.size());
  if (infos == nullptr || *count < size) {
    *count = size;
    return size == 0 ? kSuccess : kErrorInsufficientSize;
  }
  auto* out = static_cast<std::byte*>(infos);
  for (std::size_t i = 0; i < size; ++i) {
    std::memcpy(out + i * script.stride, &script.processes[i], script.stride);
  }
  *count = size;
  return kSuccess;
}

template <int N>
Entry<DeviceProcessesFn> entry(const char* symbol) {
  return {&fake_list<N>, 0, symbol};
}

constexpr const char* kV3 = "nvmlDeviceGetComputeRunningProcesses_v3";
constexpr const char* kV2 = "nvmlDeviceGetComputeRunningProcesses_v2";
constexpr const char* kV1 = "nvmlDeviceGetComputeRunningProcesses";

class ProcessListTest : public ::testing::Test {
 protected:
  void SetUp() override { g_scripts = {&scripts_[0], &scripts_[1], &scripts_[2]}; }
  void TearDown() override { g_scripts = {}; }

  Maybe<std::vector<ListedProcess>> read(const char* symbol) {
    return read_process_list(query_, entry<0>(symbol));
  }

  std::array<Script, 3> scripts_;
  Script& script_ = scripts_[0];
  EntryPoints api_;
  DeviceQuery query_{api_, nullptr};
};

TEST_F(ProcessListTest, EmptyListAnswersTheSizingCall) {
  auto listed = read(kV3);
  ASSERT_TRUE(listed.has_value());
  EXPECT_TRUE(listed->empty());
  EXPECT_EQ(script_.calls, 1);
}

TEST_F(ProcessListTest, ReadsV2Elements) {
  script_.processes = {process(100, 3 * kGiB), process(200, kValueNotAvailableU64, 1, 0)};
  auto listed = read(kV3);
  ASSERT_TRUE(listed.has_value());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].pid, 100u);
  EXPECT_EQ((*listed)[0].used_memory_bytes, 3 * kGiB);
  EXPECT_FALSE((*listed)[0].mig.has_value());
  EXPECT_EQ((*listed)[1].pid, 200u);
  EXPECT_EQ((*listed)[1].used_memory_bytes, std::unexpected(Unavailable::not_supported));
  const MigInstance mig = (*listed)[1].mig.value_or(MigInstance{99, 99});
  EXPECT_EQ(mig.gpu_instance_id, 1u);
  EXPECT_EQ(mig.compute_instance_id, 0u);
  EXPECT_EQ(script_.calls, 2);
}

TEST_F(ProcessListTest, ReadsV1Elements) {
  script_.stride = sizeof(ProcessInfoV1);
  script_.processes = {process(7, kGiB), process(8, 2 * kGiB), process(9, 0)};
  auto listed = read(kV1);
  ASSERT_TRUE(listed.has_value());
  ASSERT_EQ(listed->size(), 3u);
  EXPECT_EQ((*listed)[1].pid, 8u);
  EXPECT_EQ((*listed)[1].used_memory_bytes, 2 * kGiB);
  EXPECT_EQ((*listed)[2].pid, 9u);
  EXPECT_EQ((*listed)[2].used_memory_bytes, 0u);
  EXPECT_FALSE((*listed)[2].mig.has_value());
}

TEST_F(ProcessListTest, ThirtyTwoByteElementsAreRefusedNotMisread) {
  script_.stride = sizeof(ProcessDetailV1);
  script_.processes = {process(100), process(200)};
  EXPECT_EQ(read(kV3), std::unexpected(Unavailable::error));
}

TEST_F(ProcessListTest, ThirtyTwoByteSingleElementIsRefused) {
  script_.stride = sizeof(ProcessDetailV1);
  script_.processes = {process(100)};
  EXPECT_EQ(read(kV3), std::unexpected(Unavailable::error));
}

TEST_F(ProcessListTest, SixteenByteElementsUnderAV2NameAreRefused) {
  script_.stride = sizeof(ProcessInfoV1);
  script_.processes = {process(100)};
  EXPECT_EQ(read(kV2), std::unexpected(Unavailable::error));
  script_.processes = {process(100), process(200), process(300)};
  EXPECT_EQ(read(kV2), std::unexpected(Unavailable::error));
}

TEST_F(ProcessListTest, ListThatGrowsBetweenCallsIsAskedAgain) {
  script_.processes = {process(100)};
  script_.grow_per_fill = kProcessListSlack + 3;  // more than the slack covers
  script_.fills_that_grow = 1;
  auto listed = read(kV3);
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(listed->size(), 1 + kProcessListSlack + 3);
  EXPECT_EQ(script_.calls, 3);
}

TEST_F(ProcessListTest, ListThatKeepsGrowingGivesUp) {
  script_.processes = {process(100)};
  script_.grow_per_fill = 50;
  script_.fills_that_grow = -1;
  EXPECT_EQ(read(kV3), std::unexpected(Unavailable::error));
  EXPECT_EQ(script_.calls, 1 + kProcessListAttempts);
}

TEST_F(ProcessListTest, FailingCodesBecomeReasons) {
  script_.forced = kErrorNoPermission;
  EXPECT_EQ(read(kV3), std::unexpected(Unavailable::no_permission));
  script_.forced = kErrorNotSupported;
  EXPECT_EQ(read(kV3), std::unexpected(Unavailable::not_supported));
  script_.forced = kErrorUnknown;
  EXPECT_EQ(read(kV3), std::unexpected(Unavailable::error));
  EXPECT_FALSE(query_.lost());
}

TEST_F(ProcessListTest, LostGpuStopsFurtherCalls) {
  script_.forced = kErrorGpuIsLost;
  EXPECT_EQ(read(kV3), std::unexpected(Unavailable::gpu_lost));
  EXPECT_TRUE(query_.lost());
  script_.forced = kSuccess;
  EXPECT_EQ(read(kV3), std::unexpected(Unavailable::gpu_lost));
  EXPECT_EQ(script_.calls, 1);
}

TEST_F(ProcessListTest, AbsentEntryIsNotSupported) {
  EXPECT_EQ(read_process_list(query_, {}), std::unexpected(Unavailable::not_supported));
}

class MergedProcessesTest : public ProcessListTest {
 protected:
  void SetUp() override {
    ProcessListTest::SetUp();
    api_.compute_processes = entry<0>(kV3);
    api_.graphics_processes = entry<1>("nvmlDeviceGetGraphicsRunningProcesses_v3");
    api_.mps_processes = entry<2>("nvmlDeviceGetMPSComputeRunningProcesses_v3");
  }
  Script& compute_ = scripts_[0];
  Script& graphics_ = scripts_[1];
  Script& mps_ = scripts_[2];
};

TEST_F(MergedProcessesTest, ListsMergeByPid) {
  compute_.processes = {process(300, 2 * kGiB), process(100, kGiB)};
  graphics_.processes = {process(300, kValueNotAvailableU64), process(50, 5 * kGiB)};
  mps_.forced = kErrorNotSupported;
  auto merged = read_processes(query_);
  ASSERT_TRUE(merged.has_value());
  ASSERT_EQ(merged->size(), 3u);
  EXPECT_EQ((*merged)[0].pid, 50u);
  EXPECT_TRUE((*merged)[0].contexts.graphics);
  EXPECT_FALSE((*merged)[0].contexts.compute);
  EXPECT_EQ((*merged)[1].pid, 100u);
  EXPECT_EQ((*merged)[2].pid, 300u);
  EXPECT_TRUE((*merged)[2].contexts.compute);
  EXPECT_TRUE((*merged)[2].contexts.graphics);
  EXPECT_FALSE((*merged)[2].contexts.mps);
  EXPECT_EQ((*merged)[2].used_memory_bytes, 2 * kGiB);
}

TEST_F(MergedProcessesTest, MemoryComesFromWhicheverListKnowsIt) {
  compute_.processes = {process(300, kValueNotAvailableU64)};
  mps_.processes = {process(300, 4 * kGiB)};
  auto merged = read_processes(query_);
  ASSERT_TRUE(merged.has_value());
  ASSERT_EQ(merged->size(), 1u);
  EXPECT_TRUE((*merged)[0].contexts.mps);
  EXPECT_EQ((*merged)[0].used_memory_bytes, 4 * kGiB);
}

TEST_F(MergedProcessesTest, OneFailingListMakesTheWholeListAbsent) {
  compute_.processes = {process(100)};
  graphics_.forced = kErrorUnknown;
  EXPECT_EQ(read_processes(query_), std::unexpected(Unavailable::error));
}

TEST_F(MergedProcessesTest, NothingSupported) {
  compute_.forced = kErrorNotSupported;
  api_.graphics_processes = {};
  mps_.forced = kErrorFunctionNotFound;
  EXPECT_EQ(read_processes(query_), std::unexpected(Unavailable::not_supported));
}

}  // namespace gpumeter::nvml::processes_test

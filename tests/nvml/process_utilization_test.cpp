// SPDX-License-Identifier: MIT
// Draining per-process utilisation against scripted fake entry points: both calls' sizing
// protocols, lastSeenTimeStamp, NOT_FOUND, the fallback to the older call and junk samples.
#include "nvml/process_utilization.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace gpumeter::nvml::process_utilization_test {

using namespace abi;

constexpr std::uint64_t kT0 = 1'700'000'000'000'000;

// What the fake driver holds and how it answers. Samples are kept in the newer layout.
struct Driver {
  std::vector<ProcessUtilizationInfoV1> buffered;
  unsigned old_capacity = 100;      // the older call's answer to a NULL buffer
  bool filters = true;              // false: returns samples at or before last seen (junk)
  unsigned arrive_before_fill = 0;  // samples that arrive just before a filling call
  int growing_fills = -1;           // how many filling calls see arrivals (-1: all)
  Return forced_new = kSuccess;     // answered by the newer call when not kSuccess
  Return forced_old = kSuccess;     // likewise for the older call
  std::vector<std::uint64_t> last_seen_passed;
  int new_calls = 0;
  int old_calls = 0;
};

Driver* g_driver = nullptr;

ProcessUtilizationInfoV1 sample(unsigned pid, std::uint64_t t, unsigned sm) {
  return {t, pid, sm, sm / 2, 3, 4, 5, 6};
}

void arrive(Driver& d) {
  if (d.growing_fills == 0) return;
  if (d.growing_fills > 0) --d.growing_fills;
  for (unsigned i = 0; i < d.arrive_before_fill; ++i) {
    const std::uint64_t t = d.buffered.empty() ? kT0 : d.buffered.back().time_stamp + 1;
    d.buffered.push_back(sample(9000 + i, t, 50));
  }
}

std::vector<ProcessUtilizationInfoV1> visible(const Driver& d, std::uint64_t last_seen) {
  std::vector<ProcessUtilizationInfoV1> out;
  std::ranges::copy_if(d.buffered, std::back_inserter(out),
                       [&](const auto& s) { return !d.filters || s.time_stamp > last_seen; });
  return out;
}

Return fake_new(Device, ProcessesUtilizationInfoV1* info) {
  Driver& d = *g_driver;
  ++d.new_calls;
  if (d.forced_new != kSuccess) return d.forced_new;
  if (info->version != kProcessesUtilizationInfoVersion) return kErrorArgumentVersionMismatch;
  d.last_seen_passed.push_back(info->last_seen_time_stamp);
  if (info->proc_util_array != nullptr) arrive(d);
  const auto list = visible(d, info->last_seen_time_stamp);
  if (list.empty()) return kErrorNotFound;
  if (info->proc_util_array == nullptr || info->process_samples_count < list.size()) {
    info->process_samples_count = static_cast<unsigned>(list.size());
    return kErrorInsufficientSize;
  }
  std::ranges::copy(list, info->proc_util_array);
  info->process_samples_count = static_cast<unsigned>(list.size());
  return kSuccess;
}

Return fake_old(Device, ProcessUtilizationSample* out, unsigned* count, std::uint64_t last_seen) {
  Driver& d = *g_driver;
  ++d.old_calls;
  if (d.forced_old != kSuccess) return d.forced_old;
  d.last_seen_passed.push_back(last_seen);
  if (out == nullptr) {
    *count = d.old_capacity;
    return kErrorInsufficientSize;
  }
  arrive(d);
  const auto list = visible(d, last_seen);
  if (list.empty()) return kErrorNotFound;
  if (*count < list.size()) {
    *count = static_cast<unsigned>(list.size());
    return kErrorInsufficientSize;
  }
  std::ranges::transform(list, out, [](const ProcessUtilizationInfoV1& s) {
    return ProcessUtilizationSample{s.pid,      s.time_stamp, s.sm_util,
                                    s.mem_util, s.enc_util,   s.dec_util};
  });
  *count = static_cast<unsigned>(list.size());
  return kSuccess;
}

class ProcessUtilizationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_driver = &driver_;
    api_.processes_utilization_info = {&fake_new, 0, "nvmlDeviceGetProcessesUtilizationInfo"};
    api_.process_utilization = {&fake_old, 0, "nvmlDeviceGetProcessUtilization"};
  }
  void TearDown() override { g_driver = nullptr; }

  Maybe<std::vector<PidGpuSample>> drain(std::optional<TimeUs> last_seen) {
    DeviceQuery query(api_, nullptr);
    return read_process_utilization(query, last_seen);
  }

  Driver driver_;
  EntryPoints api_;
};

TEST_F(ProcessUtilizationTest, NewerCallReportsEveryEngineUnclamped) {
  driver_.buffered = {sample(10, kT0 + 1, 80), sample(11, kT0 + 2, 130)};
  auto samples = drain(std::nullopt);
  ASSERT_TRUE(samples.has_value());
  ASSERT_EQ(samples->size(), 2U);
  const PidGpuSample& first = (*samples)[0];
  EXPECT_EQ(first.pid, 10U);
  EXPECT_EQ(first.sample.time_us, static_cast<TimeUs>(kT0 + 1));
  EXPECT_EQ(first.sample.sm, 80U);
  EXPECT_EQ(first.sample.mem, 40U);
  EXPECT_EQ(first.sample.enc, 3U);
  EXPECT_EQ(first.sample.dec, 4U);
  EXPECT_EQ(first.sample.jpg, 5U);
  EXPECT_EQ(first.sample.ofa, 6U);
  EXPECT_EQ((*samples)[1].sample.sm, 130U);  // the series clamps, not the backend
  EXPECT_EQ(driver_.old_calls, 0);
}

TEST_F(ProcessUtilizationTest, PassesLastSeenToEveryCallAndZeroTheFirstTime) {
  driver_.buffered = {sample(10, kT0 + 1, 80), sample(10, kT0 + 5, 80)};
  ASSERT_TRUE(drain(std::nullopt).has_value());
  EXPECT_EQ(driver_.last_seen_passed, (std::vector<std::uint64_t>{0, 0}));
  driver_.last_seen_passed.clear();
  auto newer = drain(static_cast<TimeUs>(kT0 + 1));
  ASSERT_TRUE(newer.has_value());
  ASSERT_EQ(newer->size(), 1U);
  EXPECT_EQ((*newer)[0].sample.time_us, static_cast<TimeUs>(kT0 + 5));
  EXPECT_EQ(driver_.last_seen_passed, (std::vector<std::uint64_t>{kT0 + 1, kT0 + 1}));
}

TEST_F(ProcessUtilizationTest, NotFoundMeansNothingNewer) {
  driver_.buffered = {sample(10, kT0 + 1, 80)};
  auto samples = drain(static_cast<TimeUs>(kT0 + 1));
  ASSERT_TRUE(samples.has_value());
  EXPECT_TRUE(samples->empty());
  EXPECT_EQ(driver_.new_calls, 1);
}

TEST_F(ProcessUtilizationTest, OlderCallWhenTheNewerIsAbsent) {
  api_.processes_utilization_info = {};
  driver_.buffered = {sample(10, kT0 + 1, 80), sample(11, kT0 + 2, 20)};
  auto samples = drain(std::nullopt);
  ASSERT_TRUE(samples.has_value());
  ASSERT_EQ(samples->size(), 2U);
  EXPECT_EQ((*samples)[1].pid, 11U);
  EXPECT_EQ((*samples)[1].sample.sm, 20U);
  EXPECT_EQ((*samples)[1].sample.dec, 4U);
  EXPECT_FALSE((*samples)[1].sample.jpg.has_value());
  EXPECT_FALSE((*samples)[1].sample.ofa.has_value());
  EXPECT_EQ(driver_.old_calls, 2);  // sizing (a capacity), then one fill
}

TEST_F(ProcessUtilizationTest, OlderCallGrowsPastItsAnnouncedCapacity) {
  api_.processes_utilization_info = {};
  driver_.old_capacity = 2;
  for (unsigned i = 0; i < 40; ++i) driver_.buffered.push_back(sample(i, kT0 + i + 1, 10));
  auto samples = drain(std::nullopt);
  ASSERT_TRUE(samples.has_value());
  EXPECT_EQ(samples->size(), 40U);
}

TEST_F(ProcessUtilizationTest, OlderCallWhenTheNewerIsRefused) {
  for (const Return refusal :
       {kErrorArgumentVersionMismatch, kErrorFunctionNotFound, kErrorNotSupported}) {
    driver_ = Driver{.buffered = {sample(10, kT0 + 1, 80)}, .forced_new = refusal};
    auto samples = drain(std::nullopt);
    ASSERT_TRUE(samples.has_value()) << describe_return(refusal);
    ASSERT_EQ(samples->size(), 1U);
    EXPECT_FALSE((*samples)[0].sample.jpg.has_value());
    EXPECT_EQ(driver_.old_calls, 2);
  }
}

TEST_F(ProcessUtilizationTest, OtherFailuresOfTheNewerCallAreNotRetriedWithTheOlder) {
  driver_.forced_new = kErrorUnknown;
  EXPECT_EQ(drain(std::nullopt), std::unexpected(Unavailable::error));
  EXPECT_EQ(driver_.old_calls, 0);
  driver_.forced_new = kErrorNoPermission;
  EXPECT_EQ(drain(std::nullopt), std::unexpected(Unavailable::no_permission));
}

TEST_F(ProcessUtilizationTest, MigAnswersNotSupported) {
  driver_.forced_new = kErrorNotSupported;
  driver_.forced_old = kErrorNotSupported;
  EXPECT_EQ(drain(std::nullopt), std::unexpected(Unavailable::not_supported));
}

TEST_F(ProcessUtilizationTest, NoCallAtAllIsNotSupported) {
  api_ = EntryPoints{};
  EXPECT_EQ(drain(std::nullopt), std::unexpected(Unavailable::not_supported));
}

TEST_F(ProcessUtilizationTest, ALostGpuIsLost) {
  driver_.forced_new = kErrorGpuIsLost;
  EXPECT_EQ(drain(std::nullopt), std::unexpected(Unavailable::gpu_lost));
  EXPECT_EQ(driver_.old_calls, 0);
}

TEST_F(ProcessUtilizationTest, ResizesWhileSamplesKeepArriving) {
  driver_.buffered = {sample(10, kT0 + 1, 80)};
  driver_.arrive_before_fill = kUtilizationSlack + 3;  // more than the slack, twice
  driver_.growing_fills = 2;
  auto samples = drain(std::nullopt);
  ASSERT_TRUE(samples.has_value());
  EXPECT_EQ(samples->size(), 1 + 2 * (kUtilizationSlack + 3));
  EXPECT_EQ(driver_.new_calls, 4);
}

TEST_F(ProcessUtilizationTest, GivesUpWhenTheArrayNeverSuffices) {
  driver_.buffered = {sample(10, kT0 + 1, 80)};
  driver_.arrive_before_fill = 10'000;
  EXPECT_EQ(drain(std::nullopt), std::unexpected(Unavailable::error));
  EXPECT_EQ(driver_.new_calls, 1 + kUtilizationAttempts);
}

TEST_F(ProcessUtilizationTest, DropsJunkAtOrBeforeLastSeen) {
  driver_.filters = false;  // as drivers do for zombie processes
  driver_.buffered = {sample(10, kT0 - 50, 90), sample(11, kT0, 250), sample(12, kT0 + 7, 30)};
  auto samples = drain(static_cast<TimeUs>(kT0));
  ASSERT_TRUE(samples.has_value());
  ASSERT_EQ(samples->size(), 1U);
  EXPECT_EQ((*samples)[0].pid, 12U);
}

}  // namespace gpumeter::nvml::process_utilization_test

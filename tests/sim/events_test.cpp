// SPDX-License-Identifier: MIT
// Event sets through dlopen: XID faults reach the sets that registered the GPU before the
// fault's time, one per wait, in time order; a wait with nothing due answers TIMEOUT (at once
// with a timeout of 0); unknown sets and unmodelled event types are refused.
#include <gtest/gtest.h>

#include <chrono>

#include "sim/scenario.h"
#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::testing::events_test {

constexpr const char* kScenario = R"({
  "devices": [{"name": "NVIDIA A100-SXM4-40GB", "architecture": "ampere", "memory_total_bytes": 1},
              {"name": "NVIDIA A100-SXM4-40GB", "architecture": "ampere", "memory_total_bytes": 1},
              {"name": "NVIDIA A100-SXM4-40GB", "architecture": "ampere",
               "memory_total_bytes": 1, "unsupported": ["events"]}],
  "faults": {"xid": [{"device": 1, "at_s": 30, "code": 79}, {"device": 0, "at_s": 20, "code": 13},
                     {"device": 0, "at_s": 5, "code": 31}]}
})";

class Events : public ::testing::Test {
 protected:
  SimLibrary& lib = SimLibrary::open("sim");
  TempScenario scenario{kScenario};

  abi::Return wait(abi::EventSet set, abi::EventData* data, unsigned timeout_ms = 0) const {
    return lib.fn<abi::EventSetWaitFn>("nvmlEventSetWait_v2")(set, data, timeout_ms);
  }
};

TEST_F(Events, XidFaultsReachRegisteredSetsInTimeOrder) {
  const Session s(lib, scenario.path(), 10);
  abi::EventSet set = nullptr;
  ASSERT_EQ(lib.fn<abi::EventSetCreateFn>("nvmlEventSetCreate")(&set), abi::kSuccess);
  const auto register_events = lib.fn<abi::DeviceRegisterEventsFn>("nvmlDeviceRegisterEvents");
  ASSERT_EQ(register_events(s.device(0), abi::kEventTypeXidCriticalError, set), abi::kSuccess);
  ASSERT_EQ(register_events(s.device(1), abi::kEventTypeXidCriticalError | 0x1, set),
            abi::kSuccess);
  EXPECT_EQ(register_events(s.device(0), 0x1, set), abi::kErrorNotSupported)
      << "only XID events are modelled";
  EXPECT_EQ(register_events(s.device(2), abi::kEventTypeXidCriticalError, set),
            abi::kErrorNotSupported);

  abi::EventData data{};
  EXPECT_EQ(wait(set, &data), abi::kErrorTimeout) << "the XID at t = 5 preceded registration";
  set_clock(kEpochUs + 35'000'000);
  ASSERT_EQ(wait(set, &data), abi::kSuccess);
  EXPECT_EQ(data.device, s.device(0));
  EXPECT_EQ(data.event_type, abi::kEventTypeXidCriticalError);
  EXPECT_EQ(data.event_data, 13U);
  EXPECT_EQ(data.gpu_instance_id, 0xFFFFFFFFU);
  ASSERT_EQ(wait(set, &data), abi::kSuccess);
  EXPECT_EQ(data.device, s.device(1));
  EXPECT_EQ(data.event_data, 79U);
  EXPECT_EQ(wait(set, &data), abi::kErrorTimeout);

  std::uint64_t types = 0;
  EXPECT_EQ(lib.fn<abi::DeviceUllFn>("nvmlDeviceGetSupportedEventTypes")(s.device(0), &types),
            abi::kSuccess);
  EXPECT_EQ(types, abi::kEventTypeXidCriticalError);
  EXPECT_EQ(lib.fn<abi::EventSetFreeFn>("nvmlEventSetFree")(set), abi::kSuccess);
  EXPECT_EQ(lib.fn<abi::EventSetFreeFn>("nvmlEventSetFree")(set), abi::kErrorInvalidArgument);
  EXPECT_EQ(wait(set, &data), abi::kErrorInvalidArgument);
}

// A wait with a timeout sleeps at most that long when nothing is scripted to fall due.
TEST_F(Events, AWaitWithATimeoutReturnsAfterIt) {
  const Session s(lib, scenario.path(), 100);
  abi::EventSet set = nullptr;
  ASSERT_EQ(lib.fn<abi::EventSetCreateFn>("nvmlEventSetCreate")(&set), abi::kSuccess);
  ASSERT_EQ(lib.fn<abi::DeviceRegisterEventsFn>("nvmlDeviceRegisterEvents")(
                s.device(0), abi::kEventTypeXidCriticalError, set),
            abi::kSuccess);
  abi::EventData data{};
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(wait(set, &data, 30), abi::kErrorTimeout);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(30));
  EXPECT_EQ(lib.fn<abi::EventSetFreeFn>("nvmlEventSetFree")(set), abi::kSuccess);
}

TEST(EventsScenario, XidFaultsAreChecked) {
  for (const char* bad :
       {R"({"devices": [{"name": "x", "memory_total_bytes": 1}], "faults": {"xid": [{"device": 1,
                            "at_s": 1, "code": 79}]}})",
        R"({"devices": [{"name": "x", "memory_total_bytes": 1}], "faults": {"xid": [{"device": 0,
                            "at_s": 1, "code": 0}]}})",
        R"({"devices": [{"name": "x", "memory_total_bytes": 1}], "faults": {"xid": [{"device": 0,
                            "at_s": 1}]}})"}) {
    EXPECT_FALSE(parse_scenario(bad, "bad.json").has_value()) << bad;
  }
  EXPECT_TRUE(
      parse_scenario(
          R"({"devices": [{"name": "x", "memory_total_bytes": 1}], "faults": {"xid": [{"device": 0,
                                "at_s": 1, "code": 79}]}})",
          "good.json")
          .has_value());
}

}  // namespace gpumeter::sim::testing::events_test

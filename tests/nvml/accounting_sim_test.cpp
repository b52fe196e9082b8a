// SPDX-License-Identifier: MIT
// Accounting mode through the real dlopen path against the simulated library: the records the
// backend reads carry the scenario's figures; changing the mode needs root (or a privileged
// scenario), enabling starts an empty buffer, disabling drops everything, clearing drops the
// exited; each refusal has its reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "support/sim_backend.h"

namespace gpumeter::nvml::accounting_sim_test {

using testing::SimBackendTest;

constexpr std::uint64_t kGiB = 1ULL << 30;

// GPU 0: accounting on; 70 exited at t = -10 after 50 s (60 % for 25 s, 20 % for 25 s), 71
// runs from t = -5, 72 starts at t = 5. GPU 1: accounting off. GPU 2: no accounting at all.
constexpr std::string_view kScenario = R"({
  "driver": {"privileged": PRIVILEGED},
  "device_defaults": {"name": "NVIDIA A100-SXM4-80GB", "memory_total_bytes": 85899345920},
  "devices": [
    {"uuid": "GPU-acc00000-0000-4000-8000-000000000000", "accounting": {"enabled": true, "buffer_size": 100}},
    {"uuid": "GPU-acc00000-0000-4000-8000-000000000001"},
    {"uuid": "GPU-acc00000-0000-4000-8000-000000000002", "unsupported": ["accounting"]}
  ],
  "processes": [
    {"device": 0, "pid": 70, "start_s": -60, "end_s": -10, "used_memory_bytes": 2147483648,
     "utilization": {"sm": {"steps": [[-60, 60], [-35, 20]]}, "mem": 30}},
    {"device": 0, "pid": 71, "start_s": -5, "used_memory_bytes": null, "utilization": {"sm": 40}},
    {"device": 0, "pid": 72, "start_s": 5, "end_s": 6, "used_memory_bytes": 1073741824,
     "utilization": {"sm": 90, "mem": 10}}
  ]
})";

std::string scenario(bool privileged) {
  std::string text(kScenario);
  text.replace(text.find("PRIVILEGED"), 10, privileged ? "true" : "false");
  return text;
}

class AccountingSimTest : public SimBackendTest {
 protected:
  std::vector<Device> devices() {
    auto reading = source->read();
    EXPECT_TRUE(reading.has_value()) << reading.error().message;
    return reading ? reading->devices : std::vector<Device>{};
  }

  std::vector<std::uint32_t> pids_of(const Device& device) {
    std::vector<std::uint32_t> pids;
    if (!device.accounting || !device.accounting->records) return pids;
    for (const AccountingRecord& r : *device.accounting->records) pids.push_back(r.pid);
    return pids;
  }

  AccountingControl& control() {
    AccountingControl* control = source->accounting_control();
    if (control == nullptr) {
      ADD_FAILURE() << "the NVML source offers no accounting control";
      std::abort();
    }
    return *control;
  }

  std::unique_ptr<GpuSource> source;
};

TEST_F(AccountingSimTest, RecordsCarryTheScenariosLifetimeFigures) {
  source = open(scenario(false), 10);
  const auto read = devices();
  ASSERT_EQ(read.size(), 3U);
  ASSERT_TRUE(read[0].accounting.has_value());
  EXPECT_TRUE(read[0].accounting->enabled);
  EXPECT_EQ(read[0].accounting->buffer_size, 100U);
  ASSERT_TRUE(read[0].accounting->records.has_value());
  const auto& records = *read[0].accounting->records;
  ASSERT_EQ(records.size(), 3U);
  const AccountingRecord& exited = records[0];
  EXPECT_EQ(exited.pid, 70U);
  EXPECT_EQ(exited.gpu_util_percent, 40.0);
  EXPECT_EQ(exited.memory_util_percent, 30.0);
  EXPECT_EQ(exited.max_memory_bytes, 2 * kGiB);
  EXPECT_EQ(exited.time_ms, 50'000U);
  EXPECT_EQ(exited.start_time_us, kEpochUs - 60'000'000);
  EXPECT_FALSE(exited.running);
  const AccountingRecord& running = records[1];
  EXPECT_EQ(running.pid, 71U);
  EXPECT_TRUE(running.running);
  EXPECT_FALSE(running.time_ms.has_value()) << "no run time while it runs";
  EXPECT_EQ(running.max_memory_bytes.error(), Unavailable::not_supported);
  EXPECT_EQ(records[2].time_ms, 1000U);
}

TEST_F(AccountingSimTest, ModeOffAndNoAccountingAreTold) {
  source = open(scenario(false), 10);
  const auto read = devices();
  ASSERT_TRUE(read[1].accounting.has_value());
  EXPECT_FALSE(read[1].accounting->enabled);
  EXPECT_EQ(read[1].accounting->buffer_size, 4000U) << "answered also while the mode is off";
  EXPECT_EQ(read[1].accounting->records.error(), Unavailable::not_supported);
  EXPECT_EQ(read[2].accounting.error(), Unavailable::not_supported);
}

// "privileged": false stands for a caller without root, even when the test runs as root.
TEST_F(AccountingSimTest, ChangesNeedRoot) {
  source = open(scenario(false), 10);
  EXPECT_EQ(control().set_accounting_mode(1, true).error(), AccountingRefusal::needs_root);
  EXPECT_EQ(control().set_accounting_mode(0, false).error(), AccountingRefusal::needs_root);
  EXPECT_EQ(control().clear_accounting(0).error(), AccountingRefusal::needs_root);
  EXPECT_EQ(pids_of(devices()[0]).size(), 3U);
}

TEST_F(AccountingSimTest, ClearDropsTheExitedOnly) {
  source = open(scenario(true), 10);
  ASSERT_TRUE(control().clear_accounting(0).has_value());
  EXPECT_EQ(pids_of(devices()[0]), (std::vector<std::uint32_t>{71}));
}

TEST_F(AccountingSimTest, EnablingStartsAnEmptyBufferAndDisablingDropsEverything) {
  source = open(scenario(true), 0);
  ASSERT_TRUE(control().set_accounting_mode(0, false).has_value());
  EXPECT_FALSE(devices()[0].accounting->enabled);
  ASSERT_TRUE(control().set_accounting_mode(0, true).has_value());
  EXPECT_TRUE(pids_of(devices()[0]).empty()) << "70 and 71 started before";
  at(10);
  EXPECT_EQ(pids_of(devices()[0]), (std::vector<std::uint32_t>{72}));
  ASSERT_TRUE(control().set_accounting_mode(1, true).has_value());
  EXPECT_TRUE(devices()[1].accounting->enabled);
}

TEST_F(AccountingSimTest, RefusalsSayWhy) {
  source = open(scenario(true), 10);
  EXPECT_EQ(control().clear_accounting(1).error(), AccountingRefusal::not_supported)
      << "nothing to clear while the mode is off";
  EXPECT_EQ(control().set_accounting_mode(2, true).error(), AccountingRefusal::not_supported);
  EXPECT_EQ(control().set_accounting_mode(9, true).error(), AccountingRefusal::no_such_gpu);
}

}  // namespace gpumeter::nvml::accounting_sim_test

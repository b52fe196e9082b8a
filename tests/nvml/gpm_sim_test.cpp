// SPDX-License-Identifier: MIT
// GPM through the backend and the real dlopen path: the figures over the window between two
// readings at least 100 ms apart equal the scenario's; a reading sooner keeps the older
// sample; GPUs before Hopper have none.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "nvml/gpm.h"
#include "support/sim_backend.h"

namespace gpumeter::nvml::gpm_sim_test {

using enum DeviceMetric;
using testing::SimBackendTest;

constexpr double kMib = 1024.0 * 1024.0;

// One process at 40 % SM until t = 15, then 80 %; 30 % memory throughout. GPU 1 (MIG) has one
// process at 50 % SM on GPU instance 3. GPU 2 is an A100: no GPM.
constexpr std::string_view kScenario = R"({
  "devices": [
    {"name": "NVIDIA H100 80GB HBM3", "architecture": "hopper", "memory_total_bytes": 85899345920,
     "pci": {"tx_kbps": 102400, "rx_kbps": 204800},
     "gpm": {"nvlink_tx_mib_per_s": 1000, "nvlink_rx_mib_per_s": 2000}},
    {"name": "NVIDIA H100 80GB HBM3", "architecture": "hopper", "memory_total_bytes": 85899345920,
     "mig": {"instances": [
       {"gpu_instance": 3, "profile": "3g.40gb", "memory_total_bytes": 42949672960},
       {"gpu_instance": 4, "profile": "3g.40gb", "memory_total_bytes": 42949672960}]}},
    {"name": "NVIDIA A100-SXM4-40GB", "architecture": "ampere", "memory_total_bytes": 42949672960}
  ],
  "processes": [
    {"device": 0, "pid": 700, "utilization": {"sm": {"steps": [[0, 40], [15, 80]]}, "mem": 30}},
    {"device": 1, "pid": 701, "utilization": {"sm": 50, "mem": 20}, "mig": {"gpu_instance": 3}}
  ]
})";

// Long enough that the backend compares the two samples.
void past_minimum_window() {
  std::this_thread::sleep_for(kGpmMinimumWindow + std::chrono::milliseconds(20));
}

TEST_F(SimBackendTest, GpmFiguresOverTheWindowBetweenReadings) {
  auto source = open(kScenario, 10);
  ASSERT_NE(source, nullptr);
  auto first = source->read();
  ASSERT_TRUE(first.has_value()) << first.error().message;
  // Nothing to compare with yet.
  EXPECT_EQ(first->devices[0].state[gpm_sm_activity], std::unexpected(Unavailable::no_data));
  past_minimum_window();
  at(20);
  auto second = source->read();
  ASSERT_TRUE(second.has_value());
  const DeviceState& state = second->devices[0].state;
  EXPECT_EQ(state[gpm_sm_activity], 60.0);  // (5 s at 40 + 5 s at 80) / 10 s
  EXPECT_EQ(state[gpm_sm_occupancy], 30.0);
  EXPECT_EQ(state[gpm_tensor_activity], 15.0);
  EXPECT_EQ(state[gpm_dram_bandwidth], 30.0);
  EXPECT_EQ(state[gpm_pcie_tx], 60 * kMib);  // 102400 KiB/s at full load, 60 %
  EXPECT_EQ(state[gpm_pcie_rx], 120 * kMib);
  EXPECT_EQ(state[gpm_nvlink_tx], 600 * kMib);
  EXPECT_EQ(state[gpm_nvlink_rx], 1200 * kMib);
  const MigDevice& instance = second->devices[1].mig->devices[0];
  EXPECT_EQ(instance.gpm[0], 50.0);  // gpm_sm_activity of GPU instance 3
  EXPECT_EQ(second->devices[1].mig->devices[1].gpm[0], 0.0);
  for (const DeviceMetric m : kGpmMetrics) {
    EXPECT_EQ(second->devices[2].state[m], std::unexpected(Unavailable::not_supported));
  }
}

TEST_F(SimBackendTest, GpmReadingSoonerThanTheMinimumKeepsTheOlderSample) {
  auto source = open(kScenario, 10);
  ASSERT_NE(source, nullptr);
  ASSERT_TRUE(source->read().has_value());
  past_minimum_window();
  at(14);
  auto second = source->read();  // window [10, 14]: 40 %
  const auto second_done = std::chrono::steady_clock::now();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->devices[0].state[gpm_sm_activity], 40.0);
  at(18);
  auto soon = source->read();
  ASSERT_TRUE(soon.has_value());
  if (std::chrono::steady_clock::now() - second_done < kGpmMinimumWindow) {
    // The sample of t = 14 is kept and the figures stay those of [10, 14].
    EXPECT_EQ(soon->devices[0].state[gpm_sm_activity], 40.0);
    past_minimum_window();
    at(24);
    auto later = source->read();  // window [14, 24]: 1 s at 40, 9 s at 80
    ASSERT_TRUE(later.has_value());
    EXPECT_DOUBLE_EQ(*later->devices[0].state[gpm_sm_activity], 76.0);
  } else {
    GTEST_SKIP() << "the machine took 100 ms between two reads; the rule was not exercised";
  }
}

}  // namespace gpumeter::nvml::gpm_sim_test

// SPDX-License-Identifier: MIT
// MIG through the backend and the real dlopen path: every MIG device the scenario scripts,
// with its ids, profile, UUID, memory and processes; empty slots skipped; what the driver
// does not give under MIG absent for Unavailable::mig.
#include <gtest/gtest.h>

#include "support/sim_backend.h"

namespace gpumeter::nvml::mig_sim_test {

using enum DeviceMetric;
using testing::SimBackendTest;

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Slots 0, 2, 3, 5 and 6 are empty: the walk must skip them and find both instances.
constexpr std::string_view kMigGpu = R"({
  "devices": [
    {"name": "NVIDIA H100 80GB HBM3", "architecture": "hopper", "memory_total_bytes": 85899345920,
     "mig": {"max_count": 7, "instances": [
       {"slot": 1, "gpu_instance": 2, "profile": "3g.40gb", "memory_total_bytes": 42949672960,
        "uuid": "MIG-11111111-2222-5333-8444-555555555555"},
       {"slot": 4, "gpu_instance": 9, "compute_instance": 1, "profile": "1g.10gb",
        "memory_total_bytes": 10737418240, "uuid": "MIG-66666666-7777-5888-9999-000000000000"}]}},
    {"name": "NVIDIA A100-SXM4-40GB", "memory_total_bytes": 42949672960, "mig": "disabled"},
    {"name": "Tesla V100-SXM2-16GB", "memory_total_bytes": 17179869184}
  ],
  "processes": [
    {"device": 0, "pid": 500, "used_memory_bytes": 3221225472, "utilization": {"sm": 80},
     "mig": {"gpu_instance": 2}},
    {"device": 0, "pid": 502, "used_memory_bytes": 2147483648, "utilization": {"sm": 10},
     "mig": {"gpu_instance": 9, "compute_instance": 1}}
  ]
})";

TEST_F(SimBackendTest, MigDevicesAsScripted) {
  auto source = open(kMigGpu, 50);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  const Device& gpu = reading->devices.at(0);
  ASSERT_TRUE(gpu.mig.has_value());
  EXPECT_TRUE(gpu.mig->enabled);
  ASSERT_EQ(gpu.mig->devices.size(), 2U);
  const MigDevice& big = gpu.mig->devices[0];
  EXPECT_EQ(big.gpu_instance_id, 2U);
  EXPECT_EQ(big.compute_instance_id, 0U);
  EXPECT_EQ(big.profile, "3g.40gb");
  EXPECT_EQ(big.uuid, "MIG-11111111-2222-5333-8444-555555555555");
  EXPECT_EQ(big.memory_total_bytes, 40 * kGiB);
  EXPECT_EQ(big.memory_used_bytes, 3 * kGiB);
  ASSERT_TRUE(big.processes.has_value());
  ASSERT_EQ(big.processes->size(), 1U);
  EXPECT_EQ((*big.processes)[0].pid, 500U);
  const MigDevice& small = gpu.mig->devices[1];
  EXPECT_EQ(small.gpu_instance_id, 9U);
  EXPECT_EQ(small.compute_instance_id, 1U);
  EXPECT_EQ(small.profile, "1g.10gb");
  EXPECT_EQ(small.memory_total_bytes, 10 * kGiB);
  EXPECT_EQ(small.memory_used_bytes, 2 * kGiB);
  ASSERT_EQ(small.processes->size(), 1U);
  EXPECT_EQ((*small.processes)[0].pid, 502U);
  // The parent lists both, each with its instance.
  ASSERT_TRUE(gpu.processes.has_value());
  ASSERT_EQ(gpu.processes->size(), 2U);
  ASSERT_TRUE((*gpu.processes)[1].mig.has_value());
  EXPECT_EQ((*gpu.processes)[1].mig->gpu_instance_id, 9U);
  EXPECT_EQ((*gpu.processes)[1].mig->compute_instance_id, 1U);
  EXPECT_EQ(gpu.state[memory_used], 5 * kGiB);
}

TEST_F(SimBackendTest, MigModeAbsencesCarryTheirReason) {
  auto source = open(kMigGpu, 50);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  const Device& gpu = reading->devices.at(0);
  for (const DeviceMetric m :
       {utilization_gpu, utilization_memory, utilization_encoder, utilization_decoder}) {
    EXPECT_EQ(gpu.state[m], std::unexpected(Unavailable::mig)) << spec(m).key;
  }
  EXPECT_EQ(source->drain_process_utilization(0, std::nullopt), std::unexpected(Unavailable::mig));
  // MIG off: readable mode, no MIG devices, utilisation as usual.
  const Device& off = reading->devices.at(1);
  ASSERT_TRUE(off.mig.has_value());
  EXPECT_FALSE(off.mig->enabled);
  EXPECT_TRUE(off.mig->devices.empty());
  EXPECT_TRUE(off.state[utilization_gpu].has_value());
  // No MIG at all.
  EXPECT_EQ(reading->devices.at(2).mig, std::unexpected(Unavailable::not_supported));
}

}  // namespace gpumeter::nvml::mig_sim_test

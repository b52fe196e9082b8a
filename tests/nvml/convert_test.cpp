// SPDX-License-Identifier: MIT
#include "nvml/convert.h"

#include <gtest/gtest.h>

#include "nvml/abi.h"

namespace gpumeter::nvml::convert_test {

TEST(ConvertTest, PowerMilliwattsToWatts) {
  EXPECT_DOUBLE_EQ(milliwatts_to_watts(0), 0.0);
  EXPECT_DOUBLE_EQ(milliwatts_to_watts(250'000), 250.0);
  EXPECT_DOUBLE_EQ(milliwatts_to_watts(71'234), 71.234);
}

TEST(ConvertTest, EnergyMillijoulesToJoules) {
  EXPECT_DOUBLE_EQ(millijoules_to_joules(1'500), 1.5);
  // Counters since driver load get large; no 32-bit truncation on the way.
  EXPECT_DOUBLE_EQ(millijoules_to_joules(5'000'000'000'000ull), 5'000'000'000.0);
}

TEST(ConvertTest, PcieKilobytesAreKibibytes) {
  EXPECT_DOUBLE_EQ(kilobytes_to_bytes(1), 1024.0);
  EXPECT_DOUBLE_EQ(kilobytes_to_bytes(4'000'000), 4'096'000'000.0);
}

TEST(ConvertTest, CudaVersion) {
  EXPECT_EQ(cuda_version_string(12020), "12.2");
  EXPECT_EQ(cuda_version_string(11080), "11.8");
  EXPECT_EQ(cuda_version_string(12090), "12.9");
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(10010), "10.1");
  EXPECT_EQ(cuda_version_string(0), std::unexpected(Unavailable::error));
  EXPECT_EQ(cuda_version_string(-1), std::unexpected(Unavailable::error));
}

TEST(ConvertTest, ArchitectureNames) {
  EXPECT_EQ(architecture_name(abi::kArchKepler), "Kepler");
  EXPECT_EQ(architecture_name(abi::kArchVolta), "Volta");
  EXPECT_EQ(architecture_name(abi::kArchAmpere), "Ampere");
  EXPECT_EQ(architecture_name(abi::kArchAda), "Ada Lovelace");
  EXPECT_EQ(architecture_name(abi::kArchHopper), "Hopper");
  EXPECT_EQ(architecture_name(abi::kArchBlackwell), "Blackwell");
  EXPECT_EQ(architecture_name(abi::kArchRubin), "Rubin");
  EXPECT_EQ(architecture_name(abi::kArchUnknown), "Unknown");
  EXPECT_EQ(architecture_name(12), "Unknown (12)");
}

TEST(ConvertTest, ComputeMode) {
  EXPECT_EQ(to_compute_mode(0), ComputeMode::default_mode);
  EXPECT_EQ(to_compute_mode(1), ComputeMode::exclusive_thread);
  EXPECT_EQ(to_compute_mode(2), ComputeMode::prohibited);
  EXPECT_EQ(to_compute_mode(3), ComputeMode::exclusive_process);
  EXPECT_EQ(to_compute_mode(4), std::unexpected(Unavailable::error));
}

TEST(ConvertTest, EnableState) {
  EXPECT_EQ(to_enabled(0), false);
  EXPECT_EQ(to_enabled(1), true);
  EXPECT_EQ(to_enabled(2), std::unexpected(Unavailable::error));
}

TEST(ConvertTest, PerformanceState) {
  EXPECT_EQ(to_performance_state(0), 0.0);
  EXPECT_EQ(to_performance_state(15), 15.0);
  EXPECT_EQ(to_performance_state(abi::kPstateUnknown), std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(to_performance_state(16), std::unexpected(Unavailable::error));
}

TEST(ConvertTest, AllOnesBytesAreNotAvailable) {
  EXPECT_EQ(optional_bytes(0), 0u);
  EXPECT_EQ(optional_bytes(123'456'789), 123'456'789u);
  EXPECT_EQ(optional_bytes(abi::kValueNotAvailableU64),
            std::unexpected(Unavailable::not_supported));
}

TEST(ConvertTest, PciBusIdMatchesTheV3Text) {
  EXPECT_EQ(pci_bus_id(0, 0x19, 0), "00000000:19:00.0");
  EXPECT_EQ(pci_bus_id(0x1, 0xab, 0x1f), "00000001:AB:1F.0");
}

}  // namespace gpumeter::nvml::convert_test

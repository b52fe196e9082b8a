// SPDX-License-Identifier: MIT
#include "cli/simulate.h"

#include <gtest/gtest.h>

#include "cli/install_layout.h"
#include "cli/sources.h"

namespace gpumeter::cli::simulate_test {

TEST(Simulate, LibraryLiesUnderLibNextToBin) {
  EXPECT_EQ(simulated_library_path("/opt/gpumeter/bin/gpumeter"),
            "/opt/gpumeter/lib/gpumeter/sim/libnvidia-ml.so.1");
  EXPECT_EQ(simulated_library_path("/work/build/bin/gpumeter"),
            "/work/build/lib/gpumeter/sim/libnvidia-ml.so.1");
}

TEST(InstallLayout, GpumeterServeLiesBesideTheSimulatedLibraryAndFindsItToo) {
  EXPECT_EQ(serve_executable_path("/usr/bin/gpumeter"), "/usr/lib/gpumeter/gpumeter-serve");
  EXPECT_EQ(serve_executable_path("/work/build/bin/gpumeter"),
            "/work/build/lib/gpumeter/gpumeter-serve");
  EXPECT_EQ(simulated_library_path("/usr/lib/gpumeter/gpumeter-serve"),
            "/usr/lib/gpumeter/sim/libnvidia-ml.so.1");
  EXPECT_EQ(serve_executable_path("/usr/lib/gpumeter/gpumeter-serve"),
            "/usr/lib/gpumeter/gpumeter-serve");
}

TEST(Sources, NvmlIsTheDefaultSource) {
  const auto sources = gpu_sources();
  ASSERT_FALSE(sources.empty());
  EXPECT_EQ(sources[0].name, "nvml");
  EXPECT_TRUE(sources[0].enabled_by_default);
  EXPECT_NE(sources[0].open, nullptr);
}

}  // namespace gpumeter::cli::simulate_test

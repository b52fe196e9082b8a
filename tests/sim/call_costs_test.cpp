// SPDX-License-Identifier: MIT
// Call costs: a scenario's table and the environment's "typical"/"off", read by the parser and
// paid by the library (each call takes at least its cost: a lower bound, which sleeping
// guarantees whatever the machine's load).
#include "sim/call_costs.h"

#include <gtest/gtest.h>

#include <chrono>

#include "sim/scenario.h"
#include "support/scoped_env.h"
#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::testing::call_costs_test {

using gpumeter::nvml::testing::ScopedEnv;

constexpr const char* kCostly = R"({
  "driver": {"call_costs": {"nvmlDeviceGetPcieThroughput": 40, "*": 0}},
  "devices": [{"name": "G", "memory_total_bytes": 1000, "pci": {"tx_kbps": 100}}]
})";

TEST(CallCosts, ALookupFallsBackToTheStarEntry) {
  const CallCosts typical = typical_call_costs();
  EXPECT_EQ(call_cost_ms(typical, "nvmlDeviceGetPcieThroughput"), 20.0);
  EXPECT_EQ(call_cost_ms(typical, "nvmlDeviceGetComputeRunningProcesses_v3"), 0.3);
  EXPECT_EQ(call_cost_ms(typical, "nvmlDeviceGetName"), call_cost_ms(typical, "*"));
  EXPECT_EQ(call_cost_ms(CallCosts{}, "nvmlDeviceGetPcieThroughput"), 0.0);
}

TEST(CallCosts, TheEnvironmentOverridesTheScenario) {
  {
    const ScopedEnv typical{kCallCostsVariable, "typical"};
    EXPECT_EQ(call_costs_from_environment(), typical_call_costs());
  }
  {
    const ScopedEnv off{kCallCostsVariable, "off"};
    EXPECT_EQ(call_costs_from_environment(), CallCosts{});
  }
  const ScopedEnv other{kCallCostsVariable, "fast"};
  EXPECT_EQ(call_costs_from_environment(), std::nullopt);
}

TEST(CallCosts, TheScenarioNamesExportedFunctionsOnly) {
  auto parsed = parse_scenario(kCostly, "costly.json");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(call_cost_ms(parsed->driver.call_costs, "nvmlDeviceGetPcieThroughput"), 40.0);
  EXPECT_EQ(call_cost_ms(parsed->driver.call_costs, "nvmlDeviceGetName"), 0.0);
  auto typo = parse_scenario(R"({"driver": {"call_costs": {"nvmlDeviceGetPcieThrouhgput": 1}},
                                 "devices": []})",
                             "typo.json");
  ASSERT_FALSE(typo.has_value());
  EXPECT_NE(typo.error().message.find("not an NVML function"), std::string::npos);
  EXPECT_FALSE(parse_scenario(R"({"driver": {"call_costs": "slow"}, "devices": []})", "s.json"));
}

TEST(CallCosts, TheLibraryTakesAtLeastTheCost) {
  const ScopedEnv unset{kCallCostsVariable, nullptr};
  SimLibrary& lib = SimLibrary::open("sim");
  const TempScenario scenario(kCostly);
  const Session s(lib, scenario.path());
  ASSERT_EQ(s.init_result(), abi::kSuccess);
  unsigned kbps = 0;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(s.fn<abi::DevicePcieThroughputFn>("nvmlDeviceGetPcieThroughput")(
                s.device(0), abi::kPcieTxBytes, &kbps),
            abi::kSuccess);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(40));
}

}  // namespace gpumeter::sim::testing::call_costs_test

// SPDX-License-Identifier: MIT
// The free GPUs of a fleet document (cli/available_fleet.h): only nodes with a fresh reading,
// the same rules as on one machine, the order asked for over the whole fleet.
#include "cli/available_fleet.h"

#include <gtest/gtest.h>

namespace gpumeter::cli::available_fleet_test {

constexpr const char* kFleet = R"({"schema_version": 1, "source": "agents", "error": null,
  "nodes": [
    {"name": "b", "state": "ok", "status": {"gpus": [
      {"index": 0, "uuid": "GPU-b0", "lost": false, "utilization_gpu_percent": 0,
       "memory_used_bytes": 0, "memory_total_bytes": 100, "power_draw_watts": 60},
      {"index": 1, "uuid": "GPU-b1", "lost": false, "utilization_gpu_percent": 90,
       "memory_used_bytes": 80, "memory_total_bytes": 100, "power_draw_watts": 300},
      {"index": 2, "uuid": "GPU-b2", "lost": false, "utilization_gpu_percent": null,
       "memory_used_bytes": 0, "memory_total_bytes": 100, "mig": {"enabled": true}}]}},
    {"name": "a", "state": "ok", "status": {"gpus": [
      {"index": 3, "uuid": "GPU-a3", "lost": false, "utilization_gpu_percent": 5,
       "memory_used_bytes": 10, "memory_total_bytes": 200, "power_draw_watts": 40},
      {"index": 4, "uuid": "GPU-a4", "lost": true}]}},
    {"name": "c", "state": "stale", "status": {"gpus": [
      {"index": 0, "uuid": "GPU-c0", "lost": false, "utilization_gpu_percent": 0,
       "memory_used_bytes": 0, "memory_total_bytes": 100}]}},
    {"name": "d", "state": "unreachable", "status": null}]})";

std::vector<std::string> pairs(const FleetChoice& choice) {
  std::vector<std::string> out;
  for (const FleetGpu& gpu : choice.free) out.push_back(gpu.node + ":" + std::to_string(gpu.index));
  return out;
}

TEST(FleetGpus, FreeOnesOfFreshNodesInDocumentOrder) {
  const auto choice = choose_fleet_gpus(kFleet, {});
  ASSERT_TRUE(choice) << choice.error().message;
  // Busy, MIG and lost GPUs are left out; stale and unreachable nodes are not trusted.
  EXPECT_EQ(pairs(*choice), (std::vector<std::string>{"b:0", "a:3"}));
  EXPECT_EQ(choice->gpus, 5U);
  EXPECT_EQ(choice->nodes, 2U);
  EXPECT_EQ(choice->nodes_skipped, 2U);
  EXPECT_EQ(choice->free[1].uuid, "GPU-a3");
}

TEST(FleetGpus, TheOrderHoldsAcrossNodes) {
  const auto roomy = choose_fleet_gpus(kFleet, {.order = GpuOrder::free_memory});
  ASSERT_TRUE(roomy);
  EXPECT_EQ(pairs(*roomy), (std::vector<std::string>{"a:3", "b:0"}));  // 190 before 100 bytes
  const auto cool = choose_fleet_gpus(kFleet, {.order = GpuOrder::power});
  ASSERT_TRUE(cool);
  EXPECT_EQ(pairs(*cool), (std::vector<std::string>{"a:3", "b:0"}));  // 40 W before 60 W
  const auto strict = choose_fleet_gpus(kFleet, {.max_utilization_percent = 1});
  ASSERT_TRUE(strict);
  EXPECT_EQ(pairs(*strict), (std::vector<std::string>{"b:0"}));
}

TEST(FleetGpus, AnAnswerThatIsNoFleetIsRefused) {
  for (const char* text : {"", "[]", "{\"nodes\": 3}", "<html>"}) {
    const auto choice = choose_fleet_gpus(text, {});
    ASSERT_FALSE(choice) << text;
    EXPECT_EQ(choice.error().code, ErrorCode::invalid_input);
  }
}

}  // namespace gpumeter::cli::available_fleet_test

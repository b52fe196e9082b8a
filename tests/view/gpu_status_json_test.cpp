#include "view/gpu_status_json.h"

#include <gtest/gtest.h>

#include "support/sample_snapshot.h"

namespace gpumeter::view::gpu_status_json_test {

class GpuStatusJson : public ::testing::Test {
 protected:
  const Json document = gpu_status_json(cli::testing::sample_snapshot());
  const Json& gpu(std::size_t index) const { return document["gpus"][index]; }
};

TEST_F(GpuStatusJson, AFreeGpu) {
  EXPECT_EQ(document["hostname"], "node1");
  ASSERT_EQ(document["gpus"].size(), 5U);
  EXPECT_EQ(gpu(0).dump(),
            R"({"index":0,"type":"Tesla V100-SXM2-16GB","utilization":0,"memory_used":0,)"
            R"("memory_total":16384,"clock":1530,"temperature":35,"users":[],"pids":[],)"
            R"("since":null,"cmd":[],"availability":"free"})");
}

TEST_F(GpuStatusJson, AGpuInUseSaysByWhomSinceWhenAndWhat) {
  EXPECT_EQ(gpu(1)["utilization"], 100);
  EXPECT_EQ(gpu(1)["memory_used"], 893);
  EXPECT_EQ(gpu(1)["users"], (Json{"alice", "bob"}));
  EXPECT_EQ(gpu(1)["pids"], (Json{4242, 4343}));
  EXPECT_EQ(gpu(1)["since"], "2024-05-01T08:48:00Z");  // alice's, the older process
  EXPECT_EQ(gpu(1)["cmd"], (Json{"train.py", "jupyter"}));
  EXPECT_EQ(gpu(1)["availability"], "in_use");
}

TEST_F(GpuStatusJson, WhatCannotBeReadIsNull) {
  EXPECT_EQ(gpu(2)["users"], (Json{"?"}));
  EXPECT_EQ(gpu(2)["cmd"], (Json{nullptr}));
  EXPECT_EQ(gpu(2)["availability"], "unknown_owner");
  EXPECT_EQ(gpu(3)["availability"], "lost");
  EXPECT_TRUE(gpu(3)["utilization"].is_null());
  EXPECT_TRUE(gpu(3)["temperature"].is_null());
  EXPECT_EQ(gpu(3)["pids"], Json::array());
  EXPECT_EQ(gpu(4)["availability"], "unknown");
  EXPECT_TRUE(gpu(4)["temperature"].is_null());
}

}  // namespace gpumeter::view::gpu_status_json_test

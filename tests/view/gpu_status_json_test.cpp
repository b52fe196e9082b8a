// SPDX-License-Identifier: MIT
#include "view/gpu_status_json.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/sample_snapshot.h"
#include "support/source_files.h"

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
            R"({"type":"Tesla V100-SXM2-16GB","is_available":true,"pids":"","users":"",)"
            R"("running_since":null,"utilization":0,"clock_mhz":1530,"temperature":35,)"
            R"("cmd":null,"index":0,"memory_used":0,"memory_total":16384,"since":null,)"
            R"("availability":"free"})");
}

TEST_F(GpuStatusJson, AGpuInUseSaysByWhomSinceWhenAndWhat) {
  EXPECT_EQ(gpu(1)["is_available"], false);
  EXPECT_EQ(gpu(1)["utilization"], 100);
  EXPECT_EQ(gpu(1)["memory_used"], 893);
  EXPECT_EQ(gpu(1)["users"], "alice,bob");
  EXPECT_EQ(gpu(1)["pids"], "4242,4343");
  EXPECT_EQ(gpu(1)["since"], "2024-05-01T08:48:00Z");  // alice's, the older process
  EXPECT_TRUE(gpu(1)["running_since"].get<std::string>().ends_with(" ago")) << gpu(1);
  EXPECT_EQ(gpu(1)["cmd"], "train.py");  // the first process's, as nvgpu shows one
  EXPECT_EQ(gpu(1)["availability"], "in_use");
}

TEST_F(GpuStatusJson, WhatCannotBeReadIsNull) {
  EXPECT_EQ(gpu(2)["users"], "?");
  EXPECT_EQ(gpu(2)["cmd"], nullptr);
  EXPECT_EQ(gpu(2)["availability"], "unknown_owner");
  EXPECT_EQ(gpu(3)["availability"], "lost");
  EXPECT_TRUE(gpu(3)["utilization"].is_null());
  EXPECT_TRUE(gpu(3)["temperature"].is_null());
  EXPECT_EQ(gpu(3)["pids"], "");
  EXPECT_EQ(gpu(4)["availability"], "unknown");
  EXPECT_TRUE(gpu(4)["temperature"].is_null());
}

// An nvgpu master reads every key an nvgpu agent sends, with the same JSON type (or null where
// the agent may send null): what tests/view/fixtures/nvgpu-agent-gpu-status.json records.
TEST_F(GpuStatusJson, HasEveryKeyOfAnNvgpuAgentWithItsType) {
  std::ifstream in(
      gpumeter::testing::source_path("tests/view/fixtures/nvgpu-agent-gpu-status.json"));
  const Json agent = Json::parse(in);
  EXPECT_EQ(document["hostname"].type(), agent["hostname"].type());
  for (const Json& theirs : agent["gpus"]) {
    const Json& ours = theirs["is_available"] == true ? gpu(0) : gpu(1);
    for (const auto& [key, value] : theirs.items()) {
      ASSERT_TRUE(ours.contains(key)) << key;
      const bool same =
          ours[key].type() == value.type() || (value.is_number() && ours[key].is_number());
      EXPECT_TRUE(same) << key << ": nvgpu sends " << value << ", gpumeter " << ours[key];
    }
  }
}

TEST(AgoInWords, SaysHowLongAgoAsNvgpuDoes) {
  constexpr TimeUs kSecond = 1'000'000;
  EXPECT_EQ(ago_in_words(3 * kSecond), "just now");
  EXPECT_EQ(ago_in_words(42 * kSecond), "42 seconds ago");
  EXPECT_EQ(ago_in_words(61 * kSecond), "a minute ago");
  EXPECT_EQ(ago_in_words(12 * 60 * kSecond), "12 minutes ago");
  EXPECT_EQ(ago_in_words(3600 * kSecond), "an hour ago");
  EXPECT_EQ(ago_in_words(3 * 3600 * kSecond), "3 hours ago");
  EXPECT_EQ(ago_in_words(24 * 3600 * kSecond), "a day ago");
  EXPECT_EQ(ago_in_words(40 * 24 * 3600 * kSecond), "a month ago");
  EXPECT_EQ(ago_in_words(800 * 24 * 3600 * kSecond), "2 years ago");
}

}  // namespace gpumeter::view::gpu_status_json_test

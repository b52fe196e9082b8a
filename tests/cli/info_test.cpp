// SPDX-License-Identifier: MIT
#include "cli/info.h"

#include <gtest/gtest.h>

#include "support/sample_snapshot.h"

namespace gpumeter::cli::info_test {

using testing::sample_snapshot;

TEST(InfoJson, TheKeysNvgpuGives) {
  const Json info = info_json(sample_snapshot());
  ASSERT_EQ(info.size(), 5U);
  const Json& busy = info[1];
  std::vector<std::string> keys;
  for (const auto& [key, value] : busy.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"index", "type", "uuid", "mem_used", "mem_total",
                                            "mem_used_percent"}));
  EXPECT_EQ(busy["index"], "1");
  EXPECT_EQ(busy["type"], "Tesla V100-SXM2-16GB");
  EXPECT_EQ(busy["uuid"], "GPU-00000001-aaaa-bbbb-cccc-dddddddddddd");
  EXPECT_EQ(busy["mem_used"], 893);
  EXPECT_EQ(busy["mem_total"], 16384);
  EXPECT_TRUE(busy["mem_used"].is_number_integer());
  EXPECT_DOUBLE_EQ(busy["mem_used_percent"].get<double>(), 100.0 * 893 / 16384);
}

TEST(InfoJson, MibAreRoundedDown) {
  Snapshot snapshot = sample_snapshot();
  snapshot.gpus.devices[0].state[DeviceMetric::memory_used] = 2.0 * testing::kMiB - 1;
  EXPECT_EQ(info_json(snapshot)[0]["mem_used"], 1);
}

TEST(InfoJson, AbsentMemoryIsNull) {
  const Json lost = info_json(sample_snapshot())[3];
  EXPECT_EQ(lost["index"], "3");
  EXPECT_TRUE(lost["mem_used"].is_null());
  EXPECT_TRUE(lost["mem_total"].is_null());
  EXPECT_TRUE(lost["mem_used_percent"].is_null());
}

TEST(InfoTable, OneLinePerGpuWithUuidAndMemory) {
  const std::string out = render_info_table(sample_snapshot(), false);
  EXPECT_NE(out.find("GPU-00000001-aaaa-bbbb-cccc-dddddddddddd  893MiB / 16.0GiB   5.5%"),
            std::string::npos)
      << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 6);
}

TEST(InfoTable, ZeroGpus) {
  Snapshot snapshot = sample_snapshot();
  snapshot.gpus.devices.clear();
  EXPECT_EQ(render_info_table(snapshot, false), "GPU  NAME  UUID  MEMORY  USED\nno GPUs found\n");
}

}  // namespace gpumeter::cli::info_test

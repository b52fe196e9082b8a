// SPDX-License-Identifier: MIT
#include "view/list_json.h"

#include <gtest/gtest.h>

#include "support/sample_snapshot.h"

namespace gpumeter::view::list_json_test {

using cli::testing::sample_snapshot;

class ListJson : public ::testing::Test {
 protected:
  Json doc = list_json(sample_snapshot());
  const Json& gpu(std::size_t i) const { return doc["gpus"][i]; }
};

TEST_F(ListJson, TopLevelIsVersionedAndNamesHostTimeDriverSource) {
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["host"], "node1");
  EXPECT_EQ(doc["time"], "2024-05-01T12:00:00Z");
  EXPECT_EQ(doc["time_us"], cli::testing::kNow);
  EXPECT_EQ(doc["source"], "fake");
  EXPECT_EQ(doc["driver"]["driver_version"], "535.104.05");
  EXPECT_EQ(doc["driver"]["cuda_driver_version"], "12.2");
  EXPECT_EQ(doc["gpus"].size(), 5U);
}

TEST_F(ListJson, EveryMetricKeyIsPresentAsANumberOrNull) {
  for (const MetricSpec& spec : device_metrics()) {
    const std::string key(spec.key);
    ASSERT_TRUE(gpu(0).contains(key)) << key;
    EXPECT_TRUE(gpu(0)[key].is_number()) << key;
    ASSERT_TRUE(gpu(3).contains(key)) << key;
    EXPECT_TRUE(gpu(3)[key].is_null()) << key;
  }
}

TEST_F(ListJson, IntegralMetricsAreIntegersOthersMayHaveFractions) {
  EXPECT_TRUE(gpu(1)["memory_used_bytes"].is_number_integer());
  EXPECT_EQ(gpu(1)["memory_used_bytes"], 936378368);
  EXPECT_EQ(gpu(1)["utilization_gpu_percent"], 100);
  EXPECT_TRUE(gpu(1)["power_draw_watts"].is_number_float());
  EXPECT_DOUBLE_EQ(gpu(1)["power_draw_watts"].get<double>(), 42.5);
}

TEST_F(ListJson, IdentityAndStatus) {
  EXPECT_EQ(gpu(1)["index"], 1);
  EXPECT_EQ(gpu(1)["name"], "Tesla V100-SXM2-16GB");
  EXPECT_EQ(gpu(1)["compute_capability"], "7.0");
  EXPECT_EQ(gpu(1)["compute_mode"], "default");
  EXPECT_EQ(gpu(1)["persistence_mode"], true);
  EXPECT_TRUE(gpu(1)["serial"].is_null());
  EXPECT_EQ(gpu(1)["unavailable"]["serial"], "error");
  EXPECT_EQ(gpu(0)["status"], "free");
  EXPECT_EQ(gpu(1)["status"], "in_use");
  EXPECT_EQ(gpu(2)["status"], "unknown_owner");
  EXPECT_EQ(gpu(3)["status"], "lost");
  EXPECT_EQ(gpu(3)["lost"], true);
  EXPECT_EQ(gpu(4)["status"], "unknown");
}

TEST_F(ListJson, AbsentValuesAreNullWithTheirReason) {
  EXPECT_TRUE(gpu(4)["temperature_celsius"].is_null());
  EXPECT_EQ(gpu(4)["unavailable"]["temperature_celsius"], "not_supported");
  EXPECT_EQ(gpu(3)["unavailable"]["utilization_gpu_percent"], "gpu_lost");
  EXPECT_TRUE(gpu(4)["processes"].is_null());
  EXPECT_TRUE(gpu(4)["users"].is_null());
  EXPECT_EQ(gpu(4)["unavailable"]["processes"], "no_permission");
  EXPECT_FALSE(gpu(0)["unavailable"].contains("temperature_celsius"));
}

TEST_F(ListJson, ProcessesCarryHostAndDriverViews) {
  const Json& process = gpu(1)["processes"][0];
  EXPECT_EQ(process["pid"], 4242);
  EXPECT_EQ(process["user"], "alice");
  EXPECT_EQ(process["uid"], 1000 + 4242 % 7);
  EXPECT_EQ(process["command"], "python3 -u /home/alice/train.py --lr 3");
  EXPECT_EQ(process["cmdline"],
            Json::array({"python3", "-u", "/home/alice/train.py", "--lr", "3"}));
  EXPECT_EQ(process["short_command"], "train.py");
  EXPECT_EQ(process["start_time_us"], cli::testing::kNow - 3 * cli::testing::kHour - 720'000'000);
  EXPECT_EQ(process["start_time"], "2024-05-01T08:48:00Z");
  EXPECT_EQ(process["used_memory_bytes"], 936378368);
  EXPECT_EQ(process["contexts"], (Json{{"compute", true}, {"graphics", false}, {"mps", false}}));
  EXPECT_TRUE(process["container"].is_null());
  EXPECT_TRUE(process["namespace_pid"].is_null());
  EXPECT_TRUE(process["mig"].is_null());
  // The snapshot was collected once, without each process's recent engine use, CPU and
  // resident memory (a sampler's rounds give those): only they are absent.
  EXPECT_EQ(process["unavailable"], (Json{{"cpu_percent", "no_data"},
                                          {"rss_bytes", "no_data"},
                                          {"sm_percent", "no_data"},
                                          {"memory_percent", "no_data"},
                                          {"encoder_percent", "no_data"},
                                          {"decoder_percent", "no_data"}}));
  EXPECT_TRUE(process["utilization_window_seconds"].is_null());
  EXPECT_TRUE(process["cpu_percent"].is_null());
  EXPECT_EQ(gpu(1)["users"], Json::array({"alice", "bob"}));
}

TEST_F(ListJson, AProcessTheHostCannotReadHasNullHostFieldsWithTheReason) {
  const Json& process = gpu(2)["processes"][0];
  EXPECT_EQ(process["pid"], 77);
  for (const char* key :
       {"user", "uid", "command", "cmdline", "short_command", "start_time_us", "start_time"}) {
    EXPECT_TRUE(process[key].is_null()) << key;
    EXPECT_EQ(process["unavailable"][key], "no_permission") << key;
  }
  EXPECT_TRUE(process["used_memory_bytes"].is_null());
  EXPECT_EQ(process["unavailable"]["used_memory_bytes"], "not_supported");
}

TEST_F(ListJson, ContainerNamespacePidAndMig) {
  Snapshot snapshot = sample_snapshot();
  HostProcess& host = *snapshot.processes.at(4242);
  host.container = Container{"docker", "abc123"};
  host.namespace_pid = 7U;
  (*snapshot.gpus.devices[1].processes)[0].mig = MigInstance{1, 2};
  const Json process = list_json(snapshot)["gpus"][1]["processes"][0];
  EXPECT_EQ(process["container"], (Json{{"runtime", "docker"}, {"id", "abc123"}}));
  EXPECT_EQ(process["namespace_pid"], 7);
  EXPECT_EQ(process["mig"], (Json{{"gpu_instance_id", 1}, {"compute_instance_id", 2}}));
}

// What a sampler's rounds add (the daemon's /api/v1/status): CPU to a tenth of a percent,
// resident memory in bytes.
TEST_F(ListJson, RecentHostFigures) {
  Snapshot snapshot = sample_snapshot();
  HostProcess& host = *snapshot.processes.at(4242);
  host.cpu_percent = 12.345;
  host.rss_bytes = std::uint64_t{3} << 30;
  const Json process = list_json(snapshot)["gpus"][1]["processes"][0];
  EXPECT_EQ(process["cpu_percent"], 12.3);
  EXPECT_EQ(process["rss_bytes"], std::uint64_t{3} << 30);
  EXPECT_FALSE(process["unavailable"].contains("cpu_percent"));
  EXPECT_FALSE(process["unavailable"].contains("rss_bytes"));
}

TEST_F(ListJson, ZeroGpusIsAnEmptyArray) {
  Snapshot snapshot = sample_snapshot();
  snapshot.gpus.devices.clear();
  EXPECT_EQ(list_json(snapshot)["gpus"], Json::array());
}

TEST(DumpJson, InvalidUtf8IsReplacedNotThrown) {
  Json doc = {{"command", std::string("train\xff.py")}};
  EXPECT_EQ(dump_json(doc, true), "{\"command\":\"train\xEF\xBF\xBD.py\"}");
}

TEST(DumpJson, IndentedUnlessOneLine) {
  const Json doc = {{"a", 1}};
  EXPECT_EQ(dump_json(doc, false), "{\n  \"a\": 1\n}");
  EXPECT_EQ(dump_json(doc, true), "{\"a\":1}");
}

}  // namespace gpumeter::view::list_json_test

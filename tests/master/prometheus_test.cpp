// SPDX-License-Identifier: MIT
// Prometheus mode against a fake Prometheus API server over real HTTP: the queries it makes,
// the documents it rebuilds, and what it says when hosts or the server are down.
#include <gtest/gtest.h>

#include <set>

#include "master/fleet_json.h"
#include "master/prometheus_poller.h"
#include "master/prometheus_status.h"
#include "master/status_check.h"
#include "support/fake_prometheus.h"
#include "support/source_files.h"

namespace gpumeter::master::prometheus_test {

using gpumeter::testing::keys_of;
using gpumeter::testing::read_source_json;

using namespace std::chrono_literals;
using testing::FakeSample;
using testing::vector_answer;

constexpr double kEvaluated = 1'714'564'815.0;
constexpr const char* kSeenQuery =
    "max by (host, instance) (last_over_time(gpumeter_gpu_info[1h]))";

std::map<std::string, std::string> gpu_labels(const std::string& host, const std::string& gpu,
                                              const std::string& name = "") {
  std::map<std::string, std::string> labels{{"host", host},
                                            {"gpu", gpu},
                                            {"uuid", "GPU-" + host + "-" + gpu},
                                            {"name", "NVIDIA H100"},
                                            {"instance", host + ":9416"},
                                            {"job", "gpumeter"}};
  if (!name.empty()) labels["__name__"] = name;
  return labels;
}

FakeSample series(const std::string& name, const std::string& host, const std::string& gpu,
                  const std::string& value) {
  return {gpu_labels(host, gpu, name), value};
}

class PrometheusMode : public ::testing::Test {
 protected:
  void SetUp() override {
    auto info = series("gpumeter_gpu_info", "gpu01", "0", "1");
    info.labels["driver_version"] = "550.54.15";
    prometheus.answer(
        kGpuSeriesQuery,
        vector_answer({info, series("gpumeter_gpu_info", "gpu01", "1", "1"),
                       series("gpumeter_gpu_sm_utilization_ratio", "gpu01", "0", "0.42"),
                       series("gpumeter_gpu_memory_used_bytes", "gpu01", "0", "2147483648"),
                       series("gpumeter_gpu_memory_total_bytes", "gpu01", "0", "85899345920"),
                       series("gpumeter_gpu_power_watts", "gpu01", "0", "312.5"),
                       series("gpumeter_gpu_temperature_celsius", "gpu01", "0", "61"),
                       series("gpumeter_gpu_sm_clock_hertz", "gpu01", "0", "1530000000"),
                       series("gpumeter_gpu_fan_ratio", "gpu01", "0", "NaN"),
                       series("gpumeter_gpu_processes", "gpu01", "0", "2"),
                       series("gpumeter_gpu_up", "gpu01", "0", "1"),
                       series("gpumeter_gpu_processes", "gpu01", "1", "0"),
                       series("gpumeter_gpu_up", "gpu01", "1", "1"),
                       series("gpumeter_gpu_info", "gpu02", "0", "1"),
                       series("gpumeter_gpu_up", "gpu02", "0", "0")},
                      kEvaluated));
    prometheus.answer(kGpuTimesQuery, vector_answer({{gpu_labels("gpu01", "0"), "1714564810.5"},
                                                     {gpu_labels("gpu01", "1"), "1714564810.5"},
                                                     {gpu_labels("gpu02", "0"), "1714564812"}},
                                                    kEvaluated));
    auto alice = gpu_labels("gpu01", "0");
    alice["user"] = "alice";
    auto bob = gpu_labels("gpu01", "0");
    bob["user"] = "bob";
    prometheus.answer(kUsersQuery, vector_answer({{bob, "1"}, {alice, "2"}}, kEvaluated));
    prometheus.answer(kSeenQuery,
                      vector_answer({{{{"host", "gpu01"}, {"instance", "gpu01:9416"}}, "1"},
                                     {{{"host", "gpu02"}, {"instance", "gpu02:9416"}}, "1"},
                                     {{{"host", "gpu03"}, {"instance", "gpu03:9416"}}, "1"}},
                                    kEvaluated));
    set_up({{"gpu01:9416", "1"}, {"gpu02:9416", "1"}, {"gpu03:9416", "0"}, {"node:9100", "1"}});
  }

  void set_up(const std::map<std::string, std::string>& instances) {
    std::vector<FakeSample> samples;
    for (const auto& [instance, value] : instances) {
      samples.push_back({{{"__name__", "up"}, {"instance", instance}, {"job", "gpumeter"}}, value});
    }
    prometheus.answer("up", vector_answer(samples, kEvaluated));
  }

  std::map<std::string, NodeView> refreshed() {
    poller.refresh();
    std::map<std::string, NodeView> nodes;
    for (NodeView& node : poller.fleet().nodes(FleetState::Clock::now())) {
      nodes.emplace(node.identity.name, std::move(node));
    }
    return nodes;
  }

  testing::FakePrometheus prometheus;
  PrometheusPoller poller{*parse_agent_url(prometheus.url(), kDefaultPrometheusPort),
                          PrometheusSettings{.client = {.timeout = 2s}}};
};

TEST_F(PrometheusMode, OneNodePerHostWithItsState) {
  const auto nodes = refreshed();
  ASSERT_EQ(nodes.size(), 3U);
  EXPECT_EQ(nodes.at("gpu01").state, NodeState::ok) << nodes.at("gpu01").error;
  EXPECT_EQ(nodes.at("gpu01").identity.url, "gpu01:9416");
  EXPECT_EQ(nodes.at("gpu02").state, NodeState::ok);
  EXPECT_EQ(nodes.at("gpu03").state, NodeState::unreachable);
  EXPECT_EQ(nodes.at("gpu03").error, "Prometheus cannot scrape gpu03:9416 (up is 0)");
  EXPECT_EQ(nodes.at("gpu03").status, nullptr);
  EXPECT_EQ(poller.fleet().fleet_error(), "");
}

TEST_F(PrometheusMode, DocumentsCarryTheExportedValuesInTheListUnits) {
  const auto nodes = refreshed();
  const Json document = nodes.at("gpu01").status->parse();
  EXPECT_TRUE(check_status_document(document));
  EXPECT_EQ(document["host"], "gpu01");
  EXPECT_EQ(document["source"], "prometheus");
  EXPECT_EQ(document["time_us"], 1'714'564'810'500'000);
  EXPECT_EQ(document["time"], "2024-05-01T12:00:10Z");
  EXPECT_EQ(document["driver"]["driver_version"], "550.54.15");
  EXPECT_EQ(document["driver"]["unavailable"]["nvml_version"], "not_supported");
  ASSERT_EQ(document["gpus"].size(), 2U);
  const Json& gpu = document["gpus"][0];
  EXPECT_EQ(gpu["index"], 0);
  EXPECT_EQ(gpu["uuid"], "GPU-gpu01-0");
  EXPECT_EQ(gpu["name"], "NVIDIA H100");
  EXPECT_EQ(gpu["utilization_gpu_percent"], 42);
  EXPECT_EQ(gpu["memory_used_bytes"], 2147483648);
  EXPECT_EQ(gpu["memory_total_bytes"], 85899345920);
  EXPECT_EQ(gpu["power_draw_watts"], 312.5);
  EXPECT_EQ(gpu["temperature_celsius"], 61);
  EXPECT_EQ(gpu["clock_sm_mhz"], 1530);
  EXPECT_TRUE(gpu["fan_speed_percent"].is_null());  // NaN: no value
  EXPECT_EQ(gpu["unavailable"]["fan_speed_percent"], "not_supported");
  EXPECT_TRUE(gpu["memory_free_bytes"].is_null());
  EXPECT_EQ(gpu["status"], "in_use");
  EXPECT_EQ(gpu["lost"], false);
  EXPECT_EQ(gpu["users"], Json::array({"alice", "bob"}));
  EXPECT_TRUE(gpu["processes"].is_null());
  EXPECT_EQ(document["gpus"][1]["status"], "free");
  EXPECT_EQ(document["gpus"][1]["users"], Json::array());

  const Json lost = nodes.at("gpu02").status->parse()["gpus"][0];
  EXPECT_EQ(lost["status"], "lost");
  EXPECT_EQ(lost["lost"], true);
}

TEST_F(PrometheusMode, DocumentsHaveEveryKeyTheListSchemaRequires) {
  const Json schema = read_source_json<Json>("schemas/list.schema.json");
  const Json document = refreshed().at("gpu01").status->parse();
  std::set<std::string> required;
  for (const Json& key : schema["$defs"]["gpu"]["required"]) required.insert(key);
  EXPECT_EQ(keys_of(document["gpus"][0]), required);
  required.clear();
  for (const Json& key : schema["required"]) required.insert(key);
  EXPECT_EQ(keys_of(document), required);
  required.clear();
  for (const Json& key : schema["properties"]["driver"]["required"]) required.insert(key);
  EXPECT_EQ(keys_of(document["driver"]), required);
}

TEST_F(PrometheusMode, AHostThatGoesDownKeepsItsLastDocument) {
  refreshed();
  set_up({{"gpu01:9416", "0"}, {"gpu02:9416", "1"}, {"gpu03:9416", "0"}});
  const auto nodes = refreshed();
  const NodeView& gpu01 = nodes.at("gpu01");
  EXPECT_EQ(gpu01.state, NodeState::unreachable);
  EXPECT_EQ(gpu01.error, "Prometheus cannot scrape gpu01:9416 (up is 0)");
  ASSERT_NE(gpu01.status, nullptr);
  EXPECT_EQ(gpu01.status->parse()["host"], "gpu01");
  EXPECT_EQ(gpu01.counters.attempts, 2U);
  EXPECT_EQ(gpu01.counters.failures, 1U);
}

TEST_F(PrometheusMode, AHostNoLongerSeenSaysSo) {
  refreshed();
  prometheus.answer(
      kSeenQuery,
      vector_answer({{{{"host", "gpu01"}, {"instance", "gpu01:9416"}}, "1"}}, kEvaluated));
  prometheus.answer(kGpuSeriesQuery,
                    vector_answer({series("gpumeter_gpu_info", "gpu01", "0", "1")}, kEvaluated));
  const auto nodes = refreshed();
  EXPECT_EQ(nodes.at("gpu01").state, NodeState::ok);
  EXPECT_EQ(nodes.at("gpu02").state, NodeState::unreachable);
  EXPECT_EQ(nodes.at("gpu02").error, "no samples in Prometheus for 1h");
  EXPECT_EQ(nodes.at("gpu03").error, "no samples in Prometheus for 1h");
}

TEST_F(PrometheusMode, AFailedQueryIsTheFleetsErrorAndNodesKeepTheirDocuments) {
  refreshed();
  prometheus.answer(kGpuTimesQuery,
                    R"({"status":"error","errorType":"timeout","error":"query timed out"})");
  const auto nodes = refreshed();
  const std::string expected =
      "Prometheus at " + prometheus.url() + ": query failed: query timed out";
  EXPECT_EQ(poller.fleet().fleet_error(), expected);
  EXPECT_EQ(nodes.at("gpu01").state, NodeState::unreachable);
  EXPECT_EQ(nodes.at("gpu01").error, expected);
  EXPECT_NE(nodes.at("gpu01").status, nullptr);
  const Json document = fleet_json(poller.fleet(), "prometheus");
  EXPECT_EQ(document["error"], expected);
}

TEST(PrometheusDown, NoNodesAndTheFleetsErrorSaysWhy) {
  const std::string url = "http://127.0.0.1:" + std::to_string(testing::closed_port());
  PrometheusPoller poller(*parse_agent_url(url), PrometheusSettings{.client = {.timeout = 1s}});
  poller.refresh();
  EXPECT_EQ(poller.fleet().size(), 0U);
  EXPECT_EQ(poller.fleet().fleet_error(),
            "Prometheus at " + url + ": cannot connect (refused, or no route to the host)");
}

TEST(PrometheusAnswer, ParsesVectorsAndRefusesOtherShapes) {
  const auto samples = parse_query_answer(vector_answer(
      {{{{"__name__", "up"}, {"instance", "a:1"}}, "1"}, {{{"instance", "b:1"}}, "+Inf"}}, 12.5));
  ASSERT_TRUE(samples) << samples.error();
  ASSERT_EQ(samples->size(), 2U);
  EXPECT_EQ((*samples)[0].labels.at("__name__"), "up");
  EXPECT_EQ((*samples)[0].value, 1.0);
  EXPECT_EQ((*samples)[0].time_seconds, 12.5);
  EXPECT_TRUE(std::isinf((*samples)[1].value));
  EXPECT_EQ(parse_query_answer("<html>").error(), "the answer is not JSON");
  EXPECT_EQ(parse_query_answer(R"({"status":"success","data":{"resultType":"matrix","result":[]}})")
                .error(),
            "expected a vector result");
  EXPECT_EQ(
      parse_query_answer(
          R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}})")
          .error(),
      "expected sample values written as strings");
}

}  // namespace gpumeter::master::prometheus_test

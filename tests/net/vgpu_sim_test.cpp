// SPDX-License-Identifier: MIT
// The vGPU host scenario through the real loader and a sampler: the Prometheus families per
// vGPU instance and GET /api/v1/vgpu, both from the published snapshot.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/sampler.h"
#include "exposition/metrics.h"
#include "exposition/process_activity.h"
#include "net/agent_routes.h"
#include "support/sampler_sim.h"
#include "support/text_reader.h"

namespace gpumeter::net::vgpu_sim_test {

using exposition::testing::Exposition;
using exposition::testing::LabelMap;
using exposition::testing::parse_exposition;

class VgpuHost : public gpumeter::testing::SimulatedMachine {
 protected:
  void SetUp() override {
    open_example("vgpu-host");
    sampler_ = std::make_unique<Sampler>(gpus(), host(), SamplerConfig{});
    run(*sampler_, 0, 3);
  }

  Exposition scrape() {
    const auto snapshot = sampler_->snapshot();
    if (!snapshot) ADD_FAILURE() << "no snapshot";
    if (!snapshot) return {};
    const std::string text =
        exposition::render_metrics(*snapshot, sampler_->stats(), exposition::MetricsOptions{},
                                   exposition::recent_activity(*sampler_, snapshot->time_us));
    auto parsed = parse_exposition(text);
    if (!parsed) ADD_FAILURE() << parsed.error() << "\n" << text;
    return parsed.value_or(Exposition{});
  }

  static double value(const Exposition& e, std::string_view name, const LabelMap& labels) {
    const auto found = e.find(name, labels);
    if (found.size() != 1) {
      ADD_FAILURE() << found.size() << " samples of " << name;
      return -1;
    }
    return found.front().value;
  }

  std::unique_ptr<Sampler> sampler_;
};

const LabelMap kRenderNode{{"vm_id", "5f0e2a44-9b1c-4d7e-8f60-1a2b3c4d5e02"}};

TEST_F(VgpuHost, FamiliesPerInstance) {
  const Exposition e = scrape();
  EXPECT_EQ(e.find("gpumeter_vgpu_framebuffer_used_bytes").size(), 4U);
  const auto sm = e.find("gpumeter_vgpu_sm_utilization_ratio", kRenderNode);
  ASSERT_EQ(sm.size(), 1U);
  EXPECT_DOUBLE_EQ(sm[0].value, 0.71);  // python3 at 71 % inside the VM
  EXPECT_EQ(sm[0].labels.at("gpu"), "0");
  EXPECT_EQ(sm[0].labels.at("vgpu_uuid"), "b3a7d2c1-1e2f-4a5b-8c9d-0e1f2a3b4c02");
  EXPECT_EQ(sm[0].labels.at("vgpu_type"), "NVIDIA A16-8Q");
  EXPECT_DOUBLE_EQ(value(e, "gpumeter_vgpu_memory_utilization_ratio", kRenderNode), 0.38);
  EXPECT_EQ(value(e, "gpumeter_vgpu_framebuffer_used_bytes", kRenderNode), 6442450944.0);
  EXPECT_EQ(value(e, "gpumeter_vgpu_licensed", kRenderNode), 1);
  EXPECT_EQ(value(e, "gpumeter_vgpu_license_expiry_timestamp_seconds", kRenderNode),
            1798761599.0);  // 2026-12-31T23:59:59Z
  const LabelMap office{{"vm_id", "17"}, {"state", "unlicensed_restricted"}};
  EXPECT_EQ(value(e, "gpumeter_vgpu_license_state_info", office), 1);
  EXPECT_EQ(value(e, "gpumeter_vgpu_licensed", {{"vm_id", "17"}}), 0);
  // VM 18 has no guest driver: no licence sample rather than a made-up 0.
  EXPECT_TRUE(e.find("gpumeter_vgpu_licensed", {{"vm_id", "18"}}).empty());
  EXPECT_DOUBLE_EQ(value(e, "gpumeter_vgpu_encoder_utilization_ratio",
                         {{"vm_id", "5f0e2a44-9b1c-4d7e-8f60-1a2b3c4d5e01"}}),
                   0.42);
}

TEST_F(VgpuHost, RouteServesThePublishedSnapshot) {
  HttpConfig config;
  config.listen = ListenAddress{.host = "127.0.0.1", .port = 0};
  auto server = HttpServer::open(config);
  ASSERT_TRUE(server.has_value());
  add_agent_routes(**server, AgentSources{.sampler = *sampler_, .now_us = [] { return 0; }});
  (*server)->start();
  httplib::Client client("127.0.0.1", (*server)->port());
  const auto result = client.Get("/api/v1/vgpu");
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200);
  const auto document = nlohmann::json::parse(result->body);
  EXPECT_EQ(document["time_us"], sampler_->snapshot()->time_us);
  ASSERT_EQ(document["gpus"].size(), 2U);
  const auto& instances = document["gpus"][1]["vgpu"]["instances"];
  ASSERT_EQ(instances.size(), 2U);
  EXPECT_EQ(instances[0]["type_name"], "NVIDIA A16-2B");
  EXPECT_EQ(instances[0]["license"]["state"], "unlicensed_restricted");
  EXPECT_EQ(document["gpus"][1]["vgpu"]["processes"][0]["name"], "chrome");
}

// The recent series of one instance over a real socket: one record per round with the
// scripted figures, by UUID or id, cut by since/until; the errors name the parameter.
TEST_F(VgpuHost, SeriesRouteServesAnInstancesRecentRecords) {
  HttpConfig config;
  config.listen = ListenAddress{.host = "127.0.0.1", .port = 0};
  config.token = "s3cret";
  auto server = HttpServer::open(config);
  ASSERT_TRUE(server.has_value());
  const TimeUs now = time_us(3.5);
  add_agent_routes(**server, AgentSources{.sampler = *sampler_, .now_us = [now] { return now; }});
  (*server)->start();
  httplib::Client client("127.0.0.1", (*server)->port());
  const std::string path = "/api/v1/vgpu/series?gpu=0&vgpu=b3a7d2c1-1e2f-4a5b-8c9d-0e1f2a3b4c02";
  const auto refused = client.Get(path);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);  // a token route

  client.set_bearer_token_auth("s3cret");
  const auto result = client.Get(path);
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
  const auto document = nlohmann::json::parse(result->body);
  EXPECT_EQ(document["schema_version"], 1);
  EXPECT_EQ(document["gpu"]["uuid"], "GPU-3a1f0c5e-7b2d-4e8a-9c61-0d2e4f6a8b10");
  EXPECT_EQ(document["vgpu"]["id"], 102);
  EXPECT_EQ(document["vgpu"]["vm_id"], "5f0e2a44-9b1c-4d7e-8f60-1a2b3c4d5e02");
  EXPECT_EQ(document["vgpu"]["type_name"], "NVIDIA A16-8Q");
  ASSERT_EQ(document["time"].size(), 4U);  // rounds at 0, 1, 2 and 3 s
  EXPECT_DOUBLE_EQ(document["time"][3].get<double>(), static_cast<double>(time_us(3)) / 1e6);
  EXPECT_EQ(document["sm_percent"][3], 71);
  EXPECT_EQ(document["memory_percent"][3], 38);
  EXPECT_EQ(document["fb_used_bytes"][3], 6442450944ULL);
  EXPECT_EQ(document["ofa_percent"][3], 0);
  for (const char* column : {"sm_percent", "memory_percent", "encoder_percent", "decoder_percent",
                             "jpeg_percent", "ofa_percent", "fb_used_bytes"}) {
    EXPECT_EQ(document[column].size(), 4U) << column;
  }

  // By the driver's id, from 2 s on (Unix seconds), GPU by UUID.
  const auto since = client.Get(fmt::format(
      "/api/v1/vgpu/series?gpu=GPU-3a1f0c5e-7b2d-4e8a-9c61-0d2e4f6a8b11&vgpu=201&since=@{}",
      time_us(2) / 1'000'000));
  ASSERT_TRUE(since);
  ASSERT_EQ(since->status, 200) << since->body;
  const auto office = nlohmann::json::parse(since->body);
  EXPECT_EQ(office["vgpu"]["vm_id"], "17");
  EXPECT_EQ(office["time"].size(), 2U);
  EXPECT_EQ(office["decoder_percent"][1], 8);

  const auto status_of = [&](const std::string& query) {
    const auto answer = client.Get(query);
    return answer ? answer->status : -1;
  };
  EXPECT_EQ(status_of("/api/v1/vgpu/series?vgpu=201"), 400);        // no gpu
  EXPECT_EQ(status_of("/api/v1/vgpu/series?gpu=1"), 400);           // no vgpu
  EXPECT_EQ(status_of("/api/v1/vgpu/series?gpu=9&vgpu=201"), 400);  // no such GPU
  EXPECT_EQ(status_of("/api/v1/vgpu/series?gpu=0&vgpu=201"), 404);  // on the other GPU
  EXPECT_EQ(status_of("/api/v1/vgpu/series?gpu=1&vgpu=201&since=yesterday"), 400);
}

}  // namespace gpumeter::net::vgpu_sim_test

// SPDX-License-Identifier: MIT
// examples/grafana/gpumeter-dashboard.json: it parses, and every metric its queries name is a
// family that the exposition of a simulated machine really carries.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/sampler.h"
#include "exposition/metrics.h"
#include "exposition/parts.h"
#include "exposition/process_activity.h"
#include "support/sampler_sim.h"
#include "support/source_files.h"
#include "support/text_reader.h"

namespace gpumeter::net::dashboard_test {

using gpumeter::testing::source_path;

using Json = nlohmann::json;

// A GPU that offers every reading (a fan and an energy counter too), with a user's process.
constexpr std::string_view kEverything = R"({
  "devices": [{"name": "NVIDIA L40S", "memory_total_bytes": 48305799168,
               "fan_percent": {"idle": 30, "busy": 80}, "power_limit_w": 350}],
  "processes": [{"device": 0, "pid": 4321, "used_memory_bytes": 1073741824,
                 "utilization": {"sm": 50},
                 "host": {"user": "alice", "uid": 1001, "command": ["python3", "x.py"]}}]
})";

class Dashboard : public gpumeter::testing::SimulatedMachine {
 protected:
  // The families of the exposition after a few rounds, sampler and HTTP ones included.
  std::set<std::string> families() {
    open(kEverything);
    Sampler sampler(gpus(), host(), {});
    run(sampler, 0, 12);
    const auto snapshot = sampler.snapshot();
    fmt::memory_buffer http;  // what the route appends: the server's response counts
    const exposition::Labels host = exposition::host_labels(snapshot->hostname);
    exposition::append_http_metrics(http, host, {{200, 1}});
    // What a daemon with a history adds: the ledger counters of a user and a Slurm job.
    exposition::append_usage_totals(http, host,
                                    {.users = {{.key = "alice", .gpu_seconds = 60}},
                                     .containers = {{.key = "slurm:7", .gpu_seconds = 60}}});
    const std::string text =
        exposition::render_metrics(*snapshot, sampler.stats(), {},
                                   exposition::recent_activity(sampler, snapshot->time_us)) +
        fmt::to_string(http);
    const auto parsed = exposition::testing::parse_exposition(text);
    EXPECT_TRUE(parsed.has_value()) << parsed.error();
    std::set<std::string> families;
    if (parsed) {
      for (const auto& [family, type] : parsed->types) families.insert(family);
    }
    return families;
  }
};

Json read_dashboard() {
  std::ifstream file(source_path("examples/grafana/gpumeter-dashboard.json"));
  EXPECT_TRUE(file.good());
  return Json::parse(file);  // throws, failing the test, on invalid JSON
}

// Every PromQL query in the dashboard: panel targets' `expr`, template variables' queries.
void collect_queries(const Json& node, std::vector<std::string>& out) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if ((key == "expr" || key == "definition") && value.is_string()) {
        out.push_back(value.get<std::string>());
      }
      collect_queries(value, out);
    }
  } else if (node.is_array()) {
    for (const Json& item : node) collect_queries(item, out);
  }
}

TEST_F(Dashboard, NamesOnlyMetricsTheExpositionHas) {
  const std::set<std::string> families = this->families();
  const Json dashboard = read_dashboard();
  std::vector<std::string> queries;
  collect_queries(dashboard, queries);
  ASSERT_GE(queries.size(), 20U);
  const std::regex metric(R"(\bgpumeter_[a-z_]+)");
  std::set<std::string> used;
  for (const std::string& query : queries) {
    SCOPED_TRACE(query);
    std::size_t named = 0;
    for (auto it = std::sregex_iterator(query.begin(), query.end(), metric);
         it != std::sregex_iterator(); ++it, ++named) {
      EXPECT_TRUE(families.contains(it->str())) << it->str() << " is not in the exposition";
      used.insert(it->str());
    }
    EXPECT_GT(named, 0U) << "a query that names no gpumeter metric";
  }
  // It covers what it says it shows: each GPU reading, users, processes, the sampler's health.
  for (const char* family :
       {"gpumeter_gpu_sm_utilization_ratio", "gpumeter_gpu_memory_used_bytes",
        "gpumeter_gpu_power_watts", "gpumeter_gpu_temperature_celsius",
        "gpumeter_user_gpu_memory_used_bytes", "gpumeter_user_sm_utilization_ratio",
        "gpumeter_process_gpu_memory_used_bytes", "gpumeter_sampler_rounds_total",
        "gpumeter_source_errors_total", "gpumeter_user_gpu_seconds_total",
        "gpumeter_container_gpu_seconds_total", "gpumeter_user_processes",
        "gpumeter_gpu_ecc_errors_uncorrected_total", "gpumeter_gpu_performance_state"}) {
    EXPECT_TRUE(used.contains(family)) << family;
  }
}

// Imported by hand or provisioned from a file (examples/grafana/provisioning): no __inputs to
// fill, a data-source variable that every panel and query uses.
TEST(DashboardFile, IsAnImportableAndProvisionableDashboard) {
  const Json dashboard = read_dashboard();
  EXPECT_EQ(dashboard.at("uid"), "gpumeter");
  EXPECT_FALSE(dashboard.contains("__inputs"));
  const Json& variable = dashboard.at("templating").at("list").at(0);
  EXPECT_EQ(variable.at("name"), "datasource");
  EXPECT_EQ(variable.at("type"), "datasource");
  EXPECT_EQ(variable.at("query"), "prometheus");
  std::set<int> ids;
  for (const Json& panel : dashboard.at("panels")) {
    EXPECT_TRUE(ids.insert(panel.at("id").get<int>()).second) << "panel ids must be unique";
    if (panel.contains("datasource")) {
      EXPECT_EQ(panel.at("datasource").at("uid"), "${datasource}");
    }
    for (const Json& target : panel.value("targets", Json::array())) {
      EXPECT_EQ(target.at("datasource").at("uid"), "${datasource}");
    }
  }
  for (const Json& query : dashboard.at("templating").at("list")) {
    if (query.at("type") == "query") {
      EXPECT_EQ(query.at("datasource").at("uid"), "${datasource}");
    }
  }
}

}  // namespace gpumeter::net::dashboard_test

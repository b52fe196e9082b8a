// SPDX-License-Identifier: MIT
// The exposition of snapshots that a sampler took through the real loader from the simulated
// libnvidia-ml.so.1, its clock stepped; read back with an independent reader.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/sampler.h"
#include "exposition/metrics.h"
#include "exposition/process_activity.h"
#include "support/sampler_sim.h"
#include "support/text_reader.h"
#include "view/command_name.h"

namespace gpumeter::exposition::sim_test {

using testing::Exposition;
using testing::LabelMap;
using testing::parse_exposition;

// Two GPUs at constant load: alice runs on both, bob on GPU 0, carol holds memory on GPU 1
// without ever running a kernel.
constexpr std::string_view kSteady = R"({
  "devices": [{"name": "NVIDIA L4", "uuid": "GPU-aaaa", "memory_total_bytes": 24152899584},
              {"name": "NVIDIA L4", "uuid": "GPU-bbbb", "memory_total_bytes": 24152899584}],
  "processes": [
    {"device": 0, "pid": 100, "used_memory_bytes": 4294967296, "utilization": {"sm": 60},
     "host": {"user": "alice", "uid": 1001, "started_s": -60, "command": ["python3", "a.py"]}},
    {"device": 1, "pid": 101, "used_memory_bytes": 1073741824, "utilization": {"sm": 20},
     "host": {"user": "alice", "uid": 1001, "started_s": -60, "command": ["python3", "b.py"]}},
    {"device": 0, "pid": 200, "used_memory_bytes": 2147483648, "utilization": {"sm": 30},
     "host": {"user": "bob", "uid": 1002, "started_s": -60, "command": ["./bench"]}},
    {"device": 1, "pid": 300, "used_memory_bytes": 536870912,
     "host": {"user": "carol", "uid": 1003, "started_s": -60, "command": ["python3", "idle.py"]}}
  ]
})";

constexpr double kGiB = 1024.0 * 1024 * 1024;

class Metrics : public gpumeter::testing::SimulatedMachine {
 protected:
  // Rounds at every second from 0 to `to_s`, then the exposition of the last snapshot.
  Exposition scrape_after(int to_s, MetricsOptions options = {}) {
    run(sampler(), 0, to_s);
    return scrape(options);
  }

  Exposition scrape(MetricsOptions options = {}) {
    const auto snapshot = sampler().snapshot();
    if (!snapshot) ADD_FAILURE() << "no snapshot";
    if (!snapshot) return {};
    text_ = render_metrics(*snapshot, sampler().stats(), options,
                           recent_activity(sampler(), snapshot->time_us));
    auto parsed = parse_exposition(text_);
    if (!parsed) ADD_FAILURE() << parsed.error() << "\n" << text_;
    return parsed.value_or(Exposition{});
  }

  Sampler& sampler() {
    if (!sampler_) sampler_ = std::make_unique<Sampler>(gpus(), host(), SamplerConfig{});
    return *sampler_;
  }

  // The single sample of `name` with `labels`, or NaN (and a failure) when there is not one.
  static double value(const Exposition& e, std::string_view name, const LabelMap& labels) {
    const auto found = e.find(name, labels);
    if (found.size() != 1) {
      ADD_FAILURE() << found.size() << " samples of " << name;
      return std::nan("");
    }
    return found.front().value;
  }

  std::string text_;
  std::unique_ptr<Sampler> sampler_;
};

TEST_F(Metrics, EveryGpuWithItsReadingsInBaseUnits) {
  open_example("dgx-8gpu");
  const Exposition e = scrape_after(12);
  const auto snapshot = sampler().snapshot();
  ASSERT_EQ(e.find("gpumeter_gpu_info").size(), 8U);
  for (const Device& device : snapshot->gpus.devices) {
    const LabelMap gpu{{"gpu", std::to_string(device.identity.index)}};
    SCOPED_TRACE(device.identity.index);
    const auto info = e.find("gpumeter_gpu_info", gpu);
    ASSERT_EQ(info.size(), 1U);
    EXPECT_EQ(info[0].labels.at("uuid"), device.identity.uuid.value());
    EXPECT_EQ(info[0].labels.at("name"), "Tesla V100-SXM2-16GB");
    EXPECT_EQ(info[0].labels.at("driver_version"), "570.124.06");
    EXPECT_EQ(info[0].labels.at("host"), snapshot->hostname);
    const DeviceState& state = device.state;
    EXPECT_EQ(value(e, "gpumeter_gpu_up", gpu), 1);
    EXPECT_EQ(value(e, "gpumeter_gpu_memory_total_bytes", gpu), 16945512448.0);
    EXPECT_EQ(value(e, "gpumeter_gpu_memory_used_bytes", gpu),
              state[DeviceMetric::memory_used].value());
    EXPECT_EQ(value(e, "gpumeter_gpu_sm_utilization_ratio", gpu),
              state[DeviceMetric::utilization_gpu].value() / 100);
    EXPECT_EQ(value(e, "gpumeter_gpu_sm_clock_hertz", gpu),
              state[DeviceMetric::clock_sm].value() * 1e6);
    EXPECT_EQ(value(e, "gpumeter_gpu_power_limit_watts", gpu), 300);
    EXPECT_EQ(value(e, "gpumeter_gpu_energy_joules_total", gpu),
              state[DeviceMetric::energy].value());
    EXPECT_EQ(value(e, "gpumeter_gpu_processes", gpu),
              static_cast<double>(device.processes->size()));
  }
  EXPECT_EQ(e.types.at("gpumeter_gpu_energy_joules_total"), "counter");
  EXPECT_EQ(e.types.at("gpumeter_gpu_temperature_celsius"), "gauge");
  // The scenario's V100s have no fan reading: the family is absent, not 0.
  EXPECT_FALSE(e.has_family("gpumeter_gpu_fan_ratio"));
}

TEST_F(Metrics, ProcessAndUserSeriesFromRecentSmUse) {
  open(kSteady);
  const Exposition e = scrape_after(15);
  const auto sm = [&](const char* pid) {
    return value(e, "gpumeter_process_sm_utilization_ratio", {{"pid", pid}});
  };
  EXPECT_NEAR(sm("100"), 0.6, 1e-9);
  EXPECT_NEAR(sm("101"), 0.2, 1e-9);
  EXPECT_NEAR(sm("200"), 0.3, 1e-9);
  EXPECT_EQ(sm("300"), 0);  // idle: a true 0, the GPU's samples were drained throughout

  const auto process = e.find("gpumeter_process_gpu_memory_used_bytes", {{"pid", "200"}});
  ASSERT_EQ(process.size(), 1U);
  EXPECT_EQ(process[0].value, 2 * kGiB);
  EXPECT_EQ(process[0].labels, (LabelMap{{"host", sampler().snapshot()->hostname},
                                         {"gpu", "0"},
                                         {"uuid", "GPU-aaaa"},
                                         {"name", "NVIDIA L4"},
                                         {"pid", "200"},
                                         {"user", "bob"},
                                         {"command", "bench"}}));

  const LabelMap alice0{{"user", "alice"}, {"gpu", "0"}};
  const LabelMap alice1{{"user", "alice"}, {"gpu", "1"}};
  EXPECT_EQ(value(e, "gpumeter_user_gpu_memory_used_bytes", alice0), 4 * kGiB);
  EXPECT_EQ(value(e, "gpumeter_user_gpu_memory_used_bytes", alice1), kGiB);
  EXPECT_NEAR(value(e, "gpumeter_user_sm_utilization_ratio", alice0), 0.6, 1e-9);
  EXPECT_NEAR(value(e, "gpumeter_user_sm_utilization_ratio", alice1), 0.2, 1e-9);
  EXPECT_EQ(value(e, "gpumeter_user_processes", alice0), 1);
  EXPECT_EQ(value(e, "gpumeter_user_sm_utilization_ratio", {{"user", "carol"}}), 0);
  EXPECT_EQ(e.find("gpumeter_user_processes").size(), 4U);
}

TEST_F(Metrics, TopProcessesByMemoryWhileUsersCountEveryProcess) {
  open(kSteady);
  const Exposition e = scrape_after(3, {.processes = {.series = ProcessSeries::top, .top = 2}});
  const auto kept = e.find("gpumeter_process_gpu_memory_used_bytes");
  ASSERT_EQ(kept.size(), 2U);
  EXPECT_EQ(kept[0].labels.at("pid"), "100");  // 4 GiB
  EXPECT_EQ(kept[1].labels.at("pid"), "200");  // 2 GiB
  EXPECT_EQ(e.find("gpumeter_process_sm_utilization_ratio").size(), 2U);
  EXPECT_EQ(value(e, "gpumeter_user_gpu_memory_used_bytes", {{"user", "carol"}}), 0.5 * kGiB);
}

TEST_F(Metrics, UsersOnlyAndNoneLeaveOutWhatTheySay) {
  open(kSteady);
  run(sampler(), 0, 3);
  const Exposition users = scrape({.processes = {.series = ProcessSeries::users}});
  EXPECT_TRUE(users.find("gpumeter_process_gpu_memory_used_bytes").empty());
  EXPECT_TRUE(users.find("gpumeter_process_sm_utilization_ratio").empty());
  EXPECT_EQ(users.find("gpumeter_user_processes").size(), 4U);
  const Exposition none = scrape({.processes = {.series = ProcessSeries::none}});
  for (const auto& [family, type] : none.types) {
    EXPECT_FALSE(family.starts_with("gpumeter_process_") || family.starts_with("gpumeter_user_"))
        << family;
  }
  EXPECT_EQ(text_.find("alice"), std::string::npos);
  EXPECT_EQ(none.find("gpumeter_gpu_info").size(), 2U);
}

TEST_F(Metrics, ALostGpuIsDownWithItsIdentityAndNoReadings) {
  open_example("lost-gpu");  // GPU 1 falls off the bus at t = 2 s
  const Exposition e = scrape_after(5);
  EXPECT_EQ(value(e, "gpumeter_gpu_up", {{"gpu", "0"}}), 1);
  EXPECT_EQ(value(e, "gpumeter_gpu_up", {{"gpu", "1"}}), 0);
  EXPECT_EQ(e.find("gpumeter_gpu_info", {{"gpu", "1"}}).size(), 1U);
  for (const auto& sample : e.samples) {
    if (sample.name == "gpumeter_gpu_info" || sample.name == "gpumeter_gpu_up") continue;
    EXPECT_NE(sample.labels.contains("gpu") ? sample.labels.at("gpu") : "", "1") << sample.name;
  }
  EXPECT_EQ(e.find("gpumeter_gpu_temperature_celsius", {{"gpu", "0"}}).size(), 1U);
}

TEST_F(Metrics, UnsupportedReadingsAndHiddenOwners) {
  open_example("workstation");  // consumer boards: no energy counter; one hidden owner
  const Exposition e = scrape_after(3);
  EXPECT_FALSE(e.has_family("gpumeter_gpu_energy_joules_total"));
  EXPECT_EQ(e.find("gpumeter_gpu_fan_ratio").size(), 4U);
  const auto hidden = e.find("gpumeter_process_gpu_memory_used_bytes", {{"pid", "31337"}});
  ASSERT_EQ(hidden.size(), 1U);
  EXPECT_EQ(hidden[0].labels.at("user"), "?");
  EXPECT_EQ(hidden[0].labels.at("command"), "");
  EXPECT_EQ(value(e, "gpumeter_user_processes", {{"user", "?"}, {"gpu", "1"}}), 1);
}

TEST_F(Metrics, LabelValuesAreEscapedThroughTheWholePath) {
  const std::vector<std::string> argv{"/opt/we\"ird\\tool", "two\nlines"};
  open(R"({"devices": [{"name": "Quote \" and \\ GPU", "memory_total_bytes": 8589934592}],
           "processes": [{"device": 0, "pid": 7, "used_memory_bytes": 1048576,
             "host": {"user": "o\"neil", "uid": 1005, "started_s": -1,
                      "command": ["/opt/we\"ird\\tool", "two\nlines"]}}]})");
  const Exposition e = scrape_after(2);
  const auto process = e.find("gpumeter_process_gpu_memory_used_bytes", {{"pid", "7"}});
  ASSERT_EQ(process.size(), 1U);
  EXPECT_EQ(process[0].labels.at("user"), "o\"neil");
  EXPECT_EQ(process[0].labels.at("command"), view::short_command(argv));
  EXPECT_EQ(process[0].labels.at("name"), "Quote \" and \\ GPU");
  EXPECT_NE(text_.find(R"(name="Quote \" and \\ GPU")"), std::string::npos);
  EXPECT_NE(text_.find(R"(user="o\"neil")"), std::string::npos);
  EXPECT_NE(text_.find(R"(command="we\"ird\\tool two\nlines")"), std::string::npos) << text_;
}

TEST_F(Metrics, TheSamplersHealthMatchesItsStats) {
  open_example("flaky");  // every 4th per-process query of GPU 0 fails
  const Exposition e = scrape_after(12);
  const SamplerStats stats = sampler().stats();
  const LabelMap host{{"host", sampler().snapshot()->hostname}};
  EXPECT_EQ(value(e, "gpumeter_sampler_rounds_total", host), 13);
  EXPECT_EQ(value(e, "gpumeter_sampler_skipped_rounds_total", {}), 0);
  EXPECT_GE(value(e, "gpumeter_sampler_round_duration_seconds", {}), 0);
  EXPECT_EQ(value(e, "gpumeter_series_bytes", {}), static_cast<double>(stats.series_bytes));
  const LabelMap drain{{"source", "gpu_process_utilization"}};
  EXPECT_EQ(value(e, "gpumeter_source_calls_total", drain),
            static_cast<double>(stats.utilization_drain.calls));
  EXPECT_GT(value(e, "gpumeter_source_errors_total", drain), 0);
  EXPECT_EQ(value(e, "gpumeter_source_errors_total", drain),
            static_cast<double>(stats.utilization_drain.failures));
  EXPECT_EQ(value(e, "gpumeter_source_calls_total", {{"source", "gpu"}}), 13);
  EXPECT_EQ(value(e, "gpumeter_source_last_success_timestamp_seconds", {{"source", "gpu"}}),
            static_cast<double>(time_us(12)) / 1e6);
  EXPECT_EQ(
      e.find("gpumeter_build_info", {{"version", GPUMETER_VERSION}, {"host", host.at("host")}})
          .size(),
      1U);
  for (const auto& sample : e.samples) EXPECT_TRUE(sample.labels.contains("host")) << sample.name;

  const Exposition once = scrape({.sampler_metrics = false});
  for (const auto& [family, type] : once.types) {
    EXPECT_FALSE(family.starts_with("gpumeter_sampler_") || family.starts_with("gpumeter_source_"))
        << family;
  }
  EXPECT_TRUE(once.has_family("gpumeter_build_info"));
}

TEST_F(Metrics, AMachineWithoutGpusHasOnlySelfMetrics) {
  open_example("empty");
  const Exposition e = scrape_after(1);
  for (const auto& [family, type] : e.types) {
    EXPECT_FALSE(family.starts_with("gpumeter_gpu_")) << family;
  }
  EXPECT_EQ(value(e, "gpumeter_sampler_rounds_total", {}), 2);
}

}  // namespace gpumeter::exposition::sim_test

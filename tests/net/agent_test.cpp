// SPDX-License-Identifier: MIT
// The agent inside `gpumeter daemon`, over real HTTP: a daemon on a scenario whose figures
// are constant, so that every document can be checked against the script.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/daemon_process.h"
#include "support/source_files.h"
#include "support/task_client.h"
#include "support/temp_dir.h"

namespace gpumeter::net::agent_test {

using gpumeter::testing::keys_of;

using nlohmann::json;
using testing::Daemon;
using testing::Process;

constexpr const char* kUuid0 = "GPU-11111111-2222-3333-4444-555555555555";
constexpr const char* kUuid1 = "GPU-66666666-7777-8888-9999-000000000000";

// GPU 0: alice's training at 40 % SM and 1 GiB, so 50 °C (30 idle, 80 busy) and 38.4 W
// (16 idle, 72 limit). GPU 1: idle, at the simulator's default 35 °C.
constexpr const char* kScenario = R"({
  "devices": [
    {"name": "NVIDIA L4", "uuid": "GPU-11111111-2222-3333-4444-555555555555",
     "memory_total_bytes": 24152899584, "temperature_c": {"idle": 30, "busy": 80, "slowdown": 90},
     "power_limit_w": 72, "power_idle_w": 16, "clocks_mhz": {"sm": 1000},
     "max_clocks_mhz": {"sm": 2000}},
    {"name": "NVIDIA L4", "uuid": "GPU-66666666-7777-8888-9999-000000000000",
     "memory_total_bytes": 24152899584}
  ],
  "processes": [
    {"device": 0, "pid": 4242, "used_memory_bytes": 1073741824, "utilization": {"sm": 40},
     "host": {"user": "alice", "uid": 1001, "command": ["python3", "train.py", "--epochs", "9"],
              "started_s": -600}}
  ]
})";

class Agent : public ::testing::Test {
 protected:
  // One daemon for the suite. A daemon that does not start fails every test (a failure in
  // SetUpTestSuite itself would only mark them skipped).
  static void SetUpTestSuite() {
    dir_ = new gpumeter::testing::TempDir();
    scenario_ = dir_->write("scenario.json", kScenario);
    dir_->write("quota", "alice = 10h per day\n");
    try {
      daemon_ = new Daemon(scenario_, dir_->path(), {"--quota", (dir_->path() / "quota").string()});
    } catch (const std::exception& error) {
      start_error_ = error.what();
    }
  }
  void SetUp() override { ASSERT_NE(daemon_, nullptr) << start_error_; }
  static void TearDownTestSuite() {
    delete daemon_;
    delete dir_;
  }

  static std::pair<int, json> get(const std::string& path) {
    httplib::Client client("127.0.0.1", daemon_->port());
    const auto result = client.Get(path);
    if (!result) return {0, nullptr};
    return {result->status, json::parse(result->body, nullptr, false)};
  }

  // Polls `path` until `ready` accepts its document (the sampler and the recorder need a
  // few rounds), for at most 20 s.
  template <class Ready>
  static json poll(const std::string& path, Ready ready) {
    json last;
    for (int attempt = 0; attempt < 200; ++attempt) {
      const auto [status, document] = get(path);
      last = document;
      if (status == 200 && ready(document)) return document;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << path << " never became ready; last answer: " << last.dump();
    return last;
  }

  static inline gpumeter::testing::TempDir* dir_ = nullptr;
  static inline std::filesystem::path scenario_;
  static inline Daemon* daemon_ = nullptr;
  static inline std::string start_error_;
};

TEST_F(Agent, StatusIsTheListDocument) {
  const auto [status, document] = get("/api/v1/status");
  ASSERT_EQ(status, 200);
  const std::filesystem::path out = dir_->path() / "list.json";
  Process list({"--simulate", scenario_.string(), "list", "--json"}, out);
  ASSERT_EQ(list.wait(), 0) << list.err();
  std::ifstream in(out);
  const json listed = json::parse(in);
  EXPECT_EQ(keys_of(document), keys_of(listed));
  ASSERT_EQ(document["gpus"].size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(keys_of(document["gpus"][i]), keys_of(listed["gpus"][i]));
    EXPECT_EQ(document["gpus"][i]["uuid"], listed["gpus"][i]["uuid"]);
  }
  EXPECT_EQ(document["schema_version"], 1);
  EXPECT_EQ(document["gpus"][0]["utilization_gpu_percent"], 40);
  EXPECT_EQ(document["gpus"][0]["processes"][0]["user"], "alice");
}

TEST_F(Agent, GpuStatusIsNvgpusFlatShape) {
  const auto [status, document] = get("/gpu_status");
  ASSERT_EQ(status, 200);
  ASSERT_EQ(document["gpus"].size(), 2U);
  const json& busy = document["gpus"][0];
  // nvgpu's keys, with nvgpu's types.
  EXPECT_EQ(busy["type"], "NVIDIA L4");
  EXPECT_EQ(busy["is_available"], false);
  EXPECT_EQ(busy["pids"], "4242");
  EXPECT_EQ(busy["users"], "alice");
  EXPECT_TRUE(busy["running_since"].get<std::string>().ends_with(" ago")) << busy;
  EXPECT_EQ(busy["utilization"], 40);
  EXPECT_EQ(busy["clock_mhz"], 1400);
  EXPECT_EQ(busy["temperature"], 50);
  EXPECT_EQ(busy["cmd"], "train.py");
  // gpumeter's.
  EXPECT_EQ(busy["index"], 0);
  EXPECT_EQ(busy["memory_used"], 1024);
  EXPECT_EQ(busy["memory_total"], 23034);
  EXPECT_TRUE(busy["since"].is_string());
  EXPECT_EQ(busy["availability"], "in_use");
  const json& idle = document["gpus"][1];
  EXPECT_EQ(idle["is_available"], true);
  EXPECT_EQ(idle["pids"], "");
  EXPECT_EQ(idle["running_since"], nullptr);
  EXPECT_EQ(idle["cmd"], nullptr);
  EXPECT_EQ(idle["availability"], "free");
  EXPECT_TRUE(idle["since"].is_null());
  EXPECT_FALSE(document["hostname"].get<std::string>().empty());
}

TEST_F(Agent, HealthzSaysTheRoundsRun) {
  const auto [status, document] = get("/healthz");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(document["status"], "ok");
  EXPECT_LT(document["last_round_age_seconds"].get<double>(), 10.0);
}

// Every non-null bucket of a constant reading holds that reading.
void expect_constant(const json& document, double value) {
  std::size_t filled = 0;
  ASSERT_EQ(document["time"].size(), document["avg"].size());
  for (std::size_t i = 0; i < document["avg"].size(); ++i) {
    if (document["avg"][i].is_null()) continue;
    ++filled;
    EXPECT_NEAR(document["avg"][i].get<double>(), value, 1e-3) << i;
    EXPECT_NEAR(document["min"][i].get<double>(), value, 1e-3) << i;
    EXPECT_NEAR(document["max"][i].get<double>(), value, 1e-3) << i;
  }
  EXPECT_GT(filled, 0U);
}

bool has_values(const json& document) {
  return std::ranges::any_of(document["avg"], [](const json& v) { return !v.is_null(); });
}

TEST_F(Agent, HistoryOfTheSeriesInMemory) {
  const json document = poll("/api/v1/history?gpu=0&since=2m&step=5s", has_values);
  EXPECT_EQ(document["schema_version"], 1);
  EXPECT_EQ(document["gpu"], (json{{"index", 0}, {"uuid", kUuid0}}));
  EXPECT_EQ(document["metric"], "utilization_gpu_percent");
  EXPECT_EQ(document["unit"], "percent");
  EXPECT_EQ(document["step_seconds"], 5);
  ASSERT_GE(document["time"].size(), 24U);
  for (std::size_t i = 1; i < document["time"].size(); ++i) {
    EXPECT_EQ(document["time"][i].get<std::int64_t>() - document["time"][i - 1].get<std::int64_t>(),
              5);
  }
  EXPECT_EQ(document["time"][0].get<std::int64_t>() % 5, 0);
  expect_constant(document, 40.0);
  const json power =
      poll(std::string("/api/v1/history?gpu=") + kUuid0 + "&metric=power_draw_watts", has_values);
  EXPECT_EQ(power["unit"], "watts");
  expect_constant(power, 38.4);
}

TEST_F(Agent, HistoryOfTheTemperature) {
  // The series in memory answer for their time, the recorder's samples before it.
  const json document =
      poll("/api/v1/history?gpu=0&metric=temperature_celsius&since=1m&step=1s", has_values);
  EXPECT_EQ(document["unit"], "celsius");
  expect_constant(document, 50.0);
  const json idle = poll(
      std::string("/api/v1/history?gpu=") + kUuid1 + "&metric=temperature_celsius&since=1m&step=1s",
      has_values);
  expect_constant(idle, 35.0);  // the simulator's default idle temperature
}

TEST_F(Agent, HistoryRefusesBadParameters) {
  for (const char* path :
       {"/api/v1/history", "/api/v1/history?gpu=7", "/api/v1/history?gpu=GPU-nope",
        "/api/v1/history?gpu=0&metric=fan_speed_percent", "/api/v1/history?gpu=0&since=yesterday",
        "/api/v1/history?gpu=0&since=1m&until=2m", "/api/v1/history?gpu=0&step=0s",
        "/api/v1/history?gpu=0&since=30d&step=1s"}) {
    const auto [status, document] = get(path);
    EXPECT_EQ(status, 400) << path;
    EXPECT_TRUE(document.contains("error")) << path;
  }
  const auto [status, document] = get("/api/v1/history?gpu=0&metric=fan_speed_percent");
  EXPECT_NE(document["error"].get<std::string>().find("metric:"), std::string::npos);
}

TEST_F(Agent, UsageIsTheReportDocumentWithQuotas) {
  // Five seconds held at least: the simulated driver keeps no samples from before the daemon
  // loaded it, so its first moments hold the GPU without SM use on record, a share that
  // shrinks as the record grows (more of it on a loaded machine, where the first round is late).
  const json document = poll("/api/v1/usage?by=user&since=1h", [](const json& d) {
    return !d["rows"].empty() && d["rows"][0]["gpu_hours"].get<double>() * 3600 >= 5;
  });
  EXPECT_EQ(document["schema_version"], 1);
  EXPECT_EQ(document["report"], "usage");
  EXPECT_EQ(document["group_by"], json::array({"user"}));
  ASSERT_EQ(document["rows"].size(), 1U);
  EXPECT_EQ(document["rows"][0]["user"], "alice");
  EXPECT_EQ(document["rows"][0]["quota"]["gpu_hours"], 10.0);
  EXPECT_EQ(document["rows"][0]["quota"]["period"], "day");
  EXPECT_NE(document["quota"]["file"].get<std::string>().find("quota"), std::string::npos);
  const double busy = document["rows"][0]["sm_busy_hours"].get<double>();
  EXPECT_NEAR(busy / document["rows"][0]["gpu_hours"].get<double>(), 0.4, 0.05);

  const auto [status, by_gpu] = get("/api/v1/usage?by=gpu&bucket=day&since=1h");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(by_gpu["group_by"], json::array({"gpu", "day"}));
  EXPECT_TRUE(by_gpu["quota"].is_null());
  EXPECT_EQ(by_gpu["rows"][0]["gpu_uuid"], kUuid0);
}

TEST_F(Agent, UsageRefusesBadParameters) {
  for (const char* path : {"/api/v1/usage?by=week", "/api/v1/usage?bucket=week",
                           "/api/v1/usage?by=day&bucket=month", "/api/v1/usage?since=soon"}) {
    const auto [status, document] = get(path);
    EXPECT_EQ(status, 400) << path;
    EXPECT_TRUE(document.contains("error")) << path;
  }
}

TEST_F(Agent, TasksShowsWhatWorkersMarked) {
  testing::TaskClient client(dir_->path() / "daemon.sock");
  const json begun =
      client.ask(json{{"op", "begin"}, {"name", "decode"}, {"labels", {{"stream", "cam3"}}}});
  ASSERT_EQ(begun["ok"], true) << begun.dump();
  const json ended = client.ask(json{{"op", "end"}, {"task", begun["task"]}, {"wait", true}});
  ASSERT_EQ(ended["ok"], true) << ended.dump();
  const json document =
      poll("/api/v1/tasks?since=10m", [](const json& d) { return !d["tasks"].empty(); });
  EXPECT_EQ(document["schema_version"], 1);
  ASSERT_EQ(document["tasks"].size(), 1U);
  const json& task = document["tasks"][0];
  EXPECT_EQ(task["task"], begun["task"]);
  EXPECT_EQ(task["name"], "decode");
  EXPECT_EQ(task["labels"]["stream"], "cam3");
  EXPECT_EQ(task["state"], "ended");
  const auto [status, future] = get("/api/v1/tasks?since=@9999999999");
  ASSERT_EQ(status, 200);
  EXPECT_TRUE(future["tasks"].empty());
  EXPECT_EQ(get("/api/v1/tasks?since=later").first, 400);
}

TEST_F(Agent, TasksWithOpenShowsTheTasksStillRunning) {
  // Their own label: the daemon is shared with the other tests of the suite.
  testing::TaskClient client(dir_->path() / "daemon.sock");
  const json first =
      client.ask(json{{"op", "begin"}, {"name", "decode"}, {"labels", {{"case", "open"}}}});
  const json second = client.ask(json{
      {"op", "begin"}, {"name", "detect"}, {"labels", {{"case", "open"}, {"stream", "cam3"}}}});
  ASSERT_EQ(second["ok"], true) << second.dump();
  const auto [status, document] = get("/api/v1/tasks?open=1&label=case=open");
  ASSERT_EQ(status, 200);
  ASSERT_EQ(document["open"].size(), 2U) << document.dump();
  EXPECT_EQ(document["open"][0]["task"], first["task"]);
  EXPECT_EQ(document["open"][1]["task"], second["task"]);
  EXPECT_EQ(document["open"][1]["state"], "open");
  EXPECT_EQ(document["open"][1]["labels"]["stream"], "cam3");
  EXPECT_EQ(document["open_matched"], 2);
  EXPECT_EQ(document["open_truncated"], false);
  EXPECT_TRUE(document["tasks"].empty());

  const auto [latest_status, latest] = get("/api/v1/tasks?open=true&label=case=open&limit=1");
  ASSERT_EQ(latest_status, 200);
  ASSERT_EQ(latest["open"].size(), 1U);
  EXPECT_EQ(latest["open"][0]["task"], second["task"]) << "the latest begun";
  EXPECT_EQ(latest["open_truncated"], true);
  EXPECT_FALSE(get("/api/v1/tasks").second.contains("open")) << "only when asked";
  EXPECT_EQ(get("/api/v1/tasks?open=yes").first, 400);

  ASSERT_EQ(client.ask(json{{"op", "end"}, {"task", first["task"]}, {"wait", true}})["ok"], true);
  const json after = poll("/api/v1/tasks?open=1&label=case=open",
                          [](const json& d) { return !d["tasks"].empty(); });
  ASSERT_EQ(after["open"].size(), 1U);
  EXPECT_EQ(after["open"][0]["task"], second["task"]);
  EXPECT_EQ(after["tasks"][0]["task"], first["task"]);
}

}  // namespace gpumeter::net::agent_test

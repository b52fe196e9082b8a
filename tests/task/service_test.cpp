// SPDX-License-Identifier: MIT
#include "task/service.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/fake_monitor.h"
#include "task/recent_results.h"

namespace gpumeter::task::service_test {

using nlohmann::json;
using testing::FakeMonitor;
using testing::kSecond;
using testing::kT0;

constexpr Pid kWorkerPid = 100;
constexpr Pid kOtherPid = 200;
constexpr Uid kAlice = 1000;
constexpr Uid kBob = 1001;
constexpr Uid kDaemonUid = 999;

class ServiceTest : public ::testing::Test {
 protected:
  ServiceTest() {
    monitor_.set_alive(kWorkerPid, kT0 - 60 * kSecond, kAlice);
    monitor_.set_alive(kOtherPid, kT0 - 60 * kSecond, kBob);
    monitor_.set_user(kAlice, "alice");
    worker_ = service_.identify(kWorkerPid, kAlice);
    other_ = service_.identify(kOtherPid, kBob);
  }

  static ServiceConfig config() {
    ServiceConfig config;
    config.daemon.uid = kDaemonUid;
    config.limits.open_tasks_per_process = 8;
    return config;
  }

  json ask(const std::string& line, const Caller& caller, TimeUs now_us) {
    const Outcome outcome = service_.handle(line, caller, now_us);
    EXPECT_FALSE(outcome.waiting) << line;
    return json::parse(outcome.reply);
  }

  std::uint64_t begin(const Caller& caller, TimeUs now_us, const std::string& name = "decode") {
    const json reply = ask(json{{"op", "begin"}, {"name", name}}.dump(), caller, now_us);
    EXPECT_EQ(reply["ok"], true) << reply.dump();
    return reply.value("task", std::uint64_t{0});
  }

  FakeMonitor monitor_;
  Service service_{monitor_, config()};
  Caller worker_;
  Caller other_;
};

TEST_F(ServiceTest, BeginEndWaitsForTheSamplerThenAnswersWithFigures) {
  const auto id = begin(worker_, kT0);
  const Outcome end =
      service_.handle(R"({"op":"end","task":1,"id":"e"})", worker_, kT0 + 2 * kSecond);
  ASSERT_EQ(end.waiting, id);
  EXPECT_TRUE(end.reply.empty());
  monitor_.set_round(kT0 + kSecond);
  EXPECT_TRUE(service_.advance(kT0 + 2 * kSecond).empty()) << "the sampler has not passed the end";
  monitor_.set_round(kT0 + 2 * kSecond + testing::kPeriod - 1);
  EXPECT_TRUE(service_.advance(kT0 + 2 * kSecond).empty())
      << "the driver period that covers the end is not in yet";
  monitor_.set_round(kT0 + 3 * kSecond);
  const std::vector<Task> settled = service_.advance(kT0 + 3 * kSecond);
  ASSERT_EQ(settled.size(), 1U);
  const json reply = json::parse(Service::end_reply_for(end.id, settled.front()));
  EXPECT_EQ(reply["id"], "e");
  EXPECT_EQ(reply["task"], id);
  EXPECT_EQ(reply["user"], "alice");
  EXPECT_EQ(reply["uid"], kAlice);
  EXPECT_EQ(reply["process_start_time_us"], kT0 - 60 * kSecond);
  EXPECT_DOUBLE_EQ(reply["usage"]["gpus"][0]["sm_percent"].get<double>(), 80.0);
  EXPECT_EQ(reply["usage"]["gpus"][0]["uuid"], "GPU-test");
  ASSERT_EQ(monitor_.windows().size(), 1U);
  EXPECT_EQ(monitor_.windows()[0].begin_us, kT0);
  EXPECT_EQ(monitor_.windows()[0].end_us, kT0 + 2 * kSecond);
}

TEST_F(ServiceTest, EndWithoutWaitAnswersAtOnceAndTheFiguresFollowInQueries) {
  begin(worker_, kT0);
  const json reply = ask(R"({"op":"end","task":1,"wait":false})", worker_, kT0 + kSecond);
  EXPECT_EQ(reply["state"], "ending");
  EXPECT_TRUE(reply["usage"].is_null());
  monitor_.set_round(kT0 + 2 * kSecond);
  service_.advance(kT0 + 2 * kSecond);
  const json query = ask(R"({"op":"query"})", worker_, kT0 + 2 * kSecond);
  ASSERT_EQ(query["tasks"].size(), 1U);
  EXPECT_EQ(query["tasks"][0]["state"], "ended");
  EXPECT_FALSE(query["tasks"][0]["usage"].is_null());
}

TEST_F(ServiceTest, AStalledSamplerStillGetsAnAnswerAfterTheWait) {
  begin(worker_, kT0);
  service_.handle(R"({"op":"end","task":1})", worker_, kT0 + kSecond);
  EXPECT_TRUE(service_.advance(kT0 + 3 * kSecond).empty());
  EXPECT_EQ(service_.advance(kT0 + 20 * kSecond).size(), 1U);
}

TEST_F(ServiceTest, AnotherProcessMayNotEndTheTask) {
  begin(worker_, kT0);
  const json reply = ask(R"({"op":"end","task":1,"id":4})", other_, kT0 + kSecond);
  EXPECT_EQ(reply["ok"], false);
  EXPECT_EQ(reply["id"], 4);
  EXPECT_EQ(reply["error"]["code"], "not_permitted");
  // The task is still open for its owner.
  EXPECT_TRUE(service_.handle(R"({"op":"end","task":1})", worker_, kT0 + kSecond).waiting);
}

TEST_F(ServiceTest, OnlyRootNamesAnotherPid) {
  const json refused = ask(R"({"op":"begin","name":"x","pid":200})", worker_, kT0);
  EXPECT_EQ(refused["error"]["code"], "not_permitted");
  const json own = ask(R"({"op":"begin","name":"x","pid":100})", worker_, kT0);
  EXPECT_EQ(own["ok"], true);
  monitor_.set_alive(1, kT0 - 900 * kSecond, 0);
  const Caller root = service_.identify(1, 0);
  const json named = ask(R"({"op":"begin","name":"x","pid":200})", root, kT0);
  EXPECT_EQ(named["pid"], kOtherPid);
  const json gone = ask(R"({"op":"begin","name":"x","pid":4000})", root, kT0);
  EXPECT_EQ(gone["error"]["code"], "unknown_process");
  // The task belongs to the named process and its owner: it may end it.
  const json ended = ask(R"({"op":"end","task":2,"wait":false})", other_, kT0 + kSecond);
  EXPECT_EQ(ended["ok"], true);
  EXPECT_EQ(ended["uid"], kBob);
}

TEST_F(ServiceTest, APeerThatCannotBeIdentifiedCannotBegin) {
  const Caller ghost = service_.identify(5555, kAlice);
  EXPECT_FALSE(ghost.key);
  EXPECT_EQ(ask(R"({"op":"begin","name":"x"})", ghost, kT0)["error"]["code"], "unknown_process");
}

TEST_F(ServiceTest, UnknownTask) {
  EXPECT_EQ(ask(R"({"op":"end","task":77})", worker_, kT0)["error"]["code"], "unknown_task");
}

TEST_F(ServiceTest, ErrorsOfTheProtocolAreAnswered) {
  EXPECT_EQ(ask("garbage", worker_, kT0)["error"]["code"], "bad_request");
  EXPECT_EQ(ask(R"({"op":"fly"})", worker_, kT0)["error"]["code"], "unknown_op");
  EXPECT_EQ(ask(R"({"op":"status","v":9})", worker_, kT0)["error"]["code"], "unsupported_version");
  const Outcome large = service_.too_large();
  EXPECT_TRUE(large.close);
  EXPECT_EQ(json::parse(large.reply)["error"]["code"], "too_large");
  EXPECT_EQ(json::parse(service_.too_many_connections())["error"]["code"], "limit_reached");
}

TEST_F(ServiceTest, AFloodOfBeginsHitsTheLimit) {
  std::size_t refused = 0;
  for (int i = 0; i < 1000; ++i) {
    const json reply = ask(R"({"op":"begin","name":"x"})", worker_, kT0 + i);
    if (reply["ok"] == false) {
      EXPECT_EQ(reply["error"]["code"], "limit_reached");
      ++refused;
    }
  }
  EXPECT_EQ(refused, 1000U - 8U);
  EXPECT_EQ(ask(R"({"op":"status"})", worker_, kT0)["tasks"]["open"], 8);
}

TEST_F(ServiceTest, WatchesAProcessWhileItHasTasks) {
  begin(worker_, kT0);
  begin(worker_, kT0 + 1);
  EXPECT_EQ(monitor_.watched().size(), 1U);
  service_.handle(R"({"op":"end","task":1})", worker_, kT0 + kSecond);
  service_.handle(R"({"op":"end","task":2})", worker_, kT0 + kSecond);
  EXPECT_EQ(monitor_.watched().size(), 1U) << "until the figures are computed";
  monitor_.set_round(kT0 + 2 * kSecond);
  service_.advance(kT0 + 2 * kSecond);
  EXPECT_TRUE(monitor_.watched().empty());
}

TEST_F(ServiceTest, TasksOfAProcessThatExitedAreAbandoned) {
  begin(worker_, kT0);
  monitor_.set_round(kT0 + kSecond);
  service_.advance(kT0 + kSecond + 100);  // seen alive
  monitor_.set_dead(kWorkerPid);
  monitor_.set_round(kT0 + 2 * kSecond);
  const std::vector<Task> settled = service_.advance(kT0 + 2 * kSecond + 100);
  ASSERT_EQ(settled.size(), 1U);
  EXPECT_TRUE(settled[0].abandoned);
  EXPECT_EQ(settled[0].end_us, kT0 + kSecond + 100);
  EXPECT_TRUE(monitor_.watched().empty());
  const json status = ask(R"({"op":"status"})", other_, kT0 + 3 * kSecond);
  EXPECT_EQ(status["tasks"]["abandoned"], 1);
}

TEST_F(ServiceTest, AReusedPidIsAnotherProcess) {
  begin(worker_, kT0);
  monitor_.set_alive(kWorkerPid, kT0 + kSecond, kAlice);  // pid 100 again, a new process
  monitor_.set_round(kT0 + 2 * kSecond);
  ASSERT_EQ(service_.advance(kT0 + 2 * kSecond).size(), 1U);
}

TEST_F(ServiceTest, QueryShowsEachUserTheirOwnTasks) {
  begin(worker_, kT0, "alice's");
  begin(other_, kT0, "bob's");
  const json alice = ask(R"({"op":"query"})", worker_, kT0);
  ASSERT_EQ(alice["open"].size(), 1U);
  EXPECT_EQ(alice["open"][0]["name"], "alice's");
  monitor_.set_alive(300, kT0, kDaemonUid);
  const json daemon_user = ask(R"({"op":"query"})", service_.identify(300, kDaemonUid), kT0);
  EXPECT_EQ(daemon_user["open"].size(), 2U);
  const json root = ask(R"({"op":"query"})", Caller{1, 0, std::nullopt}, kT0);
  EXPECT_EQ(root["open"].size(), 2U);
}

TEST_F(ServiceTest, SettleAllAnswersEveryWaitingEnd) {
  begin(worker_, kT0);
  service_.handle(R"({"op":"end","task":1})", worker_, kT0 + kSecond);
  EXPECT_TRUE(service_.has_ending());
  EXPECT_EQ(service_.settle_all().size(), 1U);
  EXPECT_FALSE(service_.has_ending());
}

TEST_F(ServiceTest, ATaskThatLastedNoTimeHasNoFiguresAndSaysWhy) {
  begin(worker_, kT0);
  const json reply = ask(R"({"op":"end","task":1,"wait":false})", worker_, kT0);
  EXPECT_EQ(reply["ok"], true);
  const std::vector<Task> settled = service_.settle_all();
  ASSERT_EQ(settled.size(), 1U);
  EXPECT_EQ(settled[0].figures_error, "the task lasted no time");
  EXPECT_TRUE(monitor_.windows().empty());
}

TEST_F(ServiceTest, StatusDescribesThePeer) {
  const json status = ask(R"({"op":"status","id":1})", worker_, kT0);
  EXPECT_EQ(status["peer"]["pid"], kWorkerPid);
  EXPECT_EQ(status["peer"]["uid"], kAlice);
  EXPECT_EQ(status["daemon"]["uid"], kDaemonUid);
}

TEST_F(ServiceTest, StatusSaysNothingOfAHistoryTheDaemonDoesNotKeep) {
  EXPECT_TRUE(ask(R"({"op":"status"})", worker_, kT0)["history"].is_null());
}

TEST_F(ServiceTest, StatusShowsTheHistoryRecordersState) {
  ServiceConfig with_history = config();
  with_history.history = [] {
    return HistoryStatus{.database = "/var/lib/gpumeter/gpumeter.db",
                         .failing = true,
                         .last_error = "database or disk is full",
                         .queued_rows = 12,
                         .written_rows = 3400,
                         .recorded_until_us = kT0,
                         .csv_directory = "/var/log/gpumeter"};
  };
  Service service(monitor_, with_history);
  const Outcome outcome = service.handle(R"({"op":"status"})", worker_, kT0);
  const json history = json::parse(outcome.reply)["history"];
  EXPECT_EQ(history["database"], "/var/lib/gpumeter/gpumeter.db");
  EXPECT_EQ(history["state"], "failing");
  EXPECT_EQ(history["last_error"], "database or disk is full");
  EXPECT_EQ(history["queued_rows"], 12);
  EXPECT_EQ(history["written_rows"], 3400);
  EXPECT_EQ(history["dropped_rows"], 0);
  EXPECT_EQ(history["recorded_until_us"], kT0);
  EXPECT_TRUE(history["last_write_time_us"].is_null());
  EXPECT_EQ(history["csv"]["directory"], "/var/log/gpumeter");
  EXPECT_TRUE(history["csv"]["last_error"].is_null());
}

// Keeps what it is handed, as the daemon's history recorder queues it.
class CollectingSink final : public ResultSink {
 public:
  void settled(const Task& task) override { tasks.push_back(task); }
  std::vector<Task> tasks;
};

TEST_F(ServiceTest, EverySettledTaskReachesTheResultSinkOnce) {
  CollectingSink sink;
  Service service(monitor_, config(), &sink);
  const Caller worker = service.identify(kWorkerPid, kAlice);
  for (const TimeUs begin : {kT0, kT0 + kSecond}) {
    const Outcome outcome = service.handle(R"({"op":"begin","name":"decode"})", worker, begin);
    ASSERT_NE(outcome.reply.find("\"ok\":true"), std::string::npos) << outcome.reply;
  }
  service.handle(R"({"op":"end","task":1})", worker, kT0 + 2 * kSecond);
  service.handle(R"({"op":"end","task":2})", worker, kT0 + 3 * kSecond);
  monitor_.set_round(kT0 + 3 * kSecond);
  ASSERT_EQ(service.advance(kT0 + 3 * kSecond).size(), 1U);  // task 1: its end is covered
  ASSERT_EQ(sink.tasks.size(), 1U);
  EXPECT_EQ(sink.tasks[0].id, 1U);
  EXPECT_EQ(sink.tasks[0].state, TaskState::ended);
  EXPECT_TRUE(sink.tasks[0].figures.has_value());
  EXPECT_EQ(service.settle_all().size(), 1U);  // task 2, at shutdown
  ASSERT_EQ(sink.tasks.size(), 2U);
  EXPECT_EQ(sink.tasks[1].id, 2U);
  EXPECT_TRUE(service.settle_all().empty());
  EXPECT_EQ(sink.tasks.size(), 2U);
}

std::vector<std::pair<TaskId, TaskState>> running_of(const RecentResults& recent) {
  std::vector<std::pair<TaskId, TaskState>> out;
  for (const Task& task : recent.running(100).tasks) out.emplace_back(task.id, task.state);
  return out;
}

TEST_F(ServiceTest, TheHttpCopyFollowsEveryTaskFromBeginToSettled) {
  RecentResults recent(100);
  Service service(monitor_, config(), &recent);
  const Caller worker = service.identify(kWorkerPid, kAlice);
  const Caller other = service.identify(kOtherPid, kBob);
  service.handle(R"({"op":"begin","name":"decode"})", worker, kT0);
  service.handle(R"({"op":"begin","name":"detect"})", other, kT0 + kSecond);
  using Running = std::vector<std::pair<TaskId, TaskState>>;
  EXPECT_EQ(running_of(recent), (Running{{1, TaskState::open}, {2, TaskState::open}}));

  service.handle(R"({"op":"end","task":1})", worker, kT0 + 2 * kSecond);
  EXPECT_EQ(running_of(recent), (Running{{1, TaskState::ending}, {2, TaskState::open}}));
  EXPECT_EQ(recent.running(100).tasks[0].end_us, kT0 + 2 * kSecond);

  monitor_.set_round(kT0 + 3 * kSecond);
  ASSERT_EQ(service.advance(kT0 + 3 * kSecond).size(), 1U);  // task 1 settles; 2 is seen alive
  EXPECT_EQ(running_of(recent), (Running{{2, TaskState::open}}));
  ASSERT_EQ(recent.ended_since(0, 100).tasks.size(), 1U);

  monitor_.set_dead(kOtherPid);  // task 2's process exits: abandoned, then settled
  monitor_.set_round(kT0 + 4 * kSecond);
  const std::vector<Task> settled = service.advance(kT0 + 4 * kSecond + 100);
  ASSERT_EQ(settled.size(), 1U);
  EXPECT_TRUE(settled[0].abandoned);
  EXPECT_TRUE(running_of(recent).empty());
  EXPECT_EQ(recent.ended_since(0, 100).tasks.size(), 2U);
}

constexpr std::uint64_t kMiB = 1024 * 1024;

EdgeReading reading(CpuTimes cpu, std::uint64_t rss, std::uint64_t mark, bool reset = true) {
  return EdgeReading{cpu, rss, mark, reset};
}

class EdgeTest : public ServiceTest {
 protected:
  // Ends `id` at `now_us` with `extra` keys in the request, lets the sampler pass, and returns
  // the end reply's usage.host.
  json end_and_settle(std::uint64_t id, TimeUs now_us, const json& extra = json::object()) {
    return end_and_settle_usage(id, now_us, extra)["host"];
  }

  // The same, returning the end reply's whole usage.
  json end_and_settle_usage(std::uint64_t id, TimeUs now_us, const json& extra = json::object()) {
    json request{{"op", "end"}, {"task", id}};
    request.update(extra);
    const Outcome end = service_.handle(request.dump(), worker_, now_us);
    EXPECT_EQ(end.waiting, id) << end.reply;
    monitor_.set_round(now_us + kSecond);
    const std::vector<Task> settled = service_.advance(now_us + kSecond);
    EXPECT_EQ(settled.size(), 1U);
    if (settled.empty()) return json{};
    return json::parse(Service::end_reply_for(end.id, settled.front()))["usage"];
  }

  std::uint64_t begin_with(const json& extra, TimeUs now_us) {
    json request{{"op", "begin"}, {"name", "decode"}};
    request.update(extra);
    const json reply = ask(request.dump(), worker_, now_us);
    EXPECT_EQ(reply["ok"], true) << reply.dump();
    return reply.value("task", std::uint64_t{0});
  }
};

TEST_F(EdgeTest, CpuSecondsComeFromTheClientsOwnReportsAtBothEdges) {
  monitor_.push_edge(kWorkerPid, reading({990'000, 190'000}, 100 * kMiB, 100 * kMiB));
  monitor_.push_edge(kWorkerPid, reading({1'740'000, 250'000}, 100 * kMiB, 100 * kMiB));
  const auto id = begin_with({{"rusage", {{"user_us", 1'000'000}, {"system_us", 200'000}}}}, kT0);
  const json host = end_and_settle(id, kT0 + 2 * kSecond,
                                   {{"rusage", {{"user_us", 1'750'123}, {"system_us", 260'000}}}});
  EXPECT_EQ(host["cpu_source"], "client");
  EXPECT_DOUBLE_EQ(host["cpu_user_seconds"].get<double>(), 0.750123);
  EXPECT_DOUBLE_EQ(host["cpu_system_seconds"].get<double>(), 0.06);
  EXPECT_NEAR(host["cpu_percent"].get<double>(), 100.0 * 0.810123 / 2.0, 1e-9);
  EXPECT_EQ(host["complete"], true);
}

TEST_F(EdgeTest, WithoutReportsCpuSecondsComeFromProcfsReadAtTheEdges) {
  monitor_.push_edge(kWorkerPid, reading({990'000, 190'000}, 100 * kMiB, 100 * kMiB));
  monitor_.push_edge(kWorkerPid, reading({1'740'000, 250'000}, 100 * kMiB, 100 * kMiB));
  const json host = end_and_settle(begin(worker_, kT0), kT0 + kSecond);
  EXPECT_EQ(host["cpu_source"], "procfs");
  EXPECT_DOUBLE_EQ(host["cpu_user_seconds"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(host["cpu_system_seconds"].get<double>(), 0.06);
  EXPECT_DOUBLE_EQ(host["cpu_percent"].get<double>(), 81.0);
}

TEST_F(EdgeTest, WithoutEdgeReadingsTheSeriesFiguresStand) {
  const json host = end_and_settle(begin(worker_, kT0), kT0 + kSecond);
  EXPECT_EQ(host["cpu_source"], "series");
  EXPECT_EQ(host["peak_rss_source"], "series");
  EXPECT_DOUBLE_EQ(host["cpu_user_seconds"].get<double>(), 0.5) << "the fake series' figure";
  EXPECT_TRUE(host["rss_at_start_bytes"].is_null());
  EXPECT_EQ(host["unavailable"]["rss_at_start_bytes"], "no_data");
}

TEST_F(EdgeTest, ThePeakIsTheHighWaterMarkResetAtTheBegin) {
  // 300 MiB is the mark of an earlier task: freed before this one began.
  monitor_.push_edge(kWorkerPid, reading({0, 0}, 100 * kMiB, 300 * kMiB));
  monitor_.push_edge(kWorkerPid, reading({0, 0}, 120 * kMiB, 180 * kMiB));
  const json host = end_and_settle(begin(worker_, kT0), kT0 + kSecond);
  EXPECT_EQ(monitor_.edge_resets(), (std::vector<bool>{true, false}));
  EXPECT_EQ(host["peak_rss_source"], "high_water_mark");
  EXPECT_EQ(host["peak_rss_bytes"], 180 * kMiB);
  EXPECT_EQ(host["rss_at_start_bytes"], 100 * kMiB);
  EXPECT_EQ(host["rss_at_end_bytes"], 120 * kMiB);
}

TEST_F(EdgeTest, OverlappingTasksKeepTheMarkReadBeforeAnotherTasksReset) {
  monitor_.push_edge(kWorkerPid, reading({0, 0}, 100 * kMiB, 100 * kMiB));  // A begins
  monitor_.push_edge(kWorkerPid, reading({0, 0}, 150 * kMiB, 500 * kMiB));  // B begins
  monitor_.push_edge(kWorkerPid, reading({0, 0}, 140 * kMiB, 200 * kMiB));  // A ends
  monitor_.push_edge(kWorkerPid, reading({0, 0}, 130 * kMiB, 210 * kMiB));  // B ends
  const auto a = begin(worker_, kT0);
  const auto b = begin(worker_, kT0 + kSecond / 2);
  const json host_a = end_and_settle(a, kT0 + kSecond);
  EXPECT_EQ(host_a["peak_rss_bytes"], 500 * kMiB) << "A was open when the mark reached 500 MiB";
  const json host_b = end_and_settle(b, kT0 + 3 * kSecond);
  EXPECT_EQ(host_b["peak_rss_bytes"], 210 * kMiB) << "B's reset hid A's earlier peak from it";
}

TEST_F(EdgeTest, AMarkThatCouldNotBeResetLeavesThePeakToTheSeries) {
  monitor_.push_edge(kWorkerPid, reading({0, 0}, 100 * kMiB, 300 * kMiB, false));
  monitor_.push_edge(kWorkerPid, reading({0, 0}, 120 * kMiB, 300 * kMiB));
  const json host = end_and_settle(begin(worker_, kT0), kT0 + kSecond);
  EXPECT_EQ(host["peak_rss_source"], "series");
  EXPECT_EQ(host["rss_at_end_bytes"], 120 * kMiB);
}

EdgeReading with_gpu_memory(Maybe<GpuMemoryHeld> held) {
  EdgeReading edge = reading({0, 0}, 100 * kMiB, 100 * kMiB);
  edge.gpu_memory = std::move(held);
  return edge;
}

TEST_F(EdgeTest, GpuMemoryAtTheEdgesIsWhatTheProcessListsSaidThen) {
  // GPU 1 is not among the task's figures (no samples of the process there): it is not added.
  monitor_.push_edge(kWorkerPid, with_gpu_memory(GpuMemoryHeld{{0, 1024 * kMiB}, {1, 64 * kMiB}}));
  monitor_.push_edge(kWorkerPid, with_gpu_memory(GpuMemoryHeld{{0, 1536 * kMiB}}));
  const json usage = end_and_settle_usage(begin(worker_, kT0), kT0 + kSecond);
  ASSERT_EQ(usage["gpus"].size(), 1U);
  const json& gpu = usage["gpus"][0];
  EXPECT_EQ(gpu["memory_source"], "edges");
  EXPECT_EQ(gpu["memory_at_start_bytes"], 1024 * kMiB);
  EXPECT_EQ(gpu["memory_at_end_bytes"], 1536 * kMiB);
  EXPECT_EQ(gpu["memory_peak_bytes"], 1536 * kMiB) << "no round saw the growth; the end did";
}

TEST_F(EdgeTest, AGpuTheProcessLeftHoldsNothingAtThatEdge) {
  monitor_.push_edge(kWorkerPid, with_gpu_memory(GpuMemoryHeld{{0, 512 * kMiB}}));
  monitor_.push_edge(kWorkerPid, with_gpu_memory(GpuMemoryHeld{{0, 0}}));
  const json gpu = end_and_settle_usage(begin(worker_, kT0), kT0 + kSecond)["gpus"][0];
  EXPECT_EQ(gpu["memory_at_start_bytes"], 512 * kMiB);
  EXPECT_EQ(gpu["memory_at_end_bytes"], 0);
  EXPECT_EQ(gpu["memory_peak_bytes"], 512 * kMiB);
}

TEST_F(EdgeTest, WithoutProcessListsAtBothEdgesGpuMemoryIsTheSeries) {
  monitor_.push_edge(kWorkerPid, with_gpu_memory(GpuMemoryHeld{{0, 512 * kMiB}}));
  monitor_.push_edge(kWorkerPid, with_gpu_memory(std::unexpected(Unavailable::not_supported)));
  const json gpu = end_and_settle_usage(begin(worker_, kT0), kT0 + kSecond)["gpus"][0];
  EXPECT_EQ(gpu["memory_source"], "series");
  EXPECT_EQ(gpu["memory_at_start_bytes"], 0) << "the fake series' figure";
}

TEST_F(EdgeTest, AGpuNotReadAtAnEdgeKeepsTheSeries) {
  // The newest round did not list the process on GPU 0 when the task began, so its lists
  // were not read then (the process took it up during the task).
  monitor_.push_edge(kWorkerPid, with_gpu_memory(GpuMemoryHeld{}));
  monitor_.push_edge(kWorkerPid, with_gpu_memory(GpuMemoryHeld{{0, 256 * kMiB}}));
  const json gpu = end_and_settle_usage(begin(worker_, kT0), kT0 + kSecond)["gpus"][0];
  EXPECT_EQ(gpu["memory_source"], "series");
  EXPECT_EQ(gpu["memory_at_end_bytes"], 0) << "the fake series' figure";
}

TEST_F(EdgeTest, RusageIsTheCallersOwnAndRefusedForAnotherProcess) {
  const Caller root = service_.identify(1, 0);
  const json refused =
      ask(R"({"op":"begin","name":"x","pid":200,"rusage":{"user_us":1,"system_us":2}})", root, kT0);
  EXPECT_EQ(refused["error"]["code"], "bad_request");
  for (const char* bad :
       {R"({"user_us":1})", R"({"user_us":-1,"system_us":2})",
        R"({"user_us":1,"system_us":2,"x":3})", R"({"user_us":1.5,"system_us":2})", R"([1,2])"}) {
    const json reply =
        ask(std::string(R"({"op":"begin","name":"x","rusage":)") + bad + "}", worker_, kT0);
    EXPECT_EQ(reply["error"]["code"], "bad_request") << bad;
    EXPECT_NE(reply["error"]["message"].get<std::string>().find("rusage"), std::string::npos);
  }
}

}  // namespace gpumeter::task::service_test

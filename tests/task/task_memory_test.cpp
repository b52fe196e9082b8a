// SPDX-License-Identifier: MIT
// What a retained task costs the daemon's heap, measured (docs/task-protocol.md quotes the
// figure): tasks with the longest name and the most, longest labels the limits allow, begun,
// ended and settled through the service, kept by its registry and by the recent results the
// HTTP API reads, as in the daemon. The bound is loose; the figure is printed.
#include <gtest/gtest.h>
#include <malloc.h>  // mallinfo2: glibc

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "support/fake_monitor.h"
#include "task/recent_results.h"
#include "task/service.h"

namespace gpumeter::task::task_memory_test {

using testing::FakeMonitor;
using testing::kSecond;
using testing::kT0;

std::size_t heap_in_use() {
  return mallinfo2().uordblks;
}

std::string largest_begin(const Limits& limits, int task) {
  // As many of the longest labels as the labels' byte limit lets in, the last one cut to fit.
  nlohmann::json labels = nlohmann::json::object();
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < limits.labels && bytes < limits.labels_bytes; ++i) {
    std::string key = std::to_string(i) + "-" + std::to_string(task);
    key.resize(limits.label_key_bytes, 'k');
    if (bytes + key.size() >= limits.labels_bytes) break;
    const std::size_t room = limits.labels_bytes - bytes - key.size();
    labels[key] = std::string(std::min(limits.label_value_bytes, room), 'v');
    bytes += key.size() + std::min(limits.label_value_bytes, room);
  }
  return nlohmann::json{
      {"op", "begin"}, {"name", std::string(limits.name_bytes, 'n')}, {"labels", labels}}
      .dump();
}

TEST(TaskMemory, ARetainedTaskAtTheLimitsIsMeasured) {
  constexpr int kTasks = 2'000;
  constexpr Pid kWorker = 100;
  FakeMonitor monitor;
  monitor.set_alive(kWorker, kT0 - 60 * kSecond, 1000);
  ServiceConfig config;
  config.limits.retained_tasks = kTasks;
  RecentResults recent(kTasks);
  Service service(monitor, config, &recent);
  const Caller worker = service.identify(kWorker, 1000);
  const std::size_t before = heap_in_use();
  for (int i = 0; i < kTasks; ++i) {
    const TimeUs at = kT0 + i * kSecond;
    const Outcome begun = service.handle(largest_begin(config.limits, i), worker, at);
    const auto id = nlohmann::json::parse(begun.reply).at("task").get<std::uint64_t>();
    service.handle(nlohmann::json{{"op", "end"}, {"task", id}}.dump(), worker, at + kSecond / 2);
    monitor.set_round(at + kSecond);
    ASSERT_EQ(service.advance(at + kSecond).size(), 1U) << "task " << i;
  }
  const double per_task = static_cast<double>(heap_in_use() - before) / kTasks;
  std::cout << "a retained task at the limits: " << per_task / 1024 << " KiB\n";
  RecordProperty("retained_task_bytes", static_cast<int>(per_task));
  EXPECT_LT(per_task, 64.0 * 1024);
}

}  // namespace gpumeter::task::task_memory_test

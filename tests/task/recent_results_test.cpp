// SPDX-License-Identifier: MIT
#include "task/recent_results.h"

#include <gtest/gtest.h>

#include <limits>
#include <thread>

namespace gpumeter::task::recent_results_test {

constexpr std::size_t kAll = std::numeric_limits<std::size_t>::max();

Task ended(TaskId id, TimeUs end_us) {
  Task task;
  task.id = id;
  task.name = "t" + std::to_string(id);
  task.state = TaskState::ended;
  task.begin_us = end_us - 10;
  task.end_us = end_us;
  return task;
}

class Counting final : public ResultSink {
 public:
  void settled(const Task& task) override { ids.push_back(task.id); }
  std::vector<TaskId> ids;
};

std::vector<TaskId> ids_of(const RecentResults::Page& page) {
  std::vector<TaskId> ids;
  for (const Task& task : page.tasks) ids.push_back(task.id);
  return ids;
}

TEST(RecentResults, KeepsTheLastTasksByEndTime) {
  RecentResults recent(3);
  recent.settled(ended(1, 100));
  recent.settled(ended(3, 300));
  recent.settled(ended(2, 200));  // settled late: its samples came later
  recent.settled(ended(4, 400));
  EXPECT_EQ(ids_of(recent.ended_since(0, kAll)), (std::vector<TaskId>{2, 3, 4}));
  EXPECT_EQ(ids_of(recent.ended_since(300, kAll)), (std::vector<TaskId>{3, 4}));
}

TEST(RecentResults, TheLimitKeepsTheLatest) {
  RecentResults recent(10);
  for (TaskId id = 1; id <= 5; ++id) recent.settled(ended(id, static_cast<TimeUs>(id) * 100));
  const auto page = recent.ended_since(0, 2);
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(ids_of(page), (std::vector<TaskId>{4, 5}));
  EXPECT_FALSE(recent.ended_since(0, 5).truncated);
}

TEST(RecentResults, PassesEveryTaskOn) {
  Counting next;
  RecentResults recent(1, &next);
  recent.settled(ended(1, 100));
  recent.settled(ended(2, 200));
  EXPECT_EQ(next.ids, (std::vector<TaskId>{1, 2}));
}

TEST(RecentResults, ReadersOnOtherThreads) {
  RecentResults recent(100);
  std::thread reader([&recent] {
    for (int i = 0; i < 1000; ++i) {
      const auto page = recent.ended_since(0, kAll);
      ASSERT_LE(page.tasks.size(), 100U);
    }
  });
  for (TaskId id = 1; id <= 1000; ++id) recent.settled(ended(id, static_cast<TimeUs>(id)));
  reader.join();
  EXPECT_EQ(recent.ended_since(0, kAll).tasks.size(), 100U);
}

// A named task of a user with labels, ended at `end_us` after 2 s; `busy` SM seconds and
// `joules` on GPU 0 when its figures are known.
Task named(TaskId id, const char* name, const char* user, Labels labels, TimeUs end_us,
           std::optional<double> busy = std::nullopt, double joules = 0) {
  Task task = ended(id, end_us);
  task.name = name;
  task.user = user;
  task.labels = std::move(labels);
  task.begin_us = end_us - 2'000'000;
  if (busy) {
    GpuUsage gpu;
    gpu.engines[static_cast<std::size_t>(Engine::sm)].busy_seconds = *busy;
    gpu.energy.processes_joules = joules;
    task.figures = TaskFigures{.usage = {.gpus = {gpu}}};
  }
  return task;
}

TEST(RecentResults, FiltersByNameUserAndLabelAndCountsTheMatches) {
  RecentResults recent(100);
  recent.settled(named(1, "decode", "ada", {{"camera", "7"}}, 10'000'000, 1.0, 10));
  recent.settled(named(2, "detect", "ada", {{"camera", "7"}}, 11'000'000, 0.5, 5));
  recent.settled(named(3, "decode", "bob", {{"camera", "9"}}, 12'000'000));
  recent.settled(named(4, "decode", "ada", {{"camera", "9"}}, 13'000'000, 2.0, 20));
  EXPECT_EQ(ids_of(recent.ended_since(0, kAll, std::nullopt, {.name = "decode"})),
            (std::vector<TaskId>{1, 3, 4}));
  EXPECT_EQ(ids_of(recent.ended_since(0, kAll, std::nullopt, {.user = "bob"})),
            (std::vector<TaskId>{3}));
  EXPECT_EQ(
      ids_of(recent.ended_since(0, kAll, std::nullopt,
                                {.label = std::pair<std::string, std::string>("camera", "7")})),
      (std::vector<TaskId>{1, 2}));
  const auto page = recent.ended_since(0, 1, std::nullopt, {.name = "decode", .user = "ada"});
  EXPECT_EQ(ids_of(page), (std::vector<TaskId>{4}));
  EXPECT_EQ(page.matched, 2U);  // the page holds the latest; the count is of every match
  EXPECT_TRUE(page.truncated);
}

TEST(RecentResults, TotalsPerNameOverTheMatches) {
  RecentResults recent(100);
  recent.settled(named(1, "decode", "ada", {}, 10'000'000, 1.0, 10));
  recent.settled(named(2, "detect", "ada", {}, 11'000'000, 0.5, 5));
  recent.settled(named(3, "decode", "bob", {}, 12'000'000));  // figures not known yet
  recent.settled(named(4, "decode", "ada", {}, 13'000'000, 2.0, 20));
  const auto totals = recent.totals_by_name(0);
  ASSERT_EQ(totals.size(), 2U);
  EXPECT_EQ(totals[0].name, "decode");
  EXPECT_EQ(totals[0].tasks, 3U);
  EXPECT_EQ(totals[0].known, 2U);
  EXPECT_DOUBLE_EQ(totals[0].duration_seconds, 6.0);
  EXPECT_DOUBLE_EQ(totals[0].sm_busy_seconds, 3.0);
  EXPECT_DOUBLE_EQ(totals[0].energy_joules, 30.0);
  EXPECT_EQ(totals[1].name, "detect");
  EXPECT_EQ(totals[1].tasks, 1U);
  const auto bobs = recent.totals_by_name(0, {.user = "bob"});
  ASSERT_EQ(bobs.size(), 1U);
  EXPECT_EQ(bobs[0].known, 0U);
  EXPECT_TRUE(recent.totals_by_name(12'500'000, {.name = "detect"}).empty());  // ended earlier
}

Task running(TaskId id, const char* name, TimeUs begin_us) {
  Task task = named(id, name, "ada", {}, begin_us + 2'000'000);
  task.state = TaskState::open;
  task.end_us.reset();
  return task;
}

TEST(RecentResults, RunningTasksByBeginTimeFilteredAndBounded) {
  RecentResults recent(100);
  recent.opened(running(3, "decode", 300));
  recent.opened(running(1, "decode", 100));
  recent.opened(running(2, "detect", 200));
  Task ending = running(1, "decode", 100);
  ending.state = TaskState::ending;
  ending.end_us = 400;
  recent.ending(ending);
  const auto all = recent.running(kAll);
  ASSERT_EQ(all.tasks.size(), 3U);
  EXPECT_EQ(all.tasks[0].id, 1U);
  EXPECT_EQ(all.tasks[0].state, TaskState::ending) << "replaced, not added";
  EXPECT_EQ(all.tasks[1].id, 2U);
  EXPECT_FALSE(all.truncated);
  const auto latest = recent.running(1, {.name = "decode"});
  ASSERT_EQ(latest.tasks.size(), 1U);
  EXPECT_EQ(latest.tasks[0].id, 3U) << "the latest begun are kept";
  EXPECT_EQ(latest.matched, 2U);
  EXPECT_TRUE(latest.truncated);
  recent.settled(ended(1, 400));
  EXPECT_EQ(recent.running(kAll).matched, 2U) << "a settled task is running no more";
  EXPECT_EQ(ids_of(recent.ended_since(0, kAll)), (std::vector<TaskId>{1}));
}

TEST(RecentResults, RunningTasksTakeTheirRoomFromTheOldestSettledOnes) {
  const std::size_t each = footprint(ended(1, 100));
  RecentResults recent(100, nullptr, 3 * each);
  for (TaskId id = 1; id <= 3; ++id) recent.settled(ended(id, static_cast<TimeUs>(id) * 100));
  EXPECT_EQ(ids_of(recent.ended_since(0, kAll)), (std::vector<TaskId>{1, 2, 3}));
  Task open = ended(4, 400);
  open.state = TaskState::open;
  open.end_us.reset();
  ASSERT_EQ(footprint(open), each);
  recent.opened(open);
  EXPECT_EQ(ids_of(recent.ended_since(0, kAll)), (std::vector<TaskId>{2, 3}))
      << "the budget holds the settled and the running tasks together";
  open.state = TaskState::ending;
  recent.ending(open);  // replaces its open copy: counted once
  EXPECT_EQ(ids_of(recent.ended_since(0, kAll)), (std::vector<TaskId>{2, 3}));
  recent.settled(ended(4, 400));
  EXPECT_EQ(ids_of(recent.ended_since(0, kAll)), (std::vector<TaskId>{2, 3, 4}));
  EXPECT_EQ(recent.running(kAll).matched, 0U);
}

}  // namespace gpumeter::task::recent_results_test

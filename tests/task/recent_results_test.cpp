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

}  // namespace gpumeter::task::recent_results_test

// SPDX-License-Identifier: MIT
#include "task/registry.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "support/fake_monitor.h"

namespace gpumeter::task::registry_test {

using testing::kSecond;
using testing::kT0;

const ProcessKey kWorker{100, kT0 - 50 * kSecond};
const ProcessKey kOther{200, kT0 - 50 * kSecond};
const Caller kWorkerCaller{100, 1000, kWorker};
const Caller kOtherCaller{200, 1000, kOther};
const Caller kRoot{1, 0, ProcessKey{1, kT0 - 900 * kSecond}};

Task draft(const ProcessKey& owner, TimeUs begin_us, std::string name = "decode") {
  Task task{.name = std::move(name)};
  task.owner = owner;
  task.uid = 1000;
  task.begin_us = begin_us;
  return task;
}

TaskId begin(Registry& registry, const ProcessKey& owner, TimeUs begin_us) {
  const auto task = registry.begin(draft(owner, begin_us));
  EXPECT_TRUE(task.has_value());
  return task ? task->id : 0;
}

const auto kEveryone = [](const Task&) { return true; };

TEST(Registry, IdsArePositiveAndNeverReused) {
  Registry registry{Limits{}};
  const TaskId first = begin(registry, kWorker, kT0);
  ASSERT_TRUE(registry.end(first, kWorkerCaller, kT0 + kSecond));
  registry.settle(first, TaskFigures{});
  EXPECT_EQ(first, 1U);
  EXPECT_EQ(begin(registry, kWorker, kT0), 2U);
  EXPECT_EQ(registry.begun(), 2U);
}

TEST(Registry, IdsCarryTheInstanceSoThatAnotherRunNeverKnowsThem) {
  constexpr std::uint32_t kBefore = 0xABCDE;
  constexpr std::uint32_t kAfter = 0x12345;
  Registry before{Limits{}, kBefore};
  const TaskId stale = begin(before, kWorker, kT0);
  EXPECT_EQ(stale, (TaskId{kBefore} << kTaskSequenceBits) + 1);
  EXPECT_LT(stale, TaskId{1} << 53);
  EXPECT_EQ(before.begun(), 1U);

  // The daemon restarted: its registry begins again, with another instance.
  Registry after{Limits{}, kAfter};
  const TaskId fresh = begin(after, kWorker, kT0 + kSecond);
  EXPECT_EQ(fresh, (TaskId{kAfter} << kTaskSequenceBits) + 1);
  const auto refused = after.end(stale, kWorkerCaller, kT0 + 2 * kSecond);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ReplyCode::unknown_task);
  EXPECT_EQ(after.open_count(), 1U) << "the stale id must not end the new run's task";
}

TEST(Registry, RandomInstancesAreInRangeAndVary) {
  std::set<std::uint32_t> seen;
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t instance = random_instance();
    EXPECT_GE(instance, 1U);
    EXPECT_LT(instance, kTaskInstanceLimit);
    seen.insert(instance);
  }
  EXPECT_GT(seen.size(), 32U);
}

TEST(Registry, TasksOfOneProcessNestAndOverlap) {
  Registry registry{Limits{}};
  const TaskId outer = begin(registry, kWorker, kT0);
  const TaskId inner = begin(registry, kWorker, kT0 + kSecond);
  const TaskId overlapping = begin(registry, kWorker, kT0 + 2 * kSecond);
  EXPECT_EQ(registry.open_count(), 3U);
  const auto ended_inner = registry.end(inner, kWorkerCaller, kT0 + 3 * kSecond);
  ASSERT_TRUE(ended_inner);
  EXPECT_EQ(ended_inner->state, TaskState::ending);
  EXPECT_EQ(ended_inner->end_us, kT0 + 3 * kSecond);
  ASSERT_TRUE(registry.end(outer, kWorkerCaller, kT0 + 4 * kSecond));
  ASSERT_TRUE(registry.end(overlapping, kWorkerCaller, kT0 + 5 * kSecond));
  EXPECT_EQ(registry.open_count(), 0U);
  EXPECT_EQ(registry.active(kWorker), 3U);
}

TEST(Registry, EndingTwiceIsAnUnknownTask) {
  Registry registry{Limits{}};
  const TaskId id = begin(registry, kWorker, kT0);
  ASSERT_TRUE(registry.end(id, kWorkerCaller, kT0 + kSecond));
  const auto again = registry.end(id, kWorkerCaller, kT0 + 2 * kSecond);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ReplyCode::unknown_task);
  EXPECT_EQ(registry.end(999, kWorkerCaller, kT0).error().code, ReplyCode::unknown_task);
}

TEST(Registry, OnlyTheOwnerOrRootEnds) {
  Registry registry{Limits{}};
  const TaskId id = begin(registry, kWorker, kT0);
  const auto refused = registry.end(id, kOtherCaller, kT0 + kSecond);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ReplyCode::not_permitted);
  // A reused pid is another process.
  const Caller reused{100, 1000, ProcessKey{100, kT0}};
  EXPECT_EQ(registry.end(id, reused, kT0 + kSecond).error().code, ReplyCode::not_permitted);
  EXPECT_TRUE(registry.end(id, kRoot, kT0 + kSecond));
}

TEST(Registry, AnEndBeforeTheBeginIsClampedToAnEmptyWindow) {
  Registry registry{Limits{}};
  const TaskId id = begin(registry, kWorker, kT0);
  EXPECT_EQ(registry.end(id, kWorkerCaller, kT0 - kSecond)->end_us, kT0);
}

TEST(Registry, PerProcessLimitCountsEndingTasks) {
  Limits limits;
  limits.open_tasks_per_process = 3;
  Registry registry{limits};
  for (int i = 0; i < 3; ++i) begin(registry, kWorker, kT0 + i);
  EXPECT_EQ(registry.begin(draft(kWorker, kT0 + 5)).error().code, ReplyCode::limit_reached);
  // Another process is not affected.
  EXPECT_TRUE(registry.begin(draft(kOther, kT0 + 5)));
  ASSERT_TRUE(registry.end(1, kWorkerCaller, kT0 + 6));
  EXPECT_FALSE(registry.begin(draft(kWorker, kT0 + 7))) << "an ending task still counts";
  registry.settle(1, TaskFigures{});
  EXPECT_TRUE(registry.begin(draft(kWorker, kT0 + 8)));
}

TEST(Registry, TotalLimit) {
  Limits limits;
  limits.open_tasks = 4;
  Registry registry{limits};
  for (Pid pid = 1; pid <= 4; ++pid) begin(registry, ProcessKey{pid, kT0}, kT0);
  EXPECT_EQ(registry.begin(draft(ProcessKey{9, kT0}, kT0)).error().code, ReplyCode::limit_reached);
}

// A client that begins and never ends hits the limit, and the registry stays that size.
TEST(Registry, AFloodOfBeginsWithoutEndsStaysBounded) {
  Limits limits;
  Registry registry{limits};
  std::size_t refused = 0;
  for (std::size_t i = 0; i < 100'000; ++i) {
    if (!registry.begin(draft(kWorker, kT0 + static_cast<TimeUs>(i)))) ++refused;
  }
  EXPECT_EQ(registry.open_count(), limits.open_tasks_per_process);
  EXPECT_EQ(refused, 100'000 - limits.open_tasks_per_process);
  EXPECT_EQ(registry.begun(), limits.open_tasks_per_process);
}

TEST(Registry, RetainedTasksAreARing) {
  Limits limits;
  limits.retained_tasks = 5;
  Registry registry{limits};
  for (int i = 0; i < 12; ++i) {
    const TaskId id = begin(registry, kWorker, kT0 + i * kSecond);
    ASSERT_TRUE(registry.end(id, kWorkerCaller, kT0 + i * kSecond + 1));
    ASSERT_TRUE(registry.settle(id, TaskFigures{}));
  }
  EXPECT_EQ(registry.retained_count(), 5U);
  const QueryResult result = registry.query(0, std::nullopt, 100, kEveryone);
  ASSERT_EQ(result.ended.size(), 5U);
  EXPECT_EQ(result.ended.front()->id, 8U);
  EXPECT_EQ(result.ended.back()->id, 12U);
}

TEST(Registry, SettleKeepsTheReasonWhenThereAreNoFigures) {
  Registry registry{Limits{}};
  const TaskId id = begin(registry, kWorker, kT0);
  ASSERT_TRUE(registry.end(id, kWorkerCaller, kT0 + kSecond));
  const auto settled = registry.settle(id, std::unexpected(std::string("sampler failed")));
  if (!settled.has_value()) FAIL() << "the ending task was not settled";
  const Task& task = *settled;
  EXPECT_EQ(task.state, TaskState::ended);
  EXPECT_FALSE(task.figures);
  EXPECT_EQ(task.figures_error, "sampler failed");
  EXPECT_FALSE(registry.settle(id, TaskFigures{})) << "settles once";
}

TEST(Registry, AbandonEndsAtTheLastSeenTime) {
  Registry registry{Limits{}};
  begin(registry, kWorker, kT0);
  begin(registry, kWorker, kT0 + kSecond);
  const TaskId other = begin(registry, kOther, kT0);
  registry.seen_alive(kWorker, kT0 + 5 * kSecond);
  const std::vector<Task> abandoned = registry.abandon(kWorker);
  ASSERT_EQ(abandoned.size(), 2U);
  for (const Task& task : abandoned) {
    EXPECT_TRUE(task.abandoned);
    EXPECT_EQ(task.state, TaskState::ending);
    EXPECT_EQ(task.end_us, kT0 + 5 * kSecond);
  }
  EXPECT_EQ(registry.abandoned(), 2U);
  EXPECT_EQ(registry.open_count(), 1U);
  EXPECT_EQ(registry.owners(), std::vector<ProcessKey>{kOther});
  EXPECT_TRUE(registry.end(other, kOtherCaller, kT0 + kSecond));
}

TEST(Registry, QueryBySinceLimitAndVisibility) {
  Registry registry{Limits{}};
  for (int i = 0; i < 4; ++i) {
    const TaskId id = begin(registry, i % 2 == 0 ? kWorker : kOther, kT0);
    ASSERT_TRUE(registry.end(id, kRoot, kT0 + (i + 1) * kSecond));
    if (i < 3) registry.settle(id, TaskFigures{});  // the last one is still ending
  }
  begin(registry, kWorker, kT0 + 10 * kSecond);
  const QueryResult since = registry.query(kT0 + 2 * kSecond, std::nullopt, 100, kEveryone);
  ASSERT_EQ(since.ended.size(), 3U);
  EXPECT_EQ(since.ended.back()->state, TaskState::ending);
  EXPECT_EQ(since.open.size(), 1U);
  const QueryResult limited = registry.query(0, std::nullopt, 2, kEveryone);
  EXPECT_TRUE(limited.truncated);
  ASSERT_EQ(limited.ended.size(), 2U);
  EXPECT_EQ(limited.ended.front()->id, 3U) << "the newest are kept";
  const QueryResult mine =
      registry.query(0, std::nullopt, 100, [](const Task& task) { return task.owner == kOther; });
  EXPECT_EQ(mine.ended.size(), 2U);
  EXPECT_TRUE(mine.open.empty());
  const QueryResult older = registry.query(0, QueryCursor{kT0 + 3 * kSecond, 3}, 100, kEveryone);
  ASSERT_EQ(older.ended.size(), 2U) << "a cursor pages to the tasks that ended before it";
  EXPECT_EQ(older.ended.back()->id, 2U);
}

Task labelled(const ProcessKey& owner, TimeUs begin_us) {
  Task task = draft(owner, begin_us);
  for (int i = 0; i < 16; ++i) task.labels[fmt::format("key-{:02}", i)] = std::string(240, 'v');
  return task;
}

TEST(Registry, RetainedTasksKeepWithinTheirBytesOldestDroppedFirst) {
  Limits limits;
  limits.task_bytes = 200 * footprint(labelled(kWorker, kT0));
  Registry registry{limits};
  for (int i = 0; i < 1'000; ++i) {
    const auto task = registry.begin(labelled(kWorker, kT0 + i));
    ASSERT_TRUE(task.has_value()) << i << ": " << task.error().message;
    ASSERT_TRUE(registry.end(task->id, kWorkerCaller, kT0 + i + 1));
    ASSERT_TRUE(registry.settle(task->id, TaskFigures{}));
    ASSERT_LE(registry.held_bytes(), limits.task_bytes);
  }
  EXPECT_LT(registry.retained_count(), 200U);
  EXPECT_GT(registry.retained_count(), 100U);
  EXPECT_EQ(registry.dropped(), 1'000 - registry.retained_count());
  const QueryResult kept = registry.query(0, std::nullopt, 10'000, kEveryone);
  EXPECT_EQ(kept.ended.back()->begin_us, kT0 + 999) << "the newest are kept";
}

TEST(Registry, OpenTasksBeyondTheBytesAreRefused) {
  Limits limits;
  limits.task_bytes = 10 * footprint(labelled(kWorker, kT0));
  Registry registry{limits};
  std::size_t opened = 0;
  for (int i = 0; i < 50; ++i) {
    const auto task = registry.begin(labelled(i % 2 == 0 ? kWorker : kOther, kT0));
    if (!task) {
      EXPECT_EQ(task.error().code, ReplyCode::limit_reached);
      EXPECT_NE(task.error().message.find("bytes"), std::string::npos) << task.error().message;
      continue;
    }
    ++opened;
  }
  EXPECT_EQ(opened, 10U);
  EXPECT_LE(registry.held_bytes(), limits.task_bytes);
}

TEST(Registry, FootprintGrowsWithWhatTheClientSends) {
  const Task small = draft(kWorker, kT0);
  const Task large = labelled(kWorker, kT0);
  EXPECT_GT(footprint(large), footprint(small) + 16 * 240);
  EXPECT_EQ(footprint(Task(large)), footprint(large)) << "a copy counts the same";
}

}  // namespace gpumeter::task::registry_test

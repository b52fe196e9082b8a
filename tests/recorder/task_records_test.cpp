// SPDX-License-Identifier: MIT
// A settled task as the history keeps it.
#include "recorder/task_records.h"

#include <gtest/gtest.h>

namespace gpumeter::recorder::task_records_test {

constexpr TimeUs kT0 = 1'767'225'600'000'000;

TEST(TaskRecords, FieldsAndFiguresCarryOver) {
  task::Task task{.id = 7,
                  .name = "decode",
                  .labels = {{"stream", "cam3"}},
                  .owner = {4242, kT0 - 1000},
                  .uid = 1000,
                  .user = "alice",
                  .state = task::TaskState::ended,
                  .begin_us = kT0,
                  .end_us = kT0 + 2'500'000};
  GpuUsage gpu{.device = 0};
  gpu.engines[0].busy_seconds = 2.0;
  gpu.memory.peak_bytes = std::uint64_t{1} << 30;
  gpu.energy.processes_joules = 152.0;
  task.figures = task::TaskFigures{.usage = {.window = {kT0, kT0 + 2'500'000}, .gpus = {gpu}},
                                   .gpu_uuids = {{0, "GPU-0"}}};
  const store::TaskRecord record = task_record(task);
  EXPECT_EQ(record.id, 7U);
  EXPECT_EQ(record.name, "decode");
  EXPECT_EQ(record.labels.at("stream"), "cam3");
  EXPECT_EQ(record.owner.pid, 4242U);
  EXPECT_EQ(record.user, "alice");
  EXPECT_EQ(record.end_us, kT0 + 2'500'000);
  EXPECT_FALSE(record.usage_error);
  ASSERT_EQ(record.gpus.size(), 1U);
  EXPECT_EQ(record.gpus[0].uuid, "GPU-0");
  EXPECT_EQ(record.gpus[0].busy_seconds[0], 2.0);
  EXPECT_EQ(record.gpus[0].energy_joules, 152.0);
  EXPECT_TRUE(store::validate(record).has_value());
}

TEST(TaskRecords, ATaskWithoutFiguresKeepsTheReason) {
  const task::Task task{.id = 8,
                        .name = "noop",
                        .state = task::TaskState::ended,
                        .abandoned = true,
                        .begin_us = kT0,
                        .end_us = kT0,
                        .figures_error = "the task lasted no time"};
  const store::TaskRecord record = task_record(task);
  EXPECT_TRUE(record.abandoned);
  EXPECT_EQ(record.usage_error, "the task lasted no time");
  EXPECT_TRUE(record.gpus.empty());
}

}  // namespace gpumeter::recorder::task_records_test

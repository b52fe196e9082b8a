// SPDX-License-Identifier: MIT
#include "cli/tasks_table.h"

#include <gtest/gtest.h>

namespace gpumeter::cli::tasks_table_test {

using nlohmann::json;

constexpr TimeUs kBegin = 1'700'000'000'000'000;

json ended_task() {
  return json::parse(R"({
    "task": 17, "name": "decode", "labels": {"stream": "cam3"}, "pid": 4242, "uid": 1000,
    "user": "alice", "state": "ended", "abandoned": false, "begin_time_us": 1700000000000000,
    "end_time_us": 1700000001500000, "duration_seconds": 1.5,
    "usage": {"gpus": [{"index": 0, "sm_percent": 79.6, "memory_peak_bytes": 1073741824,
                        "energy_joules": 210.44, "low_confidence": false}],
              "host": {"cpu_user_seconds": 0.5, "cpu_system_seconds": 0.25, "complete": true}}})");
}

TEST(TasksTable, AnEndedTask) {
  const std::string table = render_tasks_table(json{{"tasks", {ended_task()}}}, kBegin, false);
  for (const char* text : {"TASK", "FLAGS", "decode", "stream=cam3", "4242", "alice", "1.50s",
                           "80%", "1.0GiB", "210.4J", "0.75s"}) {
    EXPECT_NE(table.find(text), std::string::npos) << text << " in\n" << table;
  }
}

TEST(TasksTable, OpenAndAbandonedTasksAreFlagged) {
  json open = ended_task();
  open["state"] = "open";
  open["usage"] = nullptr;
  open["duration_seconds"] = nullptr;
  json abandoned = ended_task();
  abandoned["abandoned"] = true;
  abandoned["usage"]["gpus"][0]["low_confidence"] = true;
  const std::string table =
      render_tasks_table(json{{"tasks", {abandoned}}, {"open", {open}}}, kBegin + 3'000'000, false);
  EXPECT_NE(table.find("abandoned,low-confidence"), std::string::npos) << table;
  EXPECT_NE(table.find("open"), std::string::npos) << table;
  EXPECT_NE(table.find("3.00s"), std::string::npos) << "an open task's duration so far\n" << table;
}

TEST(TasksTable, AbsentFiguresPrintNA) {
  json task = ended_task();
  task["usage"]["gpus"][0]["energy_joules"] = nullptr;
  task["usage"]["host"]["cpu_user_seconds"] = nullptr;
  task["usage"]["host"]["complete"] = false;
  const std::string table = render_tasks_table(json{{"tasks", {task}}}, kBegin, false);
  EXPECT_NE(table.find("N/A"), std::string::npos) << table;
  EXPECT_NE(table.find("cpu-partial"), std::string::npos) << table;
}

TEST(TasksTable, ACpuOnlyTaskHasNoGpuColumns) {
  json task = ended_task();
  task["usage"]["gpus"] = json::array();
  const std::string table = render_tasks_table(json{{"tasks", {task}}}, kBegin, false);
  EXPECT_NE(table.find(" -  "), std::string::npos) << table;
}

TEST(TasksTable, NothingToShow) {
  EXPECT_EQ(render_tasks_table(json{{"tasks", json::array()}, {"open", json::array()}}, 0, false),
            "No tasks.\n");
}

TEST(TasksTable, AReplyOfAnotherShapeDoesNotThrow) {
  EXPECT_NO_THROW(
      render_tasks_table(json{{"tasks", {json{{"task", "x"}, {"usage", 5}}}}}, 0, false));
  EXPECT_NO_THROW(render_tasks_table(json::array(), 0, false));
}

}  // namespace gpumeter::cli::tasks_table_test

// SPDX-License-Identifier: MIT
// The client's side of the task protocol (docs/task-protocol.md): request lines, and replies
// turned into error codes and gpumeter_task_result fields.
#pragma once

#include <gpumeter/gpumeter.h>

#include <cstdint>
#include <string>

namespace gpumeter::client {

// The calling process's own CPU time, µs (getrusage), sent with begin and end so that the
// daemon counts the task's CPU seconds exactly.
struct CpuTimes {
  std::int64_t user_us = 0;
  std::int64_t system_us = 0;
};
CpuTimes own_cpu_times() noexcept;

// The request lines; labels_json is NULL or a JSON object. Empty when the arguments are
// invalid (a labels text that is not a JSON object).
std::string begin_request(const char* name, const char* labels_json, CpuTimes cpu);
std::string end_request(std::uint64_t task, bool wait, CpuTimes cpu);

// The task id of a begin reply, or a GPUMETER_E_* code (negative).
std::int64_t parse_begin_reply(const std::string& reply);

// Checks an end reply and fills what fits of `result` (which may be NULL); 0 or GPUMETER_E_*.
int parse_end_reply(const std::string& reply, gpumeter_task_result* result);

// The GPUMETER_E_* code for a protocol error word.
int error_code(const std::string& word);

}  // namespace gpumeter::client

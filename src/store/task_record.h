// SPDX-License-Identifier: MIT
// The result of one ended task as the history keeps it: the fields of a task (task/task.h)
// and its figures, flattened to plain optionals (an absent figure loses its reason). The
// per-GPU figures are stored as a JSON array with the keys of the task protocol
// (docs/task-protocol.md), so that reports and the protocol speak the same words.
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/attribution.h"
#include "core/error.h"
#include "core/process_key.h"

namespace gpumeter::store {

struct TaskGpuFigures {
  std::uint32_t index = 0;
  std::optional<std::string> uuid;
  // The figures are the whole device's (core/attribution.h's AttributionLevel::device).
  bool device_level = false;
  std::array<std::optional<double>, kEngineCount> busy_seconds;     // indexed by Engine
  std::array<std::optional<double>, kEngineCount> average_percent;  // indexed by Engine
  std::optional<std::uint64_t> memory_at_start_bytes;
  std::optional<std::uint64_t> memory_at_end_bytes;
  std::optional<std::uint64_t> memory_peak_bytes;
  std::optional<double> energy_joules;  // the task's share
  std::optional<double> energy_device_joules;
  std::optional<double> energy_other_processes_joules;
  std::optional<double> energy_idle_joules;
  TimeUs sample_period_us = 0;
  double coverage = 0.0;
  bool shorter_than_sample_period = false;
  bool low_confidence = false;

  friend bool operator==(const TaskGpuFigures&, const TaskGpuFigures&) = default;
};

struct TaskRecord {
  std::uint64_t id = 0;  // the daemon's task id: unique only within one daemon's lifetime
  std::string name;
  std::map<std::string, std::string> labels;
  ProcessKey owner;
  std::optional<std::uint32_t> uid;
  std::optional<std::string> user;
  TimeUs begin_us = 0;
  TimeUs end_us = 0;
  bool abandoned = false;                  // its process exited with the task open
  std::optional<std::string> usage_error;  // why there are no figures
  std::vector<TaskGpuFigures> gpus;
  std::optional<double> cpu_user_seconds;
  std::optional<double> cpu_system_seconds;
  std::optional<std::uint64_t> peak_rss_bytes;
  bool host_complete = false;

  friend bool operator==(const TaskRecord&, const TaskRecord&) = default;
};

// Fills the figures of `record` from the attribution of its window; `gpu_uuids` names GPUs by
// DeviceIdentity::index.
void set_figures(TaskRecord& record, const Usage& usage,
                 const std::map<std::uint32_t, std::string>& gpu_uuids);

// Errors: invalid_input when the name is empty or the task ends before it begins.
std::expected<void, Error> validate(const TaskRecord& record);

// The per-GPU figures as the JSON array stored in tasks.gpus, and back.
// Errors (parse): invalid_input when the text is not such an array.
std::string gpus_json(const std::vector<TaskGpuFigures>& gpus);
std::expected<std::vector<TaskGpuFigures>, Error> parse_gpus_json(const std::string& text);

}  // namespace gpumeter::store

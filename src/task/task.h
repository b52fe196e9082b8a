// A task: a named window of one process's life, marked by the process itself (or by root) over
// the task socket. Plain types shared by the registry, the service and the protocol.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/attribution.h"
#include "core/model.h"
#include "core/process_key.h"

namespace gpumeter::task {

// Positive, unique for the daemon's lifetime, below 2^53 so that every JSON reader keeps it.
using TaskId = std::uint64_t;
using Uid = std::uint32_t;
using Labels = std::map<std::string, std::string>;

enum class TaskState : std::uint8_t {
  open,    // begun, not yet ended
  ending,  // ended; its figures wait for the sampler to pass the end
  ended,   // ended, figures final (or known to be impossible)
};

// The figures of an ended task: the attribution over its window, and the uuid of each GPU
// it names (absent when unknown).
struct TaskFigures {
  Usage usage;
  std::map<std::uint32_t, std::string> gpu_uuids;  // by DeviceIdentity::index
};

struct Task {
  TaskId id = 0;
  std::string name;
  Labels labels;
  ProcessKey owner;
  std::optional<Uid> uid;
  std::optional<std::string> user;
  TaskState state = TaskState::open;
  bool abandoned = false;  // its process exited with the task open
  TimeUs begin_us = 0;
  std::optional<TimeUs> end_us;  // set once ended
  std::optional<TaskFigures> figures;
  std::optional<std::string> figures_error;  // why figures are absent although ended
};

}  // namespace gpumeter::task

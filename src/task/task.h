// SPDX-License-Identifier: MIT
// A task: a named window of one process's life, marked by the process itself (or by root) over
// the task socket. Plain types shared by the registry, the service and the protocol.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/attribution.h"
#include "core/model.h"
#include "core/process_key.h"

namespace gpumeter::task {

// Positive and below 2^53, so that every JSON reader keeps it: the daemon's instance number
// (random, drawn at start) in the high bits and a sequence number in the low 32, so that an id
// from before a restart is unknown to the new daemon instead of naming one of its own tasks.
using TaskId = std::uint64_t;
inline constexpr int kTaskSequenceBits = 32;
// Instance numbers are 1 .. 2^20 - 1, so every id lies below 2^52.
inline constexpr std::uint32_t kTaskInstanceLimit = 1U << 20;
using Uid = std::uint32_t;
using Labels = std::map<std::string, std::string>;

// CPU time a process has used since it started, µs.
struct CpuTimes {
  std::int64_t user_us = 0;
  std::int64_t system_us = 0;
  friend bool operator==(const CpuTimes&, const CpuTimes&) = default;
};

// What the daemon knows of the owner at a task's edge: what the client sent of its own CPU
// time with the request (getrusage, exact to the µs), what the daemon read from procfs when
// the request arrived (CPU in clock ticks; resident memory exact to the page), and the GPU
// memory the driver's process lists gave at that moment.
struct TaskEdge {
  std::optional<CpuTimes> reported;  // the client's own figure; only for its own tasks
  Maybe<CpuTimes> read = std::unexpected(Unavailable::no_data);
  Maybe<std::uint64_t> rss_bytes = std::unexpected(Unavailable::no_data);
  Maybe<GpuMemoryHeld> gpu_memory = std::unexpected(Unavailable::no_data);
};

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
  // Read at the edges (task/edge_figures.h); usage.host's CPU and peak come from them too.
  Maybe<std::uint64_t> rss_at_start_bytes = std::unexpected(Unavailable::no_data);
  Maybe<std::uint64_t> rss_at_end_bytes = std::unexpected(Unavailable::no_data);
  std::string_view cpu_source = "series";       // "client", "procfs" or "series"
  std::string_view peak_rss_source = "series";  // "high_water_mark" or "series"
  // The GPUs (by DeviceIdentity::index) whose memory at start and at end was read from the
  // process lists when the requests arrived; the others' is the series' (the nearest rounds).
  std::set<std::uint32_t> gpu_memory_at_edges;
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
  TaskEdge begin_edge;
  TaskEdge end_edge;
  // The owner's resident high-water mark was reset when the task began (clear_refs), so the
  // highest mark read while it was open is its peak; absent when the reset failed.
  std::optional<std::uint64_t> peak_rss_bytes;
  std::optional<TaskFigures> figures;
  std::optional<std::string> figures_error;  // why figures are absent although ended
};

}  // namespace gpumeter::task

// SPDX-License-Identifier: MIT
// What `gpumeter top` shows at one instant, in the view's own words: one row per GPU (and per
// MIG device and vGPU instance), one per process, with the recent history the sparklines draw.
// Built from a Snapshot and the figures the sampler's series hold (frame_builder.h); the
// screen renderer (render.h) reads nothing else, so it is one pure function for tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.h"

namespace gpumeter::top {

enum class Tone : std::uint8_t { plain, free, busy, alert };

enum class RowKind : std::uint8_t { gpu, mig, vgpu };

// The last readings of one figure, oldest first (at most kHistoryPoints); NaN where there was
// none.
using History = std::vector<double>;
inline constexpr std::size_t kHistoryPoints = 120;

// A lost GPU's note, whoever built the row.
inline constexpr std::string_view kLostGpuNote = "fell off the bus or needs a reset: no figures";

struct GpuRow {
  RowKind kind = RowKind::gpu;
  std::uint32_t gpu = 0;  // the GPU's index (a MIG device's or vGPU instance's parent)
  std::string label;      // "0", "0/2.0" (GPU 0, GI 2, CI 0), "0 vm"
  std::string name;       // "H100 80GB HBM3", "MIG 3g.40gb", "A16-4Q"
  std::string status;     // "free", "in use", "lost", ...
  Tone tone = Tone::plain;
  Maybe<double> sm_percent = std::unexpected(Unavailable::no_data);
  Maybe<double> memory_used_bytes = std::unexpected(Unavailable::no_data);
  Maybe<double> memory_total_bytes = std::unexpected(Unavailable::no_data);
  Maybe<double> power_watts = std::unexpected(Unavailable::no_data);
  Maybe<double> power_limit_watts = std::unexpected(Unavailable::no_data);
  Maybe<double> temperature_celsius = std::unexpected(Unavailable::no_data);
  History sm_history, memory_history, power_history, temperature_history;
  std::string note;  // why figures are N/A ("MIG: ...", "fell off the bus")
};

struct ProcessRow {
  std::uint32_t gpu = 0;
  std::string gpu_label;  // "1", "0/2.0" in a MIG instance, "0 vm101" inside a VM
  Pid pid = 0;
  std::string user;       // "?" when it cannot be seen
  std::string container;  // "docker:3f2a…", "slurm:4242", or empty
  std::string command;
  Maybe<double> gpu_memory_bytes = std::unexpected(Unavailable::no_data);
  Maybe<RecentEngineUse> use = std::unexpected(Unavailable::no_data);
  Maybe<double> cpu_percent = std::unexpected(Unavailable::no_data);
  Maybe<double> rss_bytes = std::unexpected(Unavailable::no_data);
  Maybe<TimeUs> age_us = std::unexpected(Unavailable::no_data);
};

struct Frame {
  std::string host;
  std::string driver;  // "driver 570.124.06  CUDA 12.8"
  TimeUs time_us = 0;
  std::vector<GpuRow> gpus;
  std::vector<ProcessRow> processes;
  std::string error;  // the last failed reading, shown in the header; empty when fine
};

// The daemon's side, for the Tasks and Users panes: each as lines of text (the tables `gpumeter
// tasks` and `gpumeter report --by user` print), or a note saying why there are none.
struct Panes {
  std::vector<std::string> tasks;
  std::string tasks_note;
  std::vector<std::string> users;
  std::string users_note;
};

}  // namespace gpumeter::top

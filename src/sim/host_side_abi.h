// SPDX-License-Identifier: MIT
// The simulated library's host side: what `gpumeter --simulate` needs of a scenario beyond
// its GPUs (the processes' users, commands, starts and ends), read from the simulated
// libnvidia-ml.so.1 that parsed the scenario, so that a simulated command parses its scenario
// once, not once in gpumeter and again in the library. Not NVML's: an entry point of
// gpumeter's simulator alone, and only gpumeter's own process source calls it
// (sim/scenario_host.h). Plain C types, as any entry point of a dlopen'ed library.
#pragma once

#include <cstddef>

extern "C" {

struct GpumeterSimHostProcess {
  unsigned pid;
  int real;       // a real process (pid_env, pid_file), which /proc describes
  double end_s;   // scenario time it ends; HUGE_VAL when it does not
  int described;  // whether the scenario describes its host side (the fields below)
  int hidden;
  const char* user;
  int has_uid;
  unsigned uid;
  const char* const* command;
  std::size_t command_length;
  double started_s;
  const char* container_runtime;  // null when not in a container
  const char* container_id;
};

struct GpumeterSimHostSide {
  const char* error;  // null, or why the scenario cannot be used: "FILE:LINE: ..."
  double history_lead_s;
  std::size_t process_count;
  const GpumeterSimHostProcess* processes;
};

// Parses `scenario_path` unless it is the scenario the library parsed last (the next
// nvmlInit then uses that parse) and returns its host side, valid until the next call or
// until the library is unloaded; null when `version` is not kGpumeterSimHostSideVersion.
using GpumeterSimHostSideFn = const GpumeterSimHostSide* (*)(const char* scenario_path,
                                                             unsigned version);
}

namespace gpumeter::sim {
inline constexpr const char* kHostSideSymbol = "gpumeterSimHostSide";
inline constexpr unsigned kGpumeterSimHostSideVersion = 1;
}  // namespace gpumeter::sim

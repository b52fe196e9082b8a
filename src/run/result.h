// SPDX-License-Identifier: MIT
// What one `gpumeter run` measured: the model that the summary (run_summary.h) and the JSON
// document (run_json.h) both render.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/attribution.h"
#include "host/cgroup_limits.h"
#include "host/run_cgroup.h"

namespace gpumeter::run {

// How the command ended.
struct RunExit {
  int status = 0;             // what gpumeter exits with: the code, or 128 + the signal
  std::optional<int> code;    // the command exited with this
  std::optional<int> signal;  // the command was killed by this
  bool core_dumped = false;
};

// From a waitpid status.
RunExit exit_of(int wait_status);

// "SIGTERM"; "signal 40" for a number without a name.
std::string signal_name(int signal);

struct RunCgroupInfo {
  host::CgroupVersion version = host::CgroupVersion::v2;
  std::filesystem::path path;
  Maybe<std::uint64_t> memory_peak_bytes = std::unexpected(Unavailable::not_supported);
};

// What the tree used on one GPU, with the device's name and uuid from the last snapshot.
struct RunGpu {
  GpuUsage usage;
  Maybe<std::string> name = std::unexpected(Unavailable::no_data);
  Maybe<std::string> uuid = std::unexpected(Unavailable::no_data);
};

struct RunResult {
  std::vector<std::string> command;
  std::string hostname;
  std::chrono::milliseconds interval{1000};
  TimeUs start_us = 0;  // µs since the Unix epoch, just before the command was started
  TimeUs end_us = 0;    // when the last process of the tree had been reaped
  double wall_seconds = 0;
  RunExit exit;
  // The kernel's RUSAGE_CHILDREN over every process of the tree that was reaped.
  double cpu_user_seconds = 0;
  double cpu_system_seconds = 0;
  std::uint64_t max_rss_bytes = 0;  // of the largest single process (ru_maxrss)
  std::size_t processes = 0;        // distinct processes of the tree met while following it
  host::Limits limits;
  std::optional<RunCgroupInfo> cgroup;
  std::string gpu_source;                // "nvml (simulated: x.json)"; empty without GPUs
  std::optional<std::string> gpu_error;  // why there are no GPU figures
  std::size_t gpus_seen = 0;             // devices the sampler read
  std::vector<RunGpu> gpus;              // those the tree used, by index
};

}  // namespace gpumeter::run

// SPDX-License-Identifier: MIT
// Snapshots built in code for the rendering tests: a small machine with one GPU of each
// status, and helpers to make more.
#pragma once

#include <string>
#include <vector>

#include "core/model.h"

namespace gpumeter::cli::testing {

inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * kMiB;
// 2024-05-01T12:00:00Z
inline constexpr TimeUs kNow = 1'714'564'800'000'000;
inline constexpr TimeUs kHour = 3'600'000'000;

// An idle 16 GiB GPU with every metric read.
inline Device idle_gpu(std::uint32_t index) {
  using enum DeviceMetric;
  Device device;
  device.identity.index = index;
  device.identity.uuid = "GPU-0000000" + std::to_string(index) + "-aaaa-bbbb-cccc-dddddddddddd";
  device.identity.name = std::string("Tesla V100-SXM2-16GB");
  device.identity.pci_bus_id = std::string("00000000:1A:00.0");
  device.identity.compute_capability = ComputeCapability{7, 0};
  for (auto& value : device.state.metrics) value = 0.0;
  device.state[memory_total] = 16.0 * kGiB;
  device.state[memory_used] = 0.0;
  device.state[memory_free] = 16.0 * kGiB;
  device.state[temperature] = 35.0;
  device.state[power_draw] = 42.5;
  device.state[power_limit] = 300.0;
  device.state[clock_sm] = 1530.0;
  device.state.compute_mode = ComputeMode::default_mode;
  device.state.persistence_mode = true;
  return device;
}

inline HostProcess host_process(Pid pid, const std::string& user, std::vector<std::string> argv,
                                TimeUs start) {
  HostProcess process;
  process.pid = pid;
  process.uid = 1000U + pid % 7;
  process.user = user;
  process.cmdline = std::move(argv);
  process.comm = std::string("python3");
  process.start_time_us = start;
  return process;
}

// GPU 0 free; GPU 1 used by alice and bob; GPU 2 used by a process we may not read; GPU 3
// lost; GPU 4's process list unreadable.
inline Snapshot sample_snapshot() {
  using enum DeviceMetric;
  Snapshot snapshot;
  snapshot.time_us = kNow;
  snapshot.hostname = "node1";
  snapshot.source = "fake";
  snapshot.gpus.driver.driver_version = std::string("535.104.05");
  snapshot.gpus.driver.nvml_version = std::string("12.535.104.05");
  snapshot.gpus.driver.cuda_driver_version = std::string("12.2");

  Device used = idle_gpu(1);
  used.state[utilization_gpu] = 100.0;
  used.state[memory_used] = 893.0 * kMiB;
  used.processes = std::vector<GpuProcess>{
      {.pid = 4242, .contexts = {.compute = true}, .used_memory_bytes = 936378368ULL},
      {.pid = 4343, .contexts = {.compute = true}, .used_memory_bytes = 1024ULL}};
  snapshot.processes[4242] =
      host_process(4242, "alice", {"python3", "-u", "/home/alice/train.py", "--lr", "3"},
                   kNow - 3 * kHour - 720'000'000);
  snapshot.processes[4343] = host_process(
      4343, "bob", {"python3", "-m", "ipykernel_launcher", "-f", "k.json"}, kNow - kHour);

  Device hidden = idle_gpu(2);
  hidden.state[memory_used] = 4.0 * kGiB;
  hidden.processes = std::vector<GpuProcess>{{.pid = 77}};
  snapshot.processes[77] = std::unexpected(Unavailable::no_permission);

  Device lost = idle_gpu(3);
  lost.lost = true;
  for (auto& value : lost.state.metrics) value = std::unexpected(Unavailable::gpu_lost);
  lost.state.compute_mode = std::unexpected(Unavailable::gpu_lost);
  lost.state.persistence_mode = std::unexpected(Unavailable::gpu_lost);
  lost.processes = std::unexpected(Unavailable::gpu_lost);

  Device unreadable = idle_gpu(4);
  unreadable.state[temperature] = std::unexpected(Unavailable::not_supported);
  unreadable.processes = std::unexpected(Unavailable::no_permission);

  snapshot.gpus.devices = {idle_gpu(0), used, hidden, lost, unreadable};
  return snapshot;
}

}  // namespace gpumeter::cli::testing

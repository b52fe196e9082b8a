// SPDX-License-Identifier: MIT
// The per-process and per-user families. Processes are ranked by GPU memory for the bounded
// per-process series; the per-user aggregates count every process, ranked or not.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "exposition/parts.h"
#include "exposition/process_labels.h"

namespace gpumeter::exposition {
namespace {

using enum MetricType;

// One process on one GPU, as the snapshot lists it.
struct Listed {
  std::size_t device = 0;  // position in snapshot.gpus.devices
  const GpuProcess* process = nullptr;
  const Maybe<HostProcess>* host = nullptr;
};

const Maybe<HostProcess>& host_of(const Snapshot& snapshot, Pid pid) {
  static const Maybe<HostProcess> kGone = std::unexpected(Unavailable::process_gone);
  const auto found = snapshot.processes.find(pid);
  return found == snapshot.processes.end() ? kGone : found->second;
}

std::vector<Listed> listed_processes(const Snapshot& snapshot) {
  std::vector<Listed> listed;
  for (std::size_t d = 0; d < snapshot.gpus.devices.size(); ++d) {
    const auto& processes = snapshot.gpus.devices[d].processes;
    if (!processes) continue;
    for (const GpuProcess& process : *processes) {
      listed.push_back({d, &process, &host_of(snapshot, process.pid)});
    }
  }
  return listed;
}

// The SM ratio of a process over the recent window: absent when the GPU has no figures, 0 when
// the process was idle on it.
std::optional<double> sm_ratio(const ProcessActivity& activity, std::uint32_t gpu, Pid pid) {
  const auto on_gpu = activity.find(gpu);
  if (on_gpu == activity.end()) return std::nullopt;
  const auto found = on_gpu->second.find(pid);
  return found == on_gpu->second.end() ? 0.0 : found->second;
}

// The `top` processes by GPU memory (an unknown amount ranks last), ties by GPU and pid.
std::vector<Listed> top_by_memory(std::vector<Listed> listed, std::size_t top) {
  const auto rank = [](const Listed& l) {
    const auto& memory = l.process->used_memory_bytes;
    return std::tuple(memory ? static_cast<std::int64_t>(*memory) : -1, l.device, l.process->pid);
  };
  const auto by_rank = [&](const Listed& a, const Listed& b) {
    const auto [memory_a, device_a, pid_a] = rank(a);
    const auto [memory_b, device_b, pid_b] = rank(b);
    if (memory_a != memory_b) return memory_a > memory_b;
    return std::pair(device_a, pid_a) < std::pair(device_b, pid_b);
  };
  const std::size_t kept = std::min(top, listed.size());
  std::ranges::partial_sort(listed, listed.begin() + static_cast<std::ptrdiff_t>(kept), by_rank);
  listed.resize(kept);
  return listed;
}

void append_top_processes(fmt::memory_buffer& out, const Snapshot& snapshot,
                          const std::vector<Labels>& gpus, const ProcessActivity& activity,
                          std::size_t top) {
  const std::vector<Listed> ranked = top_by_memory(listed_processes(snapshot), top);
  std::vector<Labels> labels;
  labels.reserve(ranked.size());
  for (const Listed& l : ranked) {
    labels.push_back(gpus[l.device]
                         .with("pid", std::to_string(l.process->pid))
                         .with("user", owner_label(*l.host))
                         .with("command", command_label(*l.host)));
  }
  Family memory(out, "gpumeter_process_gpu_memory_used_bytes", gauge,
                "GPU memory a process holds on the GPU (the processes holding the most only)");
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& used = ranked[i].process->used_memory_bytes;
    if (used) memory.sample(labels[i], static_cast<double>(*used));
  }
  Family sm(
      out, "gpumeter_process_sm_utilization_ratio", gauge,
      "Fraction of the recent past (up to 10 s) during which the process's kernels ran on the "
      "GPU");
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const std::uint32_t gpu = snapshot.gpus.devices[ranked[i].device].identity.index;
    if (const auto ratio = sm_ratio(activity, gpu, ranked[i].process->pid)) {
      sm.sample(labels[i], *ratio);
    }
  }
}

// One user's processes on one GPU.
struct UserUse {
  std::size_t processes = 0;
  std::uint64_t memory_bytes = 0;
  bool memory_known = true;  // every process's memory is known
  std::optional<double> sm_ratio;
};

using UserKey = std::pair<std::size_t, std::string>;  // device position, owner label

std::map<UserKey, UserUse> use_by_user(const Snapshot& snapshot, const ProcessActivity& activity) {
  std::map<UserKey, UserUse> users;
  for (const Listed& l : listed_processes(snapshot)) {
    UserUse& use = users[UserKey(l.device, owner_label(*l.host))];
    ++use.processes;
    const auto& memory = l.process->used_memory_bytes;
    use.memory_known = use.memory_known && memory.has_value();
    use.memory_bytes += memory.value_or(0);
    const std::uint32_t gpu = snapshot.gpus.devices[l.device].identity.index;
    if (const auto ratio = sm_ratio(activity, gpu, l.process->pid)) {
      use.sm_ratio = use.sm_ratio.value_or(0.0) + *ratio;
    }
  }
  return users;
}

void append_users(fmt::memory_buffer& out, const Snapshot& snapshot,
                  const std::vector<Labels>& gpus, const ProcessActivity& activity) {
  struct Row {
    Labels labels;
    UserUse use;
  };
  std::vector<Row> rows;
  for (const auto& [key, use] : use_by_user(snapshot, activity)) {
    rows.push_back({gpus[key.first].with("user", key.second), use});
  }
  Family memory(
      out, "gpumeter_user_gpu_memory_used_bytes", gauge,
      "GPU memory a user's processes hold on the GPU (absent when any amount is unknown)");
  for (const Row& row : rows) {
    if (row.use.memory_known) memory.sample(row.labels, static_cast<double>(row.use.memory_bytes));
  }
  Family sm(
      out, "gpumeter_user_sm_utilization_ratio", gauge,
      "Sum over a user's processes on the GPU of their recent SM ratios (1 is one GPU kept busy)");
  for (const Row& row : rows) {
    if (row.use.sm_ratio) sm.sample(row.labels, *row.use.sm_ratio);
  }
  Family count(out, "gpumeter_user_processes", gauge, "A user's processes on the GPU");
  for (const Row& row : rows) count.sample(row.labels, static_cast<double>(row.use.processes));
}

}  // namespace

void append_process_metrics(fmt::memory_buffer& out, const Snapshot& snapshot,
                            const std::vector<Labels>& labels, const ProcessActivity& activity,
                            const ProcessLimit& limit) {
  if (limit.series == ProcessSeries::none) return;
  if (limit.series == ProcessSeries::top) {
    append_top_processes(out, snapshot, labels, activity, limit.top);
  }
  append_users(out, snapshot, labels, activity);
}

}  // namespace gpumeter::exposition

// SPDX-License-Identifier: MIT
#include "run/follow.h"

#include <algorithm>

#include "host/process_tree.h"
#include "host/procfs.h"

namespace gpumeter::run {

TreeFollower::TreeFollower(Pid self, const host::RunCgroup* cgroup, std::filesystem::path root)
    : self_(self), cgroup_(cgroup), root_(std::move(root)) {}

std::vector<Pid> TreeFollower::refresh(const std::function<void(Pid)>& on_new) {
  std::vector<Pid> pids = host::descendants(root_, self_);
  if (cgroup_ != nullptr) {
    if (auto members = host::cgroup_members(cgroup_->path())) {
      pids.insert(pids.end(), members->begin(), members->end());
    }
  }
  std::ranges::sort(pids);
  const auto duplicates = std::ranges::unique(pids);
  pids.erase(duplicates.begin(), duplicates.end());
  std::erase(pids, self_);
  for (Pid pid : pids) meet(pid, on_new);
  return pids;
}

void TreeFollower::meet(Pid pid, const std::function<void(Pid)>& on_new) {
  const auto start = host::process_start_ticks(root_, pid);
  if (!start) return;  // gone already
  if (met_.emplace(pid, *start).second) on_new(pid);
}

}  // namespace gpumeter::run

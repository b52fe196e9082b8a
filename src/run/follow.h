// SPDX-License-Identifier: MIT
// Which processes belong to a `gpumeter run`: the members of its cgroup when it has one, and
// gpumeter's descendants by parent links (all there is without a cgroup). gpumeter is the
// tree's subreaper, so a process whose parent exits stays below it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "core/model.h"
#include "host/run_cgroup.h"

namespace gpumeter::run {

class TreeFollower {
 public:
  // `cgroup` may be null; it must outlive the follower. `root` holds proc/ ("/" live).
  TreeFollower(Pid self, const host::RunCgroup* cgroup, std::filesystem::path root = "/");

  // The processes of the tree now. Each one not met before (a pid with a start time not seen
  // with it) is also passed to `on_new`, once.
  std::vector<Pid> refresh(const std::function<void(Pid)>& on_new);

  // Meets one process found another way (a child about to be reaped), as refresh() does.
  void meet(Pid pid, const std::function<void(Pid)>& on_new);

  // How many distinct processes have been met.
  std::size_t met() const noexcept { return met_.size(); }

 private:
  Pid self_;
  const host::RunCgroup* cgroup_;
  std::filesystem::path root_;
  std::set<std::pair<Pid, std::uint64_t>> met_;  // pid and start, clock ticks since boot
};

}  // namespace gpumeter::run

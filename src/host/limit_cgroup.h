// SPDX-License-Identifier: MIT
// A cgroup with limits for processes that already run (`gpumeter limit --pid`): made where
// `gpumeter run` makes its groups (host/run_cgroup.h, below our own cgroup; v2, or v1 where
// only v1 has the controllers), the processes moved into it, and the group left in place
// after we exit; later the processes moved back to the groups they came from and the group
// removed. A process that one of them forks afterwards starts in the group by itself: the
// kernel puts a child in its parent's cgroup. Every file is reached through a CgroupFs.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/model.h"
#include "host/cgroup_fs.h"
#include "host/cgroup_layout.h"
#include "host/cgroup_limits.h"
#include "host/run_cgroup.h"

namespace gpumeter::host {

// What undoing a limit takes: the group and where its processes came from.
struct LimitedGroup {
  CgroupVersion version = CgroupVersion::v2;
  // One directory in v2; one per hierarchy in v1 (RunCgroup::directories()).
  std::vector<std::filesystem::path> groups;
  // Per process moved, the group it was in, in the hierarchy of each of `groups`, in order.
  std::map<Pid, std::vector<std::filesystem::path>> origins;

  friend bool operator==(const LimitedGroup&, const LimitedGroup&) = default;
};

// Where a process's cgroups are, as read_cgroup_layout(root, "<pid>") tells.
using ProcessCgroups = std::function<std::expected<CgroupLayout, std::string>(Pid)>;

// The processes to limit as they are now: read afresh on every call.
using ProcessTree = std::function<std::vector<Pid>()>;

// Makes the group `request` names below `ours` (our own cgroups) with its limits, and moves
// each process of `tree()` into it (each a whole thread group: cgroup.procs). Then looks at
// the tree again, and again, until no new process appears (one forked while its parent was
// still outside the group starts outside it; one forked after starts inside), at most 10
// times. A pid that exits before it is moved is left out. Precondition: request.limits.any().
// Errors (a sentence; nothing is left changed): the group cannot be made (the controller
// missing, a permission refused: see create_run_cgroup), a process's own cgroups cannot be
// read or lie outside what we see mounted, a move is refused.
std::expected<LimitedGroup, std::string> limit_processes(CgroupFs& fs, const CgroupLayout& ours,
                                                         const CgroupRequest& request,
                                                         const ProcessTree& tree,
                                                         const ProcessCgroups& where);

// Moves every process in the group back where it came from (one that joined later, a child
// forked after the limit, goes where `first` came from, or the first recorded process when
// `first` is gone) and removes the group. A process that exits meanwhile is skipped.
// Errors: a sentence naming the move or the directory that failed.
std::expected<void, std::string> clear_limits(CgroupFs& fs, const LimitedGroup& group, Pid first);

// The limits the group's files hold now, and its processes.
struct LimitsInForce {
  Limits limits;
  std::vector<Pid> members;  // sorted
};

// Reads cpu.max, cpuset.cpus, memory.max (v2) or cpu.cfs_quota_us and cpu.cfs_period_us,
// cpuset.cpus, memory.limit_in_bytes (v1) from the group's directories; "max", -1 or the
// kernel's unlimited memory read as no limit. Errors: the group is gone (its cgroup.procs
// cannot be read).
std::expected<LimitsInForce, std::string> read_limits_in_force(CgroupFs& fs,
                                                               const LimitedGroup& group);

}  // namespace gpumeter::host

// SPDX-License-Identifier: MIT
#include "host/limit_cgroup.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/text.h"
#include "host/cgroup_parts.h"

namespace gpumeter::host {
namespace {

using Fail = std::unexpected<std::string>;
using Dirs = std::vector<std::filesystem::path>;

// The controller whose hierarchy holds `group` ("" for v2): v1 groups are made in our own
// group of each hierarchy, so the parent names it.
std::string hierarchy_of(const CgroupLayout& ours, const std::filesystem::path& group) {
  for (const auto& [controller, dir] : ours.v1) {
    if (dir == group.parent_path()) return controller;
  }
  return "";
}

// Where `pid` is now, in the hierarchy of each group directory.
std::expected<Dirs, std::string> origins_of(const CgroupLayout& ours, const Dirs& groups,
                                            const CgroupLayout& theirs, Pid pid) {
  Dirs origins;
  for (const auto& group : groups) {
    const std::string controller = hierarchy_of(ours, group);
    const auto it = theirs.v1.find(controller);
    const auto* origin = controller.empty() ? (theirs.unified ? &*theirs.unified : nullptr)
                                            : (it == theirs.v1.end() ? nullptr : &it->second);
    if (origin == nullptr) {
      return Fail(
          fmt::format("the cgroup of pid {} in the {} hierarchy is not in what this "
                      "process sees mounted (another cgroup namespace or container?)",
                      pid, controller.empty() ? "cgroup v2" : controller));
    }
    origins.push_back(*origin);
  }
  return origins;
}

std::expected<void, std::error_code> move(CgroupFs& fs, const std::filesystem::path& group,
                                          Pid pid) {
  return fs.write(group / "cgroup.procs", std::to_string(pid));
}

std::string move_failure(Pid pid, const std::filesystem::path& group, std::error_code error) {
  return cgroup_parts::failure(fmt::format("move pid {} into", pid), group, error);
}

// Moves `pid` into every group; true when it had exited. On failure, what moved goes back.
std::expected<bool, std::string> move_all(CgroupFs& fs, const Dirs& groups, const Dirs& origins,
                                          Pid pid) {
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto moved = move(fs, groups[i], pid);
    if (moved) continue;
    for (std::size_t back = 0; back < i; ++back) {
      [[maybe_unused]] const auto undone = move(fs, origins[back], pid);
    }
    if (moved.error() == std::errc::no_such_process) return true;
    return Fail(move_failure(pid, groups[i], moved.error()));
  }
  return false;
}

void move_back(CgroupFs& fs, const LimitedGroup& limited) {
  for (const auto& [pid, origins] : limited.origins) {
    for (const auto& origin : origins) [[maybe_unused]]
      const auto undone = move(fs, origin, pid);
  }
}

std::vector<Pid> members_of(CgroupFs& fs, const std::filesystem::path& group) {
  std::vector<Pid> pids;
  if (const auto text = fs.read(group / "cgroup.procs")) {
    for (const std::string& word : cgroup_parts::words(*text)) {
      if (const auto pid = parse_integer<Pid>(word)) pids.push_back(*pid);
    }
  }
  return pids;
}

// Where a process in the group in hierarchy `index` goes back to.
const std::filesystem::path& origin_for(const LimitedGroup& group, Pid pid, Pid first,
                                        std::size_t index) {
  auto it = group.origins.find(pid);
  if (it == group.origins.end()) it = group.origins.find(first);
  if (it == group.origins.end()) it = group.origins.begin();
  return it->second[index];
}

// Moves `pid` and records where it came from; a process that exited is left out.
std::expected<void, std::string> move_one(CgroupFs& fs, const CgroupLayout& ours,
                                          LimitedGroup& limited, const ProcessCgroups& where,
                                          Pid pid) {
  auto theirs = where(pid);
  if (!theirs) return {};  // exited before we looked: nothing to move
  auto origins = origins_of(ours, limited.groups, *theirs, pid);
  if (!origins) return Fail(std::move(origins.error()));
  // Forked by a process already moved: in the group from its start, and --clear sends it
  // where the first process came from.
  for (std::size_t i = 0; i < origins->size(); ++i) {
    if ((*origins)[i] == limited.groups[i]) return {};
  }
  const auto exited = move_all(fs, limited.groups, *origins, pid);
  if (!exited) return Fail(exited.error());
  if (!*exited) limited.origins.emplace(pid, std::move(*origins));
  return {};
}

// A process forked while its parent was still outside the group starts outside it: the tree
// is looked at again until a look finds no new process, this many times at most.
constexpr int kMaxRounds = 10;

}  // namespace

std::expected<LimitedGroup, std::string> limit_processes(CgroupFs& fs, const CgroupLayout& ours,
                                                         const CgroupRequest& request,
                                                         const ProcessTree& tree,
                                                         const ProcessCgroups& where) {
  auto created = create_run_cgroup(fs, ours, request);
  if (!created) return Fail(std::move(created.error()));
  RunCgroup& cgroup = **created;
  LimitedGroup limited{.version = cgroup.version(), .groups = cgroup.directories(), .origins = {}};
  std::set<Pid> seen;
  for (int round = 0; round < kMaxRounds; ++round) {
    const std::size_t before = seen.size();
    for (const Pid pid : tree()) {
      if (!seen.insert(pid).second) continue;
      if (auto moved = move_one(fs, ours, limited, where, pid); !moved) {
        move_back(fs, limited);
        return Fail(std::move(moved.error()));
      }
    }
    if (seen.size() == before) break;  // no process appeared since the last look
  }
  if (limited.origins.empty()) return Fail("every process exited before it could be moved");
  cgroup.keep();
  return limited;
}

std::expected<void, std::string> clear_limits(CgroupFs& fs, const LimitedGroup& group, Pid first) {
  if (group.origins.empty()) return Fail("the record names no process to move back");
  for (std::size_t i = 0; i < group.groups.size(); ++i) {
    for (const Pid pid : members_of(fs, group.groups[i])) {
      const auto& origin = origin_for(group, pid, first, i);
      const auto moved = move(fs, origin, pid);
      if (!moved && moved.error() != std::errc::no_such_process) {
        return Fail(move_failure(pid, origin, moved.error()));
      }
    }
  }
  for (const auto& dir : group.groups) {
    if (auto removed = cgroup_parts::remove_group(fs, dir); !removed) return removed;
  }
  if (group.version == CgroupVersion::v2 && !group.groups.empty()) {
    // The leaf `gpumeter limit` moved itself into to enable the controllers, left empty when
    // it exited (CgroupRequest::self).
    const auto& dir = group.groups.front();
    [[maybe_unused]] const auto removed =
        fs.remove_directory(dir.parent_path() / (dir.filename().string() + "-supervisor"));
  }
  return {};
}

}  // namespace gpumeter::host

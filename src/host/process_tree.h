// SPDX-License-Identifier: MIT
// The processes of a command's tree, found one of two ways: the members of a cgroup made for
// it, or the descendants of a process by the parent links in <root>/proc/<pid>/stat. Reads
// only; a process that exits while it is being read is left out.
#pragma once

#include <expected>
#include <filesystem>
#include <system_error>
#include <vector>

#include "core/model.h"

namespace gpumeter::host {

// Every live process below `ancestor` (children, their children, ...; not `ancestor`
// itself), by parent links read under `root` ("/" on a live system, a fixture tree in
// tests). Zombies are left out: they run no more and hold no memory. Sorted.
// A process whose parent exited is reparented (to init, or to the nearest subreaper), so it
// stays in the tree only below a subreaper: `gpumeter run` makes itself one.
std::vector<Pid> descendants(const std::filesystem::path& root, Pid ancestor);

// Every pid in `cgroup`/cgroup.procs and in those of the cgroups nested inside it, at any
// depth (cgroup v2 nests; so does a v1 hierarchy). Sorted, without duplicates.
// Errors: the errno of reading `cgroup`/cgroup.procs itself (the group is gone, or not a
// cgroup); a nested group that vanishes meanwhile is skipped.
std::expected<std::vector<Pid>, std::error_code> cgroup_members(
    const std::filesystem::path& cgroup);

}  // namespace gpumeter::host

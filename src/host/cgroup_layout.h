// SPDX-License-Identifier: MIT
// Where this process's cgroups are: which cgroup file systems are mounted where
// (/proc/self/mountinfo) and our path in each hierarchy (/proc/self/cgroup). cgroup v2 has
// one unified hierarchy; v1 has one per controller, or per group of co-mounted controllers
// ("cpu,cpuacct"); a hybrid system (older systemd, older Jetson kernels) mounts both, with
// the controllers on v1.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpumeter::host {

struct CgroupLayout {
  // Our cgroup's directory in the unified (v2) hierarchy, when one is mounted.
  std::optional<std::filesystem::path> unified;
  // Per v1 controller ("cpu", "cpuset", "memory", ...), our cgroup's directory in the
  // hierarchy that has it; co-mounted controllers share the directory.
  std::map<std::string, std::filesystem::path, std::less<>> v1;
};

// The layout from the text of /proc/self/mountinfo and /proc/self/cgroup. Directories are
// `root` joined with the mount point and our path below the mount's own root (a container
// may mount only part of a hierarchy). A hierarchy whose mount does not contain our cgroup,
// or that is not mounted, is left out.
CgroupLayout parse_cgroup_layout(const std::filesystem::path& root, std::string_view mountinfo,
                                 std::string_view self_cgroup);

// The same from <root>/proc/self/mountinfo and <root>/proc/<process>/cgroup ("/" on a live
// system): our own cgroups ("self"), or those of another process ("1234") as we see the
// hierarchies mounted. Errors: either file cannot be read (the message names it).
std::expected<CgroupLayout, std::string> read_cgroup_layout(const std::filesystem::path& root,
                                                            std::string_view process = "self");

}  // namespace gpumeter::host

// SPDX-License-Identifier: MIT
#include "host/process_tree.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/text.h"
#include "host/files.h"
#include "host/proc_parse.h"

namespace gpumeter::host {
namespace {

// Parent of every live, non-zombie process under <root>/proc that can be read.
std::multimap<Pid, Pid> children_by_parent(const std::filesystem::path& root) {
  std::multimap<Pid, Pid> children;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(root / "proc", error)) {
    const auto pid = parse_integer<Pid>(entry.path().filename().string());
    if (!pid) continue;  // "self", "sys", "stat", ...
    const auto text = read_file(entry.path() / "stat");
    if (!text) continue;  // exited meanwhile, or hidden from us
    const auto stat = parse_stat(*text);
    if (!stat || stat->state == 'Z') continue;
    children.emplace(stat->parent_pid, *pid);
  }
  return children;
}

void append_pids(std::string_view text, std::vector<Pid>& pids) {
  for (std::string_view line : split_lines(text)) {
    if (const auto pid = parse_integer<Pid>(line)) pids.push_back(*pid);
  }
}

// The members of the groups nested in `cgroup`, at any depth. A group removed while it is
// read is skipped, with whatever it held.
void append_nested(const std::filesystem::path& cgroup, std::vector<Pid>& pids) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(cgroup, error)) {
    std::error_code kind_error;
    if (!entry.is_directory(kind_error) || entry.is_symlink(kind_error)) continue;
    if (const auto text = read_file(entry.path() / "cgroup.procs")) {
      append_pids(*text, pids);
      append_nested(entry.path(), pids);
    }
  }
}

}  // namespace

std::vector<Pid> descendants(const std::filesystem::path& root, Pid ancestor) {
  const std::multimap<Pid, Pid> children = children_by_parent(root);
  std::set<Pid> found;
  std::vector<Pid> pending{ancestor};
  while (!pending.empty()) {
    const Pid parent = pending.back();
    pending.pop_back();
    const auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      // Parent links cannot loop, but a tree read while it changes could seem to.
      if (it->second != ancestor && found.insert(it->second).second) pending.push_back(it->second);
    }
  }
  return {found.begin(), found.end()};
}

std::expected<std::vector<Pid>, std::error_code> cgroup_members(
    const std::filesystem::path& cgroup) {
  const auto top = read_file(cgroup / "cgroup.procs");
  if (!top) return std::unexpected(top.error());
  std::vector<Pid> pids;
  append_pids(*top, pids);
  append_nested(cgroup, pids);
  std::ranges::sort(pids);
  const auto duplicates = std::ranges::unique(pids);
  pids.erase(duplicates.begin(), duplicates.end());
  return pids;
}

}  // namespace gpumeter::host

// SPDX-License-Identifier: MIT
// A cgroup made for the processes of one `gpumeter run`: created next to (below) our own
// cgroup with the limits asked for, the command placed in it before it execs, its members
// and memory high-water mark read while it runs, removed at the end. cgroup v2 where the
// controllers are available there, v1 where only v1 has them (hybrid systems, older Jetson
// kernels). Every file is reached through a CgroupFs and the directories of a CgroupLayout,
// so tests run on a temporary directory laid out like either.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/model.h"
#include "host/cgroup_fs.h"
#include "host/cgroup_layout.h"
#include "host/cgroup_limits.h"

namespace gpumeter::host {

enum class CgroupVersion : std::uint8_t { v1, v2 };

struct CgroupRequest {
  std::string name;  // of the new group: "gpumeter-run-<pid>"
  Limits limits;
  // Our own pid. With limits on cgroup v2, the controllers must be enabled in our cgroup's
  // cgroup.subtree_control, which the kernel refuses while processes live in it ("no
  // internal processes"): in a group of our own (a delegated systemd scope), we move into a
  // leaf group beside the new one, "<name>-supervisor", and back at the end.
  Pid self = 0;
};

class RunCgroup {
 public:
  virtual ~RunCgroup() = default;
  virtual CgroupVersion version() const noexcept = 0;
  // The group's directory (v1: the one in the memory hierarchy when there is one, else the
  // first); cgroup_members() reads it.
  virtual const std::filesystem::path& path() const noexcept = 0;
  // Every directory of the group: one in v2; one per hierarchy in v1, the memory one first
  // when there is one.
  virtual std::vector<std::filesystem::path> directories() const = 0;
  // Leaves the group, and whatever making it changed around it, in place when this object is
  // destroyed, for processes that outlive us (`gpumeter limit`); remove() does nothing after.
  virtual void keep() noexcept = 0;
  // Places a process in the group (in every hierarchy, v1). Error: a sentence naming the file.
  virtual std::expected<void, std::string> add(Pid pid) = 0;
  // The most memory charged to the group at any time, bytes: v2 memory.peak (kernel 5.19 or
  // later), v1 memory.max_usage_in_bytes. It counts the page cache of files the group read or
  // wrote as well as resident memory. not_supported when the memory controller is not on
  // for the group or the kernel has no such file.
  virtual Maybe<std::uint64_t> memory_peak_bytes() = 0;
  // Removes the group once its processes are gone (waiting a moment for the kernel to let
  // go of the last one), and undoes what creating it changed around it. Idempotent.
  // Error: a sentence naming what was left behind.
  virtual std::expected<void, std::string> remove() = 0;
};

// Creates the group. With limits, only a group that carries all of them, else an error (a
// sentence naming the file or controller that is missing and why). Without limits, the best
// that needs no change outside the new group (the memory controller when it is already
// available, else a group to follow the processes by), else an error for the caller to
// ignore.
std::expected<std::unique_ptr<RunCgroup>, std::string> create_run_cgroup(
    CgroupFs& fs, const CgroupLayout& layout, const CgroupRequest& request);

}  // namespace gpumeter::host

// SPDX-License-Identifier: MIT
// The two kinds of run cgroup behind create_run_cgroup(), and what they share (internal to
// src/host; in a header only so that each kind lives in its own file).
#pragma once

#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "host/run_cgroup.h"

namespace gpumeter::host::cgroup_parts {

using Created = std::expected<std::unique_ptr<RunCgroup>, std::string>;
using Controllers = std::vector<std::string>;

// The controllers the limits need, by the kernel's names: "cpu", "cpuset", "memory".
Controllers controllers_for(const Limits& limits);

// "cannot <action> <path>: <reason>".
std::string failure(std::string_view action, const std::filesystem::path& path,
                    std::error_code error);

// Writes and describes a failure.
std::expected<void, std::string> write(CgroupFs& fs, const std::filesystem::path& file,
                                       std::string_view text);

// rmdir, retried for a moment while the kernel still counts an exited process.
std::expected<void, std::string> remove_group(CgroupFs& fs, const std::filesystem::path& dir);

// The white-space separated words of an interface file ("cpu memory pids\n").
Controllers words(std::string_view text);

// A whole number in an interface file ("123\n"); no_data when it does not parse,
// not_supported when the file does not exist.
Maybe<std::uint64_t> read_number(CgroupFs& fs, const std::filesystem::path& file);

// v2 under `parent` (our cgroup), with `controllers` enabled for it (which may move this
// process into a leaf group, see CgroupRequest::self).
Created create_v2(CgroupFs& fs, const std::filesystem::path& parent, const CgroupRequest& request,
                  const Controllers& controllers);

// v1: a group in the hierarchy of each controller, and in the memory hierarchy when there is
// one. Precondition: `layout` has every controller in `controllers`.
Created create_v1(CgroupFs& fs, const CgroupLayout& layout, const CgroupRequest& request,
                  const Controllers& controllers);

}  // namespace gpumeter::host::cgroup_parts

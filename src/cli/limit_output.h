// SPDX-License-Identifier: MIT
// What `gpumeter limit` prints: the limits in force on a process's group, one line each,
// with the group's directories and its processes; as text for a person or JSON for scripts.
#pragma once

#include <string>

#include "cli/json.h"
#include "core/model.h"
#include "host/limit_cgroup.h"

namespace gpumeter::cli {

// "cpu      0.5 CPUs' worth (quota 50000 per 100000 µs)", "cpuset   0", "memory   1.0GiB
// (1073741824 bytes)", a "group" line per directory, "processes" with the pids. A limit
// not set is left out.
std::string limit_text(Pid pid, const host::LimitedGroup& group, const host::LimitsInForce& now);

// {"pid", "limited": true, "version": 1|2, "groups": [...], "limits": {"cpu_quota_us",
// "cpu_period_us", "cpuset", "memory_bytes"} (null when not set), "processes": [...]}.
Json limit_json(Pid pid, const host::LimitedGroup& group, const host::LimitsInForce& now);

// {"pid", "limited": false, ...} and its text, for a process without a limit of ours.
Json unlimited_json(Pid pid);

// {"pid", "cleared": true, "groups": [...] (removed)}.
Json cleared_json(Pid pid, const host::LimitedGroup& group);

}  // namespace gpumeter::cli

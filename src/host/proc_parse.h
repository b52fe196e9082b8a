// SPDX-License-Identifier: MIT
// Pure parsers for the procfs files gpumeter reads: /proc/<pid>/stat, /proc/<pid>/status,
// /proc/<pid>/cmdline and /proc/stat. They take the file's text and never touch the file
// system, so that every quirk (a comm with spaces and parentheses, a command line without
// its trailing NUL) is testable on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.h"

namespace gpumeter::host {

// The fields of /proc/<pid>/stat that gpumeter uses (see proc(5); fields numbered from 1).
struct ProcStat {
  Pid pid = 0;                    // field 1
  std::string comm;               // field 2, without the parentheses; may hold spaces and ')'
  char state = '?';               // field 3: R, S, D, Z, ...
  Pid parent_pid = 0;             // field 4
  std::uint64_t utime_ticks = 0;  // field 14: user CPU time, clock ticks
  std::uint64_t stime_ticks = 0;  // field 15: system CPU time, clock ticks
  std::uint64_t start_ticks = 0;  // field 22: start time, clock ticks since boot
  std::uint64_t vsize_bytes = 0;  // field 23: virtual memory size, bytes
  std::int64_t rss_pages = 0;     // field 24: resident set size, pages
};

// Parses /proc/<pid>/stat. The comm runs from the first '(' to the *last* ')', because a
// process may name itself "a) b (c". Empty when the text is malformed or truncated.
std::optional<ProcStat> parse_stat(std::string_view text);

// The fields of /proc/<pid>/status that gpumeter uses. Each is absent when its line is
// missing or malformed.
struct ProcStatus {
  std::optional<std::uint32_t> real_uid;      // "Uid:" first field
  std::vector<Pid> namespace_pids;            // "NSpid:", outermost namespace first
  std::optional<std::uint64_t> rss_kib;       // "VmRSS:", KiB; absent for kernel threads
  std::optional<std::uint64_t> peak_rss_kib;  // "VmHWM:", KiB
};

ProcStatus parse_status(std::string_view text);

// The memory lines of /proc/<pid>/status alone, found without splitting the text into lines
// (the sampler reads them for every process in every round). Each is absent when its line is
// missing or malformed, as in parse_status().
struct ProcMemory {
  std::optional<std::uint64_t> rss_kib;       // "VmRSS:", KiB; absent for kernel threads
  std::optional<std::uint64_t> peak_rss_kib;  // "VmHWM:", KiB
};

ProcMemory parse_status_memory(std::string_view text);

// The pid inside the process's own (innermost) pid namespace, when it differs from `pid`.
std::optional<Pid> innermost_pid(const ProcStatus& status, Pid pid);

// Splits /proc/<pid>/cmdline at NULs. A missing trailing NUL (a process that rewrote its
// arguments) is accepted; empty text (a kernel thread, a zombie) gives an empty vector.
std::vector<std::string> parse_cmdline(std::string_view text);

// The "btime" line of /proc/stat: boot time, seconds since the Unix epoch.
std::optional<std::int64_t> parse_boot_time(std::string_view proc_stat);

// The soft limit of the "Max open files" line of /proc/<pid>/limits; absent when the line is
// missing, malformed or "unlimited".
std::optional<std::uint64_t> parse_open_files_limit(std::string_view limits);

// Converts clock ticks since boot to µs since the Unix epoch. `ticks_per_second` > 0.
TimeUs ticks_since_boot_to_epoch_us(std::int64_t boot_time_s, std::uint64_t ticks,
                                    std::int64_t ticks_per_second);

// Converts a duration in clock ticks to µs. `ticks_per_second` > 0.
std::int64_t ticks_to_us(std::uint64_t ticks, std::int64_t ticks_per_second);

}  // namespace gpumeter::host

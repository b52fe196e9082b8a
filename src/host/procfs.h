// SPDX-License-Identifier: MIT
// Reads processes from procfs under an injectable root ("/" on a live system, a fixture tree
// in tests): user, command line, start time, container or job, namespace pid; and, for the
// sampler, CPU time and resident memory.
//
// The sampler asks for every GPU process in every round, so the reader is frugal: it keeps the
// stat and status descriptors of the processes it reads (host/proc_files.h), and it reuses a
// description while the process's start time and comm stay the same, for at most
// kDescriptionMaxAge; a process that exec()s (a new comm) or a reused pid (a new start time)
// is described afresh at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/source.h"
#include "host/proc_files.h"
#include "host/proc_parse.h"
#include "host/user_names.h"

namespace gpumeter::host {

// How long a description may be reused: the user, command line, container and namespace pid
// a process had this long ago, unless its start time or comm changed since (a process that
// changes its uid, rewrites its arguments or moves to another cgroup is seen within this).
inline constexpr std::chrono::seconds kDescriptionMaxAge{10};

struct ProcfsOptions {
  // Processes whose stat and status descriptors stay open (see host/proc_files.h).
  std::size_t max_kept_processes = default_kept_processes();
  // The clock that ages descriptions; tests step their own.
  std::function<std::chrono::steady_clock::time_point()> clock = std::chrono::steady_clock::now;
};

class ProcfsProcessSource final : public ProcessSource {
 public:
  // `root` is the directory that holds proc/ and etc/passwd. With root "/", user names also
  // come from the system's name service.
  explicit ProcfsProcessSource(std::filesystem::path root = "/", ProcfsOptions options = {});

  // Reads <root>/proc/<pid>/stat, and when the description is not fresh (above) also
  // status, cmdline and cgroup.
  // Errors: process_gone when <root>/proc/<pid> does not exist (or vanished while being read);
  // no_permission when it exists but neither stat nor status may be read.
  // A single field that cannot be read is absent with its reason, the rest still filled:
  //   uid, user    from status; user is absent (not_supported) for a uid without a name
  //   cmdline      absent (not_supported) when empty: kernel threads and zombies
  //   comm, start_time_us  from stat (start time: boot time from <root>/proc/stat + field 22)
  //   container    from cgroup (see host/cgroup.h); namespace_pid from status NSpid
  Maybe<HostProcess> describe(Pid pid) override;

  // Starts a round: stat files read before are no longer used again.
  void begin_round() override;

  // CPU times (stat fields 14, 15) and resident memory: stat field 24 for UsageDetail::current,
  // status VmRSS and VmHWM for with_peak; absent (not_supported) for kernel threads and
  // zombies, which have no memory of their own. Read afresh on every call, except that the
  // stat describe() read since begin_round() is used again, once. Errors as for describe(); error
  // when stat cannot be parsed.
  Maybe<ProcessUsage> usage(Pid pid, UsageDetail detail) override;

 private:
  using Clock = std::chrono::steady_clock;
  // A description, and the process it is of.
  struct Description {
    std::uint64_t start_ticks = 0;
    std::string comm;
    HostProcess process;
    Clock::time_point read_at;
    bool used_lately = true;
  };

  std::filesystem::path process_dir(Pid pid) const;
  Maybe<HostProcess> describe_afresh(Pid pid, Clock::time_point now);
  const Description* fresh_description(Pid pid, const ProcStat& stat, Clock::time_point now);
  Maybe<TimeUs> start_time_us(std::uint64_t start_ticks);
  void fill_identity(HostProcess& process, const Maybe<std::string>& status);
  void forget_unused(Clock::time_point now);
  std::optional<ProcStat> stat_for_usage(Pid pid);

  std::filesystem::path root_;
  std::int64_t ticks_per_second_;
  std::int64_t page_size_;
  UserNames users_;
  // Read once: the kernel recomputes btime on every read and it may wobble by a second.
  std::optional<Maybe<std::int64_t>> boot_time_s_;
  ProcFiles files_;
  std::function<Clock::time_point()> clock_;
  std::unordered_map<Pid, Description> descriptions_;
  // The stat describe() read for each pid, and in which round, for usage() to use again in the
  // same round: one read of stat per process and round instead of two. Entries are kept (and
  // overwritten) from round to round so that a round allocates nothing.
  struct RoundStat {
    std::uint64_t round = 0;
    ProcStat stat;
  };
  std::unordered_map<Pid, RoundStat> round_stats_;
  std::uint64_t round_ = 0;
  Clock::time_point last_sweep_;
};

// The start of `pid` in clock ticks since boot (stat field 22), read under `root`. With the
// pid it identifies a process across pid reuse. Errors as for describe().
Maybe<std::uint64_t> process_start_ticks(const std::filesystem::path& root, Pid pid);

}  // namespace gpumeter::host

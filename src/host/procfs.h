// Reads processes from procfs under an injectable root ("/" on a live system, a fixture tree
// in tests): user, command line, start time, container or job, namespace pid; and, for the
// sampler, CPU time and resident memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "core/source.h"
#include "host/user_names.h"

namespace gpumeter::host {

class ProcfsProcessSource final : public ProcessSource {
 public:
  // `root` is the directory that holds proc/ and etc/passwd. With root "/", user names also
  // come from the system's name service.
  explicit ProcfsProcessSource(std::filesystem::path root = "/");

  // Reads <root>/proc/<pid>/{stat,status,cmdline,cgroup}.
  // Errors: process_gone when <root>/proc/<pid> does not exist (or vanished while being read);
  // no_permission when it exists but neither stat nor status may be read.
  // A single field that cannot be read is absent with its reason, the rest still filled:
  //   uid, user    from status; user is absent (not_supported) for a uid without a name
  //   cmdline      absent (not_supported) when empty: kernel threads and zombies
  //   comm, start_time_us  from stat (start time: boot time from <root>/proc/stat + field 22)
  //   container    from cgroup (see host/cgroup.h); namespace_pid from status NSpid
  Maybe<HostProcess> describe(Pid pid) override;

  // CPU times (stat fields 14, 15) and RSS (status VmRSS, VmHWM; absent for kernel threads).
  // Errors as for describe(); error when stat cannot be parsed.
  Maybe<ProcessUsage> usage(Pid pid) override;

 private:
  std::filesystem::path process_dir(Pid pid) const;
  Maybe<TimeUs> start_time_us(std::uint64_t start_ticks);
  void fill_identity(HostProcess& process, const Maybe<std::string>& status);

  std::filesystem::path root_;
  std::int64_t ticks_per_second_;
  UserNames users_;
  // Read once: the kernel recomputes btime on every read and it may wobble by a second.
  std::optional<Maybe<std::int64_t>> boot_time_s_;
};

// The start of `pid` in clock ticks since boot (stat field 22), read under `root`. With the
// pid it identifies a process across pid reuse. Errors as for describe().
Maybe<std::uint64_t> process_start_ticks(const std::filesystem::path& root, Pid pid);

}  // namespace gpumeter::host

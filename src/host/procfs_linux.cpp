// SPDX-License-Identifier: MIT
#include <unistd.h>

#include <string>

#include "host/cgroup.h"
#include "host/files.h"
#include "host/proc_parse.h"
#include "host/procfs.h"

namespace gpumeter::host {
namespace {

constexpr std::uint64_t kBytesPerKib = 1024;

Unavailable reason_for(std::error_code error) {
  if (error == std::errc::no_such_file_or_directory || error == std::errc::no_such_process) {
    return Unavailable::process_gone;
  }
  if (error == std::errc::permission_denied || error == std::errc::operation_not_permitted) {
    return Unavailable::no_permission;
  }
  return Unavailable::error;
}

Maybe<std::string> read_proc_file(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) return std::unexpected(reason_for(text.error()));
  return std::move(*text);
}

// The per-process files describe() reads, each with the reason it could not be read.
struct ProcessFiles {
  Maybe<std::string> stat;
  Maybe<std::string> status;
  Maybe<std::string> cmdline;
  Maybe<std::string> cgroup;
};

ProcessFiles read_process_files(const std::filesystem::path& dir) {
  return {read_proc_file(dir / "stat"), read_proc_file(dir / "status"),
          read_proc_file(dir / "cmdline"), read_proc_file(dir / "cgroup")};
}

bool denied(const Maybe<std::string>& file) {
  return !file && file.error() == Unavailable::no_permission;
}

// Why nothing at all can be said about the process, if so. The directory is checked after
// the files were read: a process that exited meanwhile is gone, not half-described.
std::optional<Unavailable> whole_process_absence(const std::filesystem::path& dir,
                                                 const ProcessFiles& files) {
  std::error_code error;
  bool exists = std::filesystem::exists(dir, error);
  if (!exists && (!error || reason_for(error) == Unavailable::process_gone)) {
    return Unavailable::process_gone;
  }
  if (error) return reason_for(error);
  if (denied(files.stat) && denied(files.status)) return Unavailable::no_permission;
  return std::nullopt;
}

// The reason a field derived from `file` is absent: the file's own, or `error` when the
// file was read but did not parse.
template <class T>
Maybe<T> absent(const Maybe<std::string>& file) {
  return std::unexpected(file ? Unavailable::error : file.error());
}

Maybe<std::vector<std::string>> command_line(const Maybe<std::string>& file) {
  if (!file) return std::unexpected(file.error());
  auto args = parse_cmdline(*file);
  if (args.empty()) return std::unexpected(Unavailable::not_supported);
  return args;
}

Maybe<ProcStat> stat_of(const Maybe<std::string>& file) {
  if (!file) return std::unexpected(file.error());
  auto stat = parse_stat(*file);
  if (!stat) return std::unexpected(Unavailable::error);
  return std::move(*stat);
}

Maybe<std::uint64_t> kib_to_bytes(const std::expected<std::string_view, std::error_code>& file,
                                  std::optional<std::uint64_t> kib) {
  if (!file) return std::unexpected(reason_for(file.error()));
  if (!kib) return std::unexpected(Unavailable::not_supported);
  return *kib * kBytesPerKib;
}

// Resident memory from stat's page count. A process without memory of its own (a kernel
// thread, a zombie) shows 0 pages, as status shows no VmRSS line.
Maybe<std::uint64_t> resident_bytes(std::int64_t pages, std::int64_t page_size) {
  if (pages <= 0) return std::unexpected(Unavailable::not_supported);
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

}  // namespace

ProcfsProcessSource::ProcfsProcessSource(std::filesystem::path root, ProcfsOptions options)
    : root_(std::move(root)),
      ticks_per_second_(sysconf(_SC_CLK_TCK)),
      page_size_(sysconf(_SC_PAGESIZE)),
      users_(root_),
      files_(root_ / "proc", options.max_kept_processes),
      clock_(std::move(options.clock)),
      last_sweep_(clock_()) {}

std::filesystem::path ProcfsProcessSource::process_dir(Pid pid) const {
  return root_ / "proc" / std::to_string(pid);
}

Maybe<HostProcess> ProcfsProcessSource::describe(Pid pid) {
  const Clock::time_point now = clock_();
  forget_unused(now);
  if (const auto text = files_.read(pid, ProcFiles::File::stat)) {
    if (auto stat = parse_stat(*text)) {
      const Description* fresh = fresh_description(pid, *stat, now);
      RoundStat& kept = round_stats_[pid];
      kept.round = round_;
      kept.stat = std::move(*stat);
      if (fresh != nullptr) return fresh->process;
    }
  }
  return describe_afresh(pid, now);
}

// The remembered description of the process `stat` was read from, if it is fresh.
const ProcfsProcessSource::Description* ProcfsProcessSource::fresh_description(
    Pid pid, const ProcStat& stat, Clock::time_point now) {
  const auto it = descriptions_.find(pid);
  if (it == descriptions_.end()) return nullptr;
  Description& known = it->second;
  if (known.start_ticks != stat.start_ticks || known.comm != stat.comm ||
      now - known.read_at >= kDescriptionMaxAge) {
    return nullptr;
  }
  known.used_lately = true;
  return &known;
}

// Every file read by path, as a one-off reader would; remembered when the stat parsed.
Maybe<HostProcess> ProcfsProcessSource::describe_afresh(Pid pid, Clock::time_point now) {
  const auto dir = process_dir(pid);
  const ProcessFiles files = read_process_files(dir);
  if (auto absence = whole_process_absence(dir, files)) return std::unexpected(*absence);
  HostProcess process;
  process.pid = pid;
  fill_identity(process, files.status);
  process.cmdline = command_line(files.cmdline);
  const auto stat = stat_of(files.stat);
  if (stat) {
    process.comm = stat->comm;
    process.start_time_us = start_time_us(stat->start_ticks);
  } else {
    process.comm = std::unexpected(stat.error());
    process.start_time_us = std::unexpected(stat.error());
  }
  if (files.cgroup) process.container = parse_cgroup(*files.cgroup);
  if (stat) {
    descriptions_.insert_or_assign(pid, Description{stat->start_ticks, stat->comm, process, now});
  }
  return process;
}

// Drops, every kDescriptionMaxAge, the descriptions and descriptors of the processes not
// asked about since the last time: those that left the GPUs, or exited.
void ProcfsProcessSource::forget_unused(Clock::time_point now) {
  if (now - last_sweep_ < kDescriptionMaxAge) return;
  last_sweep_ = now;
  std::erase_if(descriptions_, [](const auto& entry) { return !entry.second.used_lately; });
  std::erase_if(round_stats_,
                [this](const auto& entry) { return entry.second.round + 1 < round_; });
  for (auto& [pid, description] : descriptions_) description.used_lately = false;
  files_.close_unread();
}

void ProcfsProcessSource::fill_identity(HostProcess& process, const Maybe<std::string>& status) {
  const ProcStatus parsed = status ? parse_status(*status) : ProcStatus{};
  if (!parsed.real_uid) {
    process.uid = absent<std::uint32_t>(status);
    process.user = absent<std::string>(status);
  } else {
    process.uid = *parsed.real_uid;
    auto name = users_.name(*parsed.real_uid);
    process.user = name ? Maybe<std::string>(*name) : std::unexpected(Unavailable::not_supported);
  }
  process.namespace_pid = innermost_pid(parsed, process.pid);
}

Maybe<TimeUs> ProcfsProcessSource::start_time_us(std::uint64_t start_ticks) {
  if (!boot_time_s_) {
    auto text = read_proc_file(root_ / "proc" / "stat");
    auto boot = text ? parse_boot_time(*text) : std::nullopt;
    boot_time_s_ = boot ? Maybe<std::int64_t>(*boot) : std::unexpected(Unavailable::error);
  }
  if (!*boot_time_s_) return std::unexpected(boot_time_s_->error());
  return ticks_since_boot_to_epoch_us(**boot_time_s_, start_ticks, ticks_per_second_);
}

void ProcfsProcessSource::begin_round() {
  ++round_;
}

// The stat describe() read in this round, if usage() has not used it yet; or a fresh read.
std::optional<ProcStat> ProcfsProcessSource::stat_for_usage(Pid pid) {
  const auto it = round_stats_.find(pid);
  if (round_ != 0 && it != round_stats_.end() && it->second.round == round_) {
    it->second.round = 0;  // used once: a second usage() in the round reads afresh
    return it->second.stat;
  }
  const auto text = files_.read(pid, ProcFiles::File::stat);
  if (!text) return std::nullopt;
  return parse_stat(*text);
}

Maybe<ProcessUsage> ProcfsProcessSource::usage(Pid pid, UsageDetail detail) {
  forget_unused(clock_());
  const auto stat = stat_for_usage(pid);
  if (!stat) {
    // Read again for the reason: a vanished process, or one we may not read.
    const auto text = files_.read(pid, ProcFiles::File::stat);
    return std::unexpected(text ? Unavailable::error : reason_for(text.error()));
  }
  ProcessUsage usage;
  usage.cpu_user_us = ticks_to_us(stat->utime_ticks, ticks_per_second_);
  usage.cpu_system_us = ticks_to_us(stat->stime_ticks, ticks_per_second_);
  if (detail == UsageDetail::current) {
    usage.rss_bytes = resident_bytes(stat->rss_pages, page_size_);
    usage.peak_rss_bytes = std::unexpected(Unavailable::not_supported);
    return usage;
  }
  const auto status_text = files_.read(pid, ProcFiles::File::status);
  const ProcMemory memory = status_text ? parse_status_memory(*status_text) : ProcMemory{};
  usage.rss_bytes = kib_to_bytes(status_text, memory.rss_kib);
  usage.peak_rss_bytes = kib_to_bytes(status_text, memory.peak_rss_kib);
  return usage;
}

Maybe<std::uint64_t> process_start_ticks(const std::filesystem::path& root, Pid pid) {
  auto stat = stat_of(read_proc_file(root / "proc" / std::to_string(pid) / "stat"));
  if (!stat) return std::unexpected(stat.error());
  return stat->start_ticks;
}

}  // namespace gpumeter::host

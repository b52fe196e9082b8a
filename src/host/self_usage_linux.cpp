// SPDX-License-Identifier: MIT
#include <unistd.h>

#include <system_error>
#include <utility>

#include "core/jemalloc_control.h"
#include "host/files.h"
#include "host/proc_parse.h"
#include "host/self_usage.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpumeter::host {
namespace {

std::optional<std::uint64_t> count_entries(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::directory_iterator entry(dir, error);
  if (error) return std::nullopt;
  std::uint64_t count = 0;
  for (const std::filesystem::directory_iterator end; entry != end; entry.increment(error)) {
    if (error) return std::nullopt;
    ++count;
  }
  return count;
}

}  // namespace

SelfUsageReader::SelfUsageReader(const std::filesystem::path& root, Pid pid)
    : dir_(root / "proc" / std::to_string(pid)),
      proc_stat_(root / "proc" / "stat"),
      ticks_per_second_(sysconf(_SC_CLK_TCK)),
      page_size_(sysconf(_SC_PAGESIZE)) {}

SelfUsage SelfUsageReader::read() {
  SelfUsage usage;
  const auto text = read_file(dir_ / "stat");
  const std::optional<ProcStat> stat = text ? parse_stat(*text) : std::nullopt;
  if (stat && ticks_per_second_ > 0 && page_size_ > 0) {
    usage.cpu_seconds =
        static_cast<double>(ticks_to_us(stat->utime_ticks + stat->stime_ticks, ticks_per_second_)) /
        1e6;
    usage.resident_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(stat->rss_pages, 0)) *
                           static_cast<std::uint64_t>(page_size_);
    usage.virtual_bytes = stat->vsize_bytes;
    const std::scoped_lock lock(mutex_);
    if (!start_time_s_) {
      const auto boot_text = read_file(proc_stat_);
      if (const auto boot = boot_text ? parse_boot_time(*boot_text) : std::nullopt) {
        start_time_s_ = static_cast<double>(ticks_since_boot_to_epoch_us(*boot, stat->start_ticks,
                                                                         ticks_per_second_)) /
                        1e6;
      }
    }
    usage.start_time_s = start_time_s_;
  }
  usage.open_descriptors = count_entries(dir_ / "fd");
  if (const auto limits = read_file(dir_ / "limits")) {
    usage.max_descriptors = parse_open_files_limit(*limits);
  }
  return usage;
}

// The sanitizers replace the allocator: neither jemalloc's figures nor glibc's mean anything
// there.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define GPUMETER_HEAP_COUNTED 1
#else
#define GPUMETER_HEAP_COUNTED 0
#endif

#if GPUMETER_HEAP_COUNTED
namespace {

std::optional<std::size_t> jemalloc_stat(Mallctl mallctl, const char* name) {
  std::size_t value = 0;
  std::size_t size = sizeof value;
  if (mallctl(name, &value, &size, nullptr, 0) != 0) return std::nullopt;
  return value;
}

// jemalloc's statistics are a snapshot taken when its epoch advances. In use: the bytes of
// live allocations; kept: the rest of what it holds resident (dirty pages not yet returned,
// partly used slabs, its metadata).
bool add_jemalloc_usage(SelfUsage& usage) {
  const Mallctl mallctl = jemalloc_control();
  if (mallctl == nullptr) return false;
  std::uint64_t epoch = 1;
  std::size_t size = sizeof epoch;
  if (mallctl("epoch", &epoch, &size, &epoch, size) != 0) return false;
  const auto allocated = jemalloc_stat(mallctl, "stats.allocated");
  const auto resident = jemalloc_stat(mallctl, "stats.resident");
  if (!allocated || !resident) return false;
  usage.heap_in_use_bytes = allocated;
  usage.heap_free_bytes = *resident > *allocated ? *resident - *allocated : 0;
  return true;
}

}  // namespace
#endif

void add_heap_usage(SelfUsage& usage) {
#if GPUMETER_HEAP_COUNTED
  if (add_jemalloc_usage(usage)) return;
#if defined(__GLIBC__)
  const struct mallinfo2 info = mallinfo2();
  // Another allocator put in glibc's place leaves glibc's arenas empty: all zero then means
  // "not counted", not "nothing in use".
  if (info.arena == 0 && info.hblkhd == 0) return;
  // In use: the arenas' allocated chunks and the chunks mmap()ed on their own.
  usage.heap_in_use_bytes = info.uordblks + info.hblkhd;
  usage.heap_free_bytes = info.fordblks;
#endif
#else
  (void)usage;
#endif
}

}  // namespace gpumeter::host

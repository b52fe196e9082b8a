// SPDX-License-Identifier: MIT
// Reads what a gpumeter process uses (core/self_usage.h) from procfs under an injectable root
// ("/" on a live system, a fixture tree in tests), and the allocator's figures of the calling
// process.
#pragma once

#include <filesystem>
#include <mutex>
#include <optional>

#include "core/model.h"
#include "core/self_usage.h"

namespace gpumeter::host {

class SelfUsageReader {
 public:
  // Reads <root>/proc/<pid>/{stat,limits,fd}; `pid` is the calling process on a live system.
  SelfUsageReader(const std::filesystem::path& root, Pid pid);

  // The procfs figures; a file that cannot be read leaves its figures absent. The heap and
  // SQLite figures are left to the caller (add_heap_usage(), the store). Any thread.
  SelfUsage read();

 private:
  std::filesystem::path dir_;
  std::filesystem::path proc_stat_;
  long ticks_per_second_;
  long page_size_;
  std::mutex mutex_;
  std::optional<double> start_time_s_;  // read once: it never changes
};

// The calling process's heap as the allocator counts it: in use, and freed but kept (jemalloc's
// statistics when jemalloc is the allocator, else glibc's mallinfo2); left absent elsewhere.
void add_heap_usage(SelfUsage& usage);

}  // namespace gpumeter::host

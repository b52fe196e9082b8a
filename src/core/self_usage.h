// SPDX-License-Identifier: MIT
// What the running gpumeter process itself uses: its CPU time, memory, descriptors and the
// parts of its memory the allocator and SQLite account for. The daemon exports it on /metrics
// under Prometheus' conventional `process_*` names, so that an operator (and the soak
// benchmark) sees the meter's own cost beside what it meters. Each figure is absent where the
// platform cannot say it.
#pragma once

#include <cstdint>
#include <optional>

namespace gpumeter {

struct SelfUsage {
  std::optional<double> cpu_seconds;                 // user + system CPU time since start
  std::optional<std::uint64_t> resident_bytes;       // resident set size now
  std::optional<std::uint64_t> virtual_bytes;        // virtual address space now
  std::optional<double> start_time_s;                // seconds since the Unix epoch
  std::optional<std::uint64_t> open_descriptors;     // open file descriptors now
  std::optional<std::uint64_t> max_descriptors;      // the soft limit on them
  std::optional<std::uint64_t> heap_in_use_bytes;    // malloc'd and not yet freed (resident or not)
  std::optional<std::uint64_t> heap_free_bytes;      // freed, kept in the allocator's arenas
  std::optional<std::uint64_t> sqlite_memory_bytes;  // what SQLite holds (page caches, schemas)
};

}  // namespace gpumeter

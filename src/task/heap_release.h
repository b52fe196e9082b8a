// SPDX-License-Identifier: MIT
// Giving freed memory back to the kernel after a large reply: a few MiB of reply text freed
// inside the heap would otherwise stay resident until the daemon's next periodic trim.
#pragma once

#include <cstddef>

namespace gpumeter::task {

// The output a connection held before it was sent, from which its buffer is released and the
// heap trimmed.
inline constexpr std::size_t kLargeOutputBytes = std::size_t{256} << 10U;

// Returns the free pages of every malloc arena to the kernel: jemalloc's purge of all arenas
// where jemalloc is the allocator (gpumeter-serve), else glibc's malloc_trim; a no-op with
// neither. Costs about a millisecond; call it after large frees only (the HTTP server after
// answers of 1 MiB or more: after every answer it cost /api/v1/status half its throughput).
void release_free_heap() noexcept;

}  // namespace gpumeter::task

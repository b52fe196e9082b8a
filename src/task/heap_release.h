// SPDX-License-Identifier: MIT
// Giving freed memory back to the kernel after a large reply: a few MiB of reply text freed
// inside the heap would otherwise stay resident until the daemon's next periodic trim.
#pragma once

#include <cstddef>

namespace gpumeter::task {

// The output a connection held before it was sent, from which its buffer is released and the
// heap trimmed.
inline constexpr std::size_t kLargeOutputBytes = std::size_t{256} << 10U;

// Returns the free pages of every malloc arena to the kernel (malloc_trim). A no-op without
// glibc. Costs about a millisecond; call it after large frees only.
void release_free_heap() noexcept;

}  // namespace gpumeter::task

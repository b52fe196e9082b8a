// SPDX-License-Identifier: MIT
#include "task/heap_release.h"

#include "core/jemalloc_control.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpumeter::task {

void release_free_heap() noexcept {
  if (const Mallctl mallctl = jemalloc_control(); mallctl != nullptr) {
    // Every arena's dirty pages go back now rather than after the decay time, as malloc_trim
    // does with glibc's: each thread allocates in an arena of its own, whose freed pages no
    // other thread's allocations reuse. 4096 is MALLCTL_ARENAS_ALL.
    (void)mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace gpumeter::task

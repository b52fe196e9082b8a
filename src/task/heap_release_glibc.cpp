// SPDX-License-Identifier: MIT
#include <dlfcn.h>

#include <cstddef>

#include "task/heap_release.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpumeter::task {
namespace {

// jemalloc's control interface when it is the process's allocator (gpumeter-serve links it):
// found by name, so that other builds need nothing of it.
using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);

Mallctl jemalloc_control() noexcept {
  static const auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  return mallctl;
}

}  // namespace

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

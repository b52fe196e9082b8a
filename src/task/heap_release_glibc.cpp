// SPDX-License-Identifier: MIT
#include "task/heap_release.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpumeter::task {

void release_free_heap() noexcept {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace gpumeter::task

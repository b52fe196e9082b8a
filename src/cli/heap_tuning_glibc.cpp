#include "cli/heap_tuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpumeter::cli {

// Two arenas: the sampler's thread and the others (mostly idle HTTP threads) seldom contend,
// and each arena more costs the memory it keeps free.
constexpr int kArenas = 2;

void limit_heap_arenas() {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, kArenas);
#endif
}

void HeapTrimmer::maybe_trim() {
#if defined(__GLIBC__)
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < every_) return;
  last_ = now;
  malloc_trim(0);
#endif
}

}  // namespace gpumeter::cli

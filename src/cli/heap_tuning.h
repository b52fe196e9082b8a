// How the daemon keeps its heap small: a long-lived process with many threads (the sampler,
// the recorder, the task server and the HTTP server's pool) would otherwise hold one glibc
// malloc arena per thread that ever allocated, each keeping the memory it freed, and the
// holes that growing buffers leave in the heap stay resident until trimmed (docs/benchmarks.md,
// "The daemon: CPU and memory").
#pragma once

#include <chrono>

namespace gpumeter::cli {

// Caps the number of malloc arenas. Call before any thread starts. A no-op without glibc.
void limit_heap_arenas();

// Gives the free pages inside the heap back to the kernel at most once per `every`; call it
// from one thread only (the sampler's, after each round). A no-op without glibc.
class HeapTrimmer {
 public:
  explicit HeapTrimmer(std::chrono::steady_clock::duration every) : every_(every) {}
  void maybe_trim();

 private:
  std::chrono::steady_clock::duration every_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace gpumeter::cli

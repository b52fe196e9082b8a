// How the daemon keeps its heap small: memory a long-lived process frees inside its heap (the
// holes growing buffers leave, what the threads' malloc arenas keep) stays resident until the
// heap is trimmed (docs/benchmarks.md, "The daemon: CPU and memory").
#pragma once

#include <chrono>
#include <cstddef>

namespace gpumeter::daemon {

// Fixes the size from which malloc maps a block of its own (unmapped again when freed) at
// `threshold_bytes`. glibc otherwise raises that threshold to the largest block freed so far,
// up to 32 MiB: after the start (which parses and frees scenario and config documents of
// megabytes) every large reply buffer then lands inside the heap, and the holes the buffers
// leave there are what made a long-running daemon's RSS creep (docs/benchmarks.md, "Soak").
// Call it first thing, before the large start-up allocations. A no-op without glibc.
void fix_mmap_threshold(std::size_t threshold_bytes);

// Gives the free pages inside the heap (every malloc arena) back to the kernel at most once
// per `every`; call it from one thread only (the sampler's, after each round). A no-op without
// glibc.
class HeapTrimmer {
 public:
  explicit HeapTrimmer(std::chrono::steady_clock::duration every) : every_(every) {}
  void maybe_trim();

 private:
  std::chrono::steady_clock::duration every_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace gpumeter::daemon

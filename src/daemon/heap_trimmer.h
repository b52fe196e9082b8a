// SPDX-License-Identifier: MIT
// How the daemon keeps its heap small: memory a long-lived process frees inside its heap (the
// holes growing buffers leave, what the threads' malloc arenas keep) stays resident until the
// heap is trimmed (docs/benchmarks.md, "The daemon: CPU and memory").
#pragma once

#include <chrono>

namespace gpumeter::daemon {

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

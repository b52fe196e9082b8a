// SPDX-License-Identifier: MIT
// jemalloc's settings for gpumeter-serve, read by jemalloc at its first allocation (the
// library looks this symbol up in the executable). A background thread purges freed pages on
// time even while the daemon allocates little; unused dirty pages go back after a second
// rather than jemalloc's default ten, so that a large reply's memory does not linger; muzzy
// pages (handed back lazily) are skipped. docs/benchmarks.md, "Soak", measures the result.
extern "C" {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): jemalloc's interface
const char* malloc_conf = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";
}

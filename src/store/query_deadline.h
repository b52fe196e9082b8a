// SPDX-License-Identifier: MIT
// A deadline for the queries one thread runs: a server bounds each request's work in the
// database with it, so that a query over a long window stops instead of holding a thread, its
// memory and a connection for as long as it would take.
#pragma once

#include <chrono>

namespace gpumeter::store {

// Makes every SQLite connection opened from now on in this process check the deadline of the
// thread that runs a statement on it (SQLite's progress handler, every thousand virtual-machine
// instructions: within about a millisecond). Call it once before opening the connections to
// bound; later calls do nothing. A thread without a deadline runs unbounded.
void enable_query_deadlines();

// While it lives, statements the calling thread runs past `at` (steady clock) stop: their step
// fails with io and SQLite's "interrupted". Needs enable_query_deadlines() before the
// connection was opened. Not nested.
class QueryDeadline {
 public:
  explicit QueryDeadline(std::chrono::steady_clock::time_point at);
  ~QueryDeadline();
  QueryDeadline(const QueryDeadline&) = delete;
  QueryDeadline& operator=(const QueryDeadline&) = delete;
};

}  // namespace gpumeter::store

// SPDX-License-Identifier: MIT
#include "store/query_deadline.h"

#include <sqlite3.h>

#include <mutex>
#include <optional>

namespace gpumeter::store {
namespace {

// Per thread, since a connection serves one thread at a time and the deadline is a request's.
thread_local std::optional<std::chrono::steady_clock::time_point> t_deadline;

int past_deadline(void* /*unused*/) {
  return t_deadline && std::chrono::steady_clock::now() >= *t_deadline ? 1 : 0;
}

// SQLite's auto-extension hook is the one place that sees every connection as it opens.
int install_handler(sqlite3* db, const char** /*error*/, const sqlite3_api_routines* /*api*/) {
  constexpr int kInstructionsPerCheck = 1000;
  sqlite3_progress_handler(db, kInstructionsPerCheck, &past_deadline, nullptr);
  return SQLITE_OK;
}

}  // namespace

void enable_query_deadlines() {
  static std::once_flag once;
  std::call_once(once, [] {
    // sqlite3_auto_extension takes a function of no declared arguments; SQLite calls it with
    // the three above (its documented contract).
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
    sqlite3_auto_extension(reinterpret_cast<void (*)()>(&install_handler));
  });
}

QueryDeadline::QueryDeadline(std::chrono::steady_clock::time_point at) {
  t_deadline = at;
}

QueryDeadline::~QueryDeadline() {
  t_deadline.reset();
}

}  // namespace gpumeter::store

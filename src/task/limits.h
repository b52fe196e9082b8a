// SPDX-License-Identifier: MIT
// The task daemon's limits: each bounds memory or work that a client could otherwise make
// grow. docs/task-protocol.md lists them; the status reply reports them.
#pragma once

#include <cstddef>

namespace gpumeter::task {

struct Limits {
  std::size_t line_bytes = 65'536;  // one request line, newline excluded
  std::size_t name_bytes = 256;
  std::size_t labels = 16;
  std::size_t label_key_bytes = 64;
  std::size_t label_value_bytes = 256;
  std::size_t labels_bytes = 4'096;  // one task's label keys and values together
  std::size_t id_bytes = 256;        // a string correlation id
  std::size_t open_tasks_per_process = 1'024;
  std::size_t open_tasks = 16'384;
  std::size_t retained_tasks = 10'000;
  std::size_t connections = 256;
  std::size_t pending_requests_per_connection = 64;
  std::size_t query_default = 1'000;
  std::size_t query_max = 10'000;
  // One reply line: a query stops adding tasks before its reply would pass it (and says how
  // to ask for the rest), so a reply is never larger however many tasks match.
  std::size_t reply_bytes = 1U << 20U;
  // Replies a client has not taken yet: past it the client is dropped, since a client that
  // pipelines requests and does not read would otherwise hold them all.
  std::size_t unsent_bytes_per_connection = 4U << 20U;
  // A client that takes none of the output it is owed, or leaves a request line unfinished,
  // for this long is dropped. A connection that owes and is owed nothing is never dropped:
  // workers keep theirs open between tasks.
  std::size_t stalled_ms = 10'000;
  // What open, ending and retained tasks may hold in all (Registry::footprint): beyond it the
  // oldest retained tasks are dropped first, and a begin that would pass it with open tasks
  // alone is refused.
  std::size_t task_bytes = 32U << 20U;
};

}  // namespace gpumeter::task

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
  std::size_t id_bytes = 256;  // a string correlation id
  std::size_t open_tasks_per_process = 1'024;
  std::size_t open_tasks = 16'384;
  std::size_t retained_tasks = 10'000;
  std::size_t connections = 256;
  std::size_t pending_requests_per_connection = 64;
  std::size_t query_default = 1'000;
  std::size_t query_max = 10'000;
};

}  // namespace gpumeter::task

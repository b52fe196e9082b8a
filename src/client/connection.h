// SPDX-License-Identifier: MIT
// A blocking Unix-socket connection that exchanges one request line for one reply line.
#pragma once

#include <string>

namespace gpumeter::client {

class Connection {
 public:
  explicit Connection(std::string path) : path_(std::move(path)) {}
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() { close(); }

  // Opens the socket if it is not open; returns 0 or a GPUMETER_E_* code.
  int open();
  // Sends `line` (newline included) and reads one reply line into `reply`, without the
  // newline; returns 0 or a GPUMETER_E_* code. A connection found closed is reopened once.
  int exchange(const std::string& line, std::string& reply);
  void close();

 private:
  int send_all(const std::string& line);
  int read_line(std::string& reply);

  std::string path_;
  int fd_ = -1;
  std::string buffered_;  // bytes read past the last reply (none when requests are serial)
};

}  // namespace gpumeter::client

// SPDX-License-Identifier: MIT
// A client of the task socket for the HTTP tests: one request line, one reply line.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace gpumeter::net::testing {

class TaskClient {
 public:
  explicit TaskClient(const std::filesystem::path& socket_path)
      : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket_path.c_str(), sizeof(address.sun_path) - 1);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      ::close(fd_);
      throw std::runtime_error("cannot connect to " + socket_path.string());
    }
  }
  ~TaskClient() { ::close(fd_); }
  TaskClient(const TaskClient&) = delete;
  TaskClient& operator=(const TaskClient&) = delete;

  // Sends `request` and returns the reply.
  nlohmann::json ask(const nlohmann::json& request) {
    const std::string line = request.dump() + "\n";
    (void)::send(fd_, line.data(), line.size(), MSG_NOSIGNAL);
    std::string reply;
    char c = 0;
    while (::recv(fd_, &c, 1, 0) == 1 && c != '\n') reply.push_back(c);
    return nlohmann::json::parse(reply, nullptr, false);
  }

 private:
  int fd_;
};

}  // namespace gpumeter::net::testing

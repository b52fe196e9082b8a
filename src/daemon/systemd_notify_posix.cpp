// SPDX-License-Identifier: MIT
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "daemon/systemd_notify.h"

namespace gpumeter::daemon {

bool notify_systemd(std::string_view state) {
  const char* variable = std::getenv("NOTIFY_SOCKET");
  if (variable == nullptr) return false;
  const std::string_view path(variable);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  // "@name" is an abstract socket: its address starts with a NUL byte instead.
  if (path.size() < 2 || path.size() >= sizeof(address.sun_path) ||
      (path.front() != '/' && path.front() != '@')) {
    return false;
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  if (path.front() == '@') address.sun_path[0] = '\0';
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());
  const ssize_t sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                                reinterpret_cast<const sockaddr*>(&address), length);
  ::close(fd);
  return sent == static_cast<ssize_t>(state.size());
}

}  // namespace gpumeter::daemon

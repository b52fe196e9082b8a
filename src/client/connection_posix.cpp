// SPDX-License-Identifier: MIT
#include <gpumeter/gpumeter.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "connection.h"

namespace gpumeter::client {
namespace {

// An `end` waits for the sampler; the daemon answers within 3 intervals + 5 s even when
// stalled, so a minute without a byte means the daemon is stuck.
constexpr int kReplyTimeoutSeconds = 60;
// The daemon closes a connection after a reply to a line this long; no reply is longer
// than a few KiB per GPU, so this bounds memory against a peer that never sends a newline.
constexpr std::size_t kMaxReplyBytes = 16U << 20U;
// read_line's own status for a reply that did not come in time: the request may be under way
// in the daemon, so it must not be sent again.
constexpr int kTimedOut = 1;

int connect_error(int error) {
  if (error == EACCES || error == EPERM) return GPUMETER_E_NOT_PERMITTED;
  if (error == ENOENT || error == ECONNREFUSED || error == ENOTDIR) return GPUMETER_E_NO_DAEMON;
  return GPUMETER_E_IO;
}

}  // namespace

int Connection::open() {
  if (fd_ >= 0) return GPUMETER_OK;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path_.empty() || path_.size() >= sizeof(address.sun_path)) return GPUMETER_E_INVALID;
  std::memcpy(address.sun_path, path_.data(), path_.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return GPUMETER_E_IO;
  const timeval timeout{.tv_sec = kReplyTimeoutSeconds, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API takes sockaddr*
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int error = errno;
    ::close(fd);
    return connect_error(error);
  }
  fd_ = fd;
  return GPUMETER_OK;
}

void Connection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffered_.clear();
}

int Connection::exchange(const std::string& line, std::string& reply) {
  // A daemon restart leaves a dead connection that only the first write or read reveals.
  int status = GPUMETER_E_IO;
  for (int attempt = 0; attempt < 2; ++attempt) {
    status = open();
    if (status != GPUMETER_OK) return status;
    status = send_all(line);
    if (status == GPUMETER_OK) status = read_line(reply);
    if (status == GPUMETER_OK) return status;
    close();
    if (status == kTimedOut) return GPUMETER_E_IO;
  }
  return status == GPUMETER_E_IO ? GPUMETER_E_NO_DAEMON : status;
}

int Connection::send_all(const std::string& line) {
  std::size_t sent = 0;
  while (sent < line.size()) {
    // MSG_NOSIGNAL: a library must not kill its host with SIGPIPE when the daemon goes away.
    const ssize_t n = ::send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return GPUMETER_E_IO;
    sent += static_cast<std::size_t>(n);
  }
  return GPUMETER_OK;
}

int Connection::read_line(std::string& reply) {
  char chunk[4096];
  std::size_t newline = buffered_.find('\n');
  while (newline == std::string::npos) {
    if (buffered_.size() > kMaxReplyBytes) return GPUMETER_E_PROTOCOL;
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return kTimedOut;
    if (n <= 0) return GPUMETER_E_IO;
    buffered_.append(chunk, static_cast<std::size_t>(n));
    newline = buffered_.find('\n');
  }
  reply.assign(buffered_, 0, newline);
  buffered_.erase(0, newline + 1);
  return GPUMETER_OK;
}

}  // namespace gpumeter::client

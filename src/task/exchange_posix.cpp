// SPDX-License-Identifier: MIT
#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "task/exchange.h"
#include "task/listener.h"

namespace gpumeter::task {
namespace {

// A query reply holds at most 10,000 tasks of a few KiB each.
constexpr std::size_t kMaxReplyBytes = std::size_t{256} << 20U;

Error failed(const std::filesystem::path& socket, std::string_view what) {
  return Error{ErrorCode::io, fmt::format("{}: {}", socket.string(), what)};
}

std::expected<void, Error> send_all(int fd, const std::filesystem::path& socket,
                                    std::string_view data) {
  while (!data.empty()) {
    const ssize_t sent = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0) return std::unexpected(failed(socket, std::strerror(errno)));
    data.remove_prefix(static_cast<std::size_t>(sent));
  }
  return {};
}

std::expected<std::string, Error> read_line(int fd, const std::filesystem::path& socket) {
  std::string reply;
  std::array<char, 65'536> buffer{};
  while (reply.find('\n') == std::string::npos) {
    const ssize_t got = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return std::unexpected(failed(socket, "the daemon did not answer in time"));
    }
    if (got < 0) return std::unexpected(failed(socket, std::strerror(errno)));
    if (got == 0) return std::unexpected(failed(socket, "the daemon closed the connection"));
    reply.append(buffer.data(), static_cast<std::size_t>(got));
    if (reply.size() > kMaxReplyBytes) return std::unexpected(failed(socket, "reply too long"));
  }
  reply.resize(reply.find('\n'));
  return reply;
}

}  // namespace

std::expected<std::string, Error> exchange(const std::filesystem::path& socket,
                                           std::string_view request, std::chrono::seconds timeout) {
  const auto fd = connect_to(socket);
  if (!fd) return std::unexpected(fd.error());
  const timeval limit{.tv_sec = static_cast<time_t>(timeout.count()), .tv_usec = 0};
  ::setsockopt(*fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  ::setsockopt(*fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
  const auto sent = send_all(*fd, socket, fmt::format("{}\n", request));
  auto reply = sent ? read_line(*fd, socket) : std::unexpected(sent.error());
  ::close(*fd);
  return reply;
}

}  // namespace gpumeter::task

// SPDX-License-Identifier: MIT
#include "net/listen_socket.h"

#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

namespace gpumeter::net {
namespace {

using AddressList = std::unique_ptr<addrinfo, decltype(&freeaddrinfo)>;

std::expected<AddressList, std::string> resolve(const ListenAddress& address) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(address.port);
  const int failed = ::getaddrinfo(address.host.c_str(), port.c_str(), &hints, &found);
  if (failed != 0) return std::unexpected(std::string(::gai_strerror(failed)));
  return AddressList(found, &freeaddrinfo);
}

int bound_port(int fd) {
  sockaddr_storage name{};
  socklen_t size = sizeof(name);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&name), &size);  // NOLINT(*-reinterpret-cast)
  if (name.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&name)->sin6_port);  // NOLINT
  }
  return ntohs(reinterpret_cast<const sockaddr_in*>(&name)->sin_port);  // NOLINT
}

// One candidate address: a listening socket, or -1 with errno set.
int try_listen(const addrinfo& candidate) {
  const int fd = ::socket(candidate.ai_family, candidate.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          candidate.ai_protocol);
  if (fd < 0) return -1;
  const int yes = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  if (candidate.ai_family == AF_INET6) {
    // "::" takes IPv4 clients too (mapped addresses), whatever the system's default.
    const int no = 0;
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof(no));
  }
  if (::bind(fd, candidate.ai_addr, candidate.ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
    return fd;
  }
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return -1;
}

}  // namespace

std::expected<ListenSocket, Error> listen_on(const ListenAddress& address) {
  auto resolved = resolve(address);
  std::string why = resolved ? "no such address" : resolved.error();
  if (resolved) {
    for (const addrinfo* candidate = resolved->get(); candidate != nullptr;
         candidate = candidate->ai_next) {
      const int fd = try_listen(*candidate);
      if (fd >= 0) return ListenSocket{.fd = fd, .port = bound_port(fd)};
      why = std::strerror(errno);
    }
  }
  return std::unexpected(
      Error{ErrorCode::io, fmt::format("cannot listen on {}: {}", to_string(address), why)});
}

}  // namespace gpumeter::net

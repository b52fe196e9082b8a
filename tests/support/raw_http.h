// SPDX-License-Identifier: MIT
// Raw HTTP over a TCP socket for the server's tests: bytes no well-behaved client sends
// (malformed request lines, bodies on GET), and the one answer they get.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace gpumeter::net::testing {

// Whether `answer` holds a whole response: its head and as many body bytes as its
// Content-Length says.
inline bool complete(const std::string& answer) {
  const auto head_end = answer.find("\r\n\r\n");
  if (head_end == std::string::npos) return false;
  const auto length_at = answer.find("Content-Length: ");
  if (length_at == std::string::npos || length_at > head_end) return true;
  const auto length = std::stoul(answer.substr(length_at + 16));
  return answer.size() >= head_end + 4 + length;
}

// Connects to 127.0.0.1:`port` (-1 if it cannot), sends `request` and reads what comes back
// while `enough` says more is wanted, until the server closes the connection or `timeout_s`
// pass without a byte. A large body may be refused before it is all sent; what was answered
// still counts.
template <typename Enough>
std::string send_and_read(int port, std::string_view request, long timeout_s, Enough enough) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) {
    const timeval timeout{.tv_sec = timeout_s, .tv_usec = 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char buffer[65536];
    ssize_t got = 0;
    while (!enough(answer) && (got = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) {
      answer.append(buffer, static_cast<std::size_t>(got));
    }
  }
  ::close(fd);
  return answer;
}

// Sends `request` to 127.0.0.1:`port` and returns the first response (or what came of it
// before the server closed the connection or two seconds passed without a byte).
inline std::string exchange(int port, std::string_view request) {
  return send_and_read(port, request, 2, complete);
}

// The status code of a raw answer ("HTTP/1.1 413 Payload Too Large" -> 413); 0 if none.
inline int status_of(std::string_view answer) {
  if (!answer.starts_with("HTTP/1.") || answer.size() < 12) return 0;
  return std::stoi(std::string(answer.substr(9, 3)));
}

}  // namespace gpumeter::net::testing

// SPDX-License-Identifier: MIT
// A peer on a loopback port that speaks raw bytes, for the master's HTTP client tests: each
// connection runs the test's behaviour on its own thread with the socket, so that a test can
// answer like no HTTP server would (headers forever, a body that never ends, nothing at all).
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <list>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

namespace gpumeter::master::testing {

class RawAgent {
 public:
  // `behaviour(fd, stop)` owns nothing: the agent closes the socket when it returns.
  using Behaviour = std::function<void(int fd, const std::stop_token& stop)>;

  explicit RawAgent(Behaviour behaviour) : behaviour_(std::move(behaviour)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(listener_, 128) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ::close(listener_);
      throw std::runtime_error("cannot listen on a loopback port");
    }
    port_ = ntohs(address.sin_port);
    acceptor_ = std::jthread([this](const std::stop_token& stop) { accept_loop(stop); });
  }
  ~RawAgent() {
    acceptor_.request_stop();
    acceptor_.join();
    const std::lock_guard lock(mutex_);
    connections_.clear();  // stops and joins each
    ::close(listener_);
  }
  RawAgent(const RawAgent&) = delete;
  RawAgent& operator=(const RawAgent&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int accepted() const { return accepted_.load(); }
  int most_open_at_once() const { return most_open_.load(); }

 private:
  void accept_loop(const std::stop_token& stop) {
    while (!stop.stop_requested()) {
      pollfd ready{.fd = listener_, .events = POLLIN, .revents = 0};
      if (::poll(&ready, 1, 20) <= 0) continue;
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      ++accepted_;
      const int open = ++open_;
      int most = most_open_.load();
      while (open > most && !most_open_.compare_exchange_weak(most, open)) {
      }
      const std::lock_guard lock(mutex_);
      connections_.emplace_back([this, fd](const std::stop_token& connection_stop) {
        behaviour_(fd, connection_stop);
        --open_;
        ::close(fd);
      });
    }
  }

  Behaviour behaviour_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::atomic<int> open_{0};
  std::atomic<int> most_open_{0};
  std::mutex mutex_;
  std::list<std::jthread> connections_;
  std::jthread acceptor_;  // last: starts once the members above exist
};

// Reads until the end of the request's head, the peer's close, or `stop`; false unless a head
// came. The head is kept in `head` when given.
inline bool read_request(int fd, const std::stop_token& stop, std::string* head = nullptr) {
  std::string text;
  char buffer[4096];
  while (!stop.stop_requested() && text.find("\r\n\r\n") == std::string::npos) {
    pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&ready, 1, 20) <= 0) continue;
    const ssize_t got = ::recv(fd, buffer, sizeof(buffer), 0);
    if (got <= 0) return false;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  if (head != nullptr) *head = text;
  return text.find("\r\n\r\n") != std::string::npos;
}

// Writes all of `bytes`; false once the peer is gone or `stop` is requested.
inline bool send_all(int fd, std::string_view bytes, const std::stop_token& stop) {
  while (!bytes.empty() && !stop.stop_requested()) {
    pollfd ready{.fd = fd, .events = POLLOUT, .revents = 0};
    if (::poll(&ready, 1, 20) <= 0) continue;
    const ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(sent));
  }
  return bytes.empty();
}

// Waits until the peer hangs up or `stop` is requested.
inline void wait_for_close(int fd, const std::stop_token& stop) {
  char buffer[4096];
  while (!stop.stop_requested()) {
    pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&ready, 1, 20) <= 0) continue;
    if (::recv(fd, buffer, sizeof(buffer), 0) <= 0) return;
  }
}

}  // namespace gpumeter::master::testing

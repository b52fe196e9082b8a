// SPDX-License-Identifier: MIT
#include "task/server.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace gpumeter::task {
namespace {

// While an end waits for the sampler, look often.
constexpr int kWaitingTimeoutMs = 20;
constexpr auto kShutdownGrace = std::chrono::seconds(1);

// A short reply to a connection that will not be served; best effort, never blocks.
void refuse(int fd, const std::string& reply) {
  if (::send(fd, reply.data(), reply.size(), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
    // The peer is gone or its buffer is full: it loses only this one line.
    errno = 0;
  }
  ::close(fd);
}

}  // namespace

Server::Server(Service& service, Listener& listener, Limits limits, Clock clock,
               std::chrono::milliseconds idle_poll)
    : service_(service),
      listener_(listener),
      limits_(limits),
      clock_(std::move(clock)),
      idle_poll_(idle_poll) {}

void Server::accept_one(int fd) {
  if (connections_.size() >= limits_.connections) {
    refuse(fd, service_.too_many_connections());
    return;
  }
  const auto peer = peer_credentials(fd);
  if (!peer) {
    // Without credentials nothing can be permitted; say so rather than guess.
    refuse(fd, error_reply(ReplyError{ReplyCode::internal, "cannot read peer credentials", {}}));
    return;
  }
  connections_.emplace_back(fd, service_.identify(peer->pid, peer->uid), limits_);
}

void Server::accept_all() {
  while (true) {
    const int fd = ::accept4(listener_.fd(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      accept_one(fd);
      continue;
    }
    // Out of descriptors, the pending connection stays readable: polling it again at once
    // would spin, so wait until a connection closes (or the next idle turn) instead.
    accept_paused_ = errno == EMFILE || errno == ENFILE;
    return;
  }
}

void Server::dispatch(TimeUs now_us) {
  for (const Task& settled : service_.advance(now_us)) {
    for (Connection& connection : connections_) connection.resolve(settled);
  }
  const auto now = std::chrono::steady_clock::now();
  for (Connection& connection : connections_) {
    connection.handle_lines(service_, now_us);
    connection.send();
    connection.drop_if_stuck(now);
  }
  if (std::erase_if(connections_, [](const Connection& c) { return c.finished(); }) > 0) {
    accept_paused_ = false;
  }
}

// One turn of the loop; false when told to stop or when poll() failed.
bool Server::turn(int stop_fd, int timeout_ms) {
  const short accepting = accept_paused_ ? 0 : POLLIN;
  accept_paused_ = false;  // retried after this turn at the latest
  std::vector<pollfd> fds{{stop_fd, POLLIN, 0}, {listener_.fd(), accepting, 0}};
  for (const Connection& connection : connections_) {
    fds.push_back({connection.fd(), connection.events(), 0});
  }
  if (::poll(fds.data(), fds.size(), timeout_ms) < 0) {
    if (errno == EINTR) return true;
    failure_ = std::unexpected(
        Error{ErrorCode::io, fmt::format("task server: poll failed: {}", std::strerror(errno))});
    return false;
  }
  if (fds[0].revents != 0) return false;
  for (std::size_t i = 0; i + 2 < fds.size(); ++i) {
    const auto revents = fds[i + 2].revents;
    if ((revents & POLLIN) != 0) {
      connections_[i].receive();
    } else if ((revents & (POLLHUP | POLLERR)) != 0) {
      connections_[i].hang_up();
    }
  }
  if ((fds[1].revents & POLLIN) != 0) accept_all();
  dispatch(clock_());
  return true;
}

int Server::poll_timeout_ms() const {
  if (std::ranges::any_of(connections_, &Connection::has_ready_lines)) return 0;
  return service_.has_ending() ? kWaitingTimeoutMs : static_cast<int>(idle_poll_.count());
}

std::expected<void, Error> Server::run(int stop_fd) {
  while (turn(stop_fd, poll_timeout_ms())) {
  }
  shut_down();
  return failure_;
}

void Server::shut_down() {
  listener_.close();
  for (const Task& settled : service_.settle_all()) {
    for (Connection& connection : connections_) connection.resolve(settled);
  }
  const auto deadline = std::chrono::steady_clock::now() + kShutdownGrace;
  while (std::chrono::steady_clock::now() < deadline) {
    std::vector<pollfd> fds;
    for (Connection& connection : connections_) {
      connection.send();
      if ((connection.events() & POLLOUT) != 0) fds.push_back({connection.fd(), POLLOUT, 0});
    }
    if (fds.empty() || ::poll(fds.data(), fds.size(), 100) < 0) break;
  }
  connections_.clear();
}

}  // namespace gpumeter::task

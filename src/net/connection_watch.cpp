// SPDX-License-Identifier: MIT
#include "net/connection_watch.h"

#include <linux/tcp.h>  // tcp_info with tcpi_bytes_received, which glibc's lacks
#include <netinet/in.h>
#include <sys/socket.h>

#include "net/blocked_signals.h"

namespace gpumeter::net {
namespace {

// How often deadlines are checked: a connection lives at most this much past its deadline.
constexpr std::chrono::milliseconds kCheckEvery{250};

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

tcp_info tcp_state(int fd) {
  tcp_info info{};
  socklen_t size = sizeof(info);
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0) return tcp_info{};
  return info;
}

// Bytes the kernel has received on a TCP socket (0 where it cannot tell).
std::uint64_t bytes_received(int fd) {
  return tcp_state(fd).tcpi_bytes_received;
}

}  // namespace

ConnectionWatch::Watched::Watched(int fd) : fd_(fd), since_ns_(now_ns()) {}

void ConnectionWatch::Watched::request_line_read() noexcept {
  in_request_ = true;
}

std::chrono::milliseconds ConnectionWatch::Watched::quiet() const noexcept {
  return std::chrono::milliseconds(tcp_state(fd_).tcpi_last_data_recv);
}

bool ConnectionWatch::Watched::unparsed_bytes() const noexcept {
  return !in_request_ && bytes_received(fd_) > answered_bytes_;
}

void ConnectionWatch::Watched::request_read() noexcept {
  since_ns_ = now_ns();
  responding_ = true;
}

void ConnectionWatch::Watched::response_sent() noexcept {
  since_ns_ = now_ns();
  responding_ = false;
  in_request_ = false;
  answered_bytes_ = bytes_received(fd_);
}

ConnectionWatch::ConnectionWatch(ConnectionDeadlines deadlines)
    : deadlines_(deadlines),
      thread_(with_signals_blocked([this] { return std::thread([this] { run(); }); })) {}

ConnectionWatch::~ConnectionWatch() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  for (Watched* connection : connections_) delete connection;  // NOLINT(*-owning-memory)
}

ConnectionWatch::Watched* ConnectionWatch::opened(int fd) {
  auto* connection = new Watched(fd);  // NOLINT(*-owning-memory): owned by the set
  const std::lock_guard lock(mutex_);
  connections_.insert(connection);
  return connection;
}

void ConnectionWatch::closed(Watched* connection) {
  {
    const std::lock_guard lock(mutex_);
    connections_.erase(connection);
  }
  delete connection;  // NOLINT(*-owning-memory)
}

std::size_t ConnectionWatch::open_connections() const {
  const std::lock_guard lock(mutex_);
  return connections_.size();
}

void ConnectionWatch::run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, kCheckEvery, [this] { return stopping_; })) cut_late(now_ns());
}

// Shutting the socket down (not closing it) leaves the descriptor to its owner, which still
// holds it: the watch never touches a descriptor after closed(), as both hold the mutex.
void ConnectionWatch::cut_late(std::int64_t now) {
  for (Watched* connection : connections_) {
    if (connection->cut_) continue;
    const auto limit = connection->responding_ ? deadlines_.response : deadlines_.request;
    const auto age = std::chrono::nanoseconds(now - connection->since_ns_);
    if (age <= limit) continue;
    ::shutdown(connection->fd_, SHUT_RDWR);
    connection->cut_ = true;
    ++cut_total_;
  }
}

}  // namespace gpumeter::net

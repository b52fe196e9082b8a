// SPDX-License-Identifier: MIT
// The task server: a poll() loop over the listening socket and its connections, in the
// calling thread. Each connection's peer is identified once, by SO_PEERCRED, when it is
// accepted; its requests go to the Service in order, and their replies come back in order.
#pragma once

#include <chrono>
#include <expected>
#include <functional>
#include <vector>

#include "core/error.h"
#include "core/wall_clock.h"
#include "task/connection.h"
#include "task/listener.h"
#include "task/service.h"

namespace gpumeter::task {

class Server {
 public:
  using Clock = std::function<TimeUs()>;

  // How long poll() sleeps when nothing waits (often enough to notice each sampler round:
  // processes that exited with tasks open).
  static constexpr std::chrono::milliseconds kIdlePoll{250};

  // The service and the listener must outlive the server. `idle_poll`: see kIdlePoll.
  Server(Service& service, Listener& listener, Limits limits, Clock clock = wall_clock_us,
         std::chrono::milliseconds idle_poll = kIdlePoll);

  // Serves until `stop_fd` becomes readable (a signalfd, an eventfd, a pipe). Then it stops
  // accepting and removes the socket, settles every waiting end with the figures there are,
  // gives the peers up to a second to take their replies, and closes every connection.
  // Errors: io when poll() itself fails.
  std::expected<void, Error> run(int stop_fd);

 private:
  bool turn(int stop_fd, int timeout_ms);
  // How long the next poll() may sleep: not at all while a connection has lines ready.
  int poll_timeout_ms() const;
  void accept_all();
  void accept_one(int fd);
  void dispatch(TimeUs now_us);
  void shut_down();

  Service& service_;
  Listener& listener_;
  Limits limits_;
  Clock clock_;
  std::chrono::milliseconds idle_poll_;
  std::vector<Connection> connections_;
  std::expected<void, Error> failure_;
  bool accept_paused_ = false;  // accept() ran out of descriptors
};

}  // namespace gpumeter::task

// SPDX-License-Identifier: MIT
#include "master/ticker.h"

#include <utility>

namespace gpumeter::master {

Ticker::Ticker(std::chrono::milliseconds interval, Round round, bool start_now)
    : interval_(interval),
      round_(std::move(round)),
      thread_([this, start_now](const std::stop_token& stop) { loop(stop, start_now); }) {}

Ticker::~Ticker() {
  thread_.request_stop();
  wake_.notify_all();
}

void Ticker::loop(const std::stop_token& stop, bool start_now) {
  auto next = std::chrono::steady_clock::now();
  bool skip = !start_now;
  while (!stop.stop_requested()) {
    if (!std::exchange(skip, false)) round_(stop);
    next += interval_;
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // overran: start the next round now, and keep the rhythm after
    std::unique_lock lock(mutex_);
    wake_.wait_until(lock, stop, next, [] { return false; });
  }
}

}  // namespace gpumeter::master

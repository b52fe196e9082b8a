#include "net/master_ticker.h"

#include <utility>

namespace gpumeter::net {

Ticker::Ticker(std::chrono::milliseconds interval, std::function<void()> round)
    : interval_(interval),
      round_(std::move(round)),
      thread_([this](const std::stop_token& stop) { loop(stop); }) {}

Ticker::~Ticker() {
  thread_.request_stop();
  wake_.notify_all();
}

void Ticker::loop(const std::stop_token& stop) {
  auto next = std::chrono::steady_clock::now();
  while (!stop.stop_requested()) {
    round_();
    next += interval_;
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // overran: start the next round now, and keep the rhythm after
    std::unique_lock lock(mutex_);
    wake_.wait_until(lock, stop, next, [] { return false; });
  }
}

}  // namespace gpumeter::net

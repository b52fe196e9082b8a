// Runs a round (the master's polls) every interval on its own thread until stopped. A round
// that overruns the interval is followed by the next at once, never by two at a time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace gpumeter::net {

class Ticker {
 public:
  // Starts the first round at once, or after one interval when `start_now` is false (the
  // caller ran one already). `round` must not throw.
  Ticker(std::chrono::milliseconds interval, std::function<void()> round, bool start_now = true);
  // Stops: waits for the round in progress, if any.
  ~Ticker();
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

 private:
  void loop(const std::stop_token& stop, bool start_now);

  std::chrono::milliseconds interval_;
  std::function<void()> round_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::jthread thread_;  // last: starts once the members above exist
};

}  // namespace gpumeter::net

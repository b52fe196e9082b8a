// SPDX-License-Identifier: MIT
// Runs a round (the master's polls) every interval on its own thread until stopped. A round
// that overruns the interval is followed by the next at once, never by two at a time. The round
// is handed the ticker's stop token, so that stopping cuts a round in progress short.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>

namespace gpumeter::master {

class Ticker {
 public:
  using Round = std::function<void(const std::stop_token&)>;

  // Starts the first round at once, or after one interval when `start_now` is false (the
  // caller ran one already). `round` must not throw, and should return soon once its token is
  // stopped.
  Ticker(std::chrono::milliseconds interval, Round round, bool start_now = true);
  // Stops: requests the round in progress to stop, and waits for it.
  ~Ticker();
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

 private:
  void loop(const std::stop_token& stop, bool start_now);

  std::chrono::milliseconds interval_;
  Round round_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::jthread thread_;  // last: starts once the members above exist
};

}  // namespace gpumeter::master

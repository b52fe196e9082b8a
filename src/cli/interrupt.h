// SPDX-License-Identifier: MIT
// Ctrl-C for the loops of `list --watch` and `available --wait`: while a scope is alive, the
// first SIGINT asks the loop to stop cleanly (it finishes what it prints and returns); a
// second one ends the program as usual.
#pragma once

#include <chrono>
#include <csignal>

namespace gpumeter::cli {

class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  bool interrupted() const noexcept;

  // Sleeps for `duration`, waking early on Ctrl-C. False when interrupted.
  bool sleep_for(std::chrono::milliseconds duration) const;

 private:
  struct sigaction previous_{};
};

}  // namespace gpumeter::cli

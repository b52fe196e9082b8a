// SPDX-License-Identifier: MIT
// Exponential backoff for a failing agent, counted in poll rounds so that it follows the poll
// interval and behaves the same under test as in service: after f failures in a row the agent
// is polled again min(2^(f-1), cap) rounds later (1, 2, 4, 8, ... rounds), and after a
// success at once, every round.
#pragma once

#include <cstdint>

namespace gpumeter::master {

class Backoff {
 public:
  // `max_wait_rounds`: the cap on the wait, at least 1 (1: never back off).
  explicit Backoff(std::uint32_t max_wait_rounds) noexcept;

  // Asked once per round: whether this round polls the agent. A false answer uses up one
  // round of the wait.
  bool due() noexcept;

  void succeeded() noexcept;
  void failed() noexcept;

  std::uint32_t consecutive_failures() const noexcept { return failures_; }
  // Rounds still to skip before the next poll.
  std::uint32_t rounds_to_skip() const noexcept { return skip_; }

 private:
  std::uint32_t max_wait_;
  std::uint32_t failures_ = 0;
  std::uint32_t skip_ = 0;
};

}  // namespace gpumeter::master

// SPDX-License-Identifier: MIT
// The signals `gpumeter run` handles while the command runs: SIGCHLD (a process of the tree
// ended) and those it passes on to the command (SIGINT, SIGTERM, SIGHUP, SIGQUIT). They are
// blocked in every thread (threads started later inherit the mask) and read from a signalfd,
// so that none interrupts gpumeter or ends it before the command has.
#pragma once

#include <signal.h>

#include <array>
#include <vector>

namespace gpumeter::run {

inline constexpr std::array kPassedOnSignals{SIGINT, SIGTERM, SIGHUP, SIGQUIT};

class RunSignals {
 public:
  RunSignals();
  ~RunSignals();  // unblocks, after taking what is still pending
  RunSignals(const RunSignals&) = delete;
  RunSignals& operator=(const RunSignals&) = delete;

  // -1 when the signalfd could not be made.
  int fd() const noexcept { return fd_; }
  // The mask before construction: what the command must start with.
  const sigset_t& previous_mask() const noexcept { return previous_; }

  struct Arrival {
    int signal = 0;
    // Sent by the kernel, as the terminal's Ctrl-C, Ctrl-\ and hangup are: the terminal sends
    // those to its whole foreground process group, the command included, so passing them on
    // would deliver them twice.
    bool from_kernel = false;
  };
  // What arrived since the last call, without waiting.
  std::vector<Arrival> take();

 private:
  sigset_t set_{};
  sigset_t previous_{};
  int fd_ = -1;
};

}  // namespace gpumeter::run

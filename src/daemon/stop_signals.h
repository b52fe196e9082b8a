// SPDX-License-Identifier: MIT
// How a long-running command (the daemon, the master) learns it should stop: SIGTERM and
// SIGINT arrive as readable data on a signalfd, which its server polls, instead of
// interrupting whichever thread they would land on.
#pragma once

#include <csignal>

namespace gpumeter::daemon {

// Blocks SIGTERM and SIGINT in the calling thread (threads started afterwards inherit the mask,
// so none is interrupted) and opens a signalfd on which they become readable. On destruction
// it takes the signals that arrived, so that unblocking them does not deliver them again (and
// end the process with their default action), then restores the previous mask. Construct it on
// the main thread before starting any other.
class StopSignals {
 public:
  StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  ~StopSignals();

  // Readable once a stop signal arrived; -1 when the signalfd could not be opened.
  int fd() const noexcept { return fd_; }

 private:
  sigset_t set_{};
  sigset_t previous_{};
  int fd_ = -1;
};

}  // namespace gpumeter::daemon

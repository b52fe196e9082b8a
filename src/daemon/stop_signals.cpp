// SPDX-License-Identifier: MIT
#include "daemon/stop_signals.h"

#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace gpumeter::daemon {

StopSignals::StopSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK);
}

StopSignals::~StopSignals() {
  signalfd_siginfo info{};
  while (fd_ >= 0 && ::read(fd_, &info, sizeof(info)) == static_cast<ssize_t>(sizeof(info))) {
  }
  if (fd_ >= 0) ::close(fd_);
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

}  // namespace gpumeter::daemon

// SPDX-License-Identifier: MIT
#include "run/signals.h"

#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace gpumeter::run {

RunSignals::RunSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGCHLD);
  for (int signal : kPassedOnSignals) sigaddset(&set_, signal);
  pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK);
}

RunSignals::~RunSignals() {
  // Taken here, a signal that arrived late is not delivered with its default action (which
  // would end gpumeter before it reports) when the mask is restored.
  (void)take();
  if (fd_ >= 0) ::close(fd_);
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

std::vector<RunSignals::Arrival> RunSignals::take() {
  std::vector<Arrival> arrived;
  signalfd_siginfo info{};
  while (fd_ >= 0 && ::read(fd_, &info, sizeof(info)) == static_cast<ssize_t>(sizeof(info))) {
    arrived.push_back({static_cast<int>(info.ssi_signo), info.ssi_code == SI_KERNEL});
  }
  return arrived;
}

}  // namespace gpumeter::run

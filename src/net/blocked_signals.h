// SPDX-License-Identifier: MIT
// Threads the HTTP server starts (its event loops, its deadline watch) take no process
// signals: the daemon and the master take SIGTERM and SIGINT on a signalfd or with sigwait,
// blocked in their threads, and a thread started before they block them would otherwise
// receive them and end the process with the signal's default action.
#pragma once

#include <pthread.h>

#include <csignal>

namespace gpumeter::net {

// Calls `start` (which starts threads, inheriting the mask) with every signal blocked in the
// calling thread, and restores the calling thread's mask afterwards. Returns what it returns.
template <class Start>
auto with_signals_blocked(Start&& start) {
  sigset_t all{};
  sigset_t previous{};
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  struct Restore {
    sigset_t mask;
    ~Restore() { pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
  } restore{previous};
  return start();
}

}  // namespace gpumeter::net

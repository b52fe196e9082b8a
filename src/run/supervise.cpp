// SPDX-License-Identifier: MIT
#include "run/supervise.h"

#include <poll.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <optional>

namespace gpumeter::run {
namespace {

using Clock = std::chrono::steady_clock;

struct Reaped {
  std::optional<int> command_status;
  bool children_left = true;
};

// Reaps every child that has exited, telling `exiting` of each first (while it can still be
// read in /proc as a zombie).
void reap(pid_t command, const SuperviseHooks& hooks, Reaped& reaped) {
  while (true) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      reaped.children_left = false;  // ECHILD: nobody left
      return;
    }
    if (info.si_pid == 0) return;  // children left, none exited
    hooks.exiting(static_cast<Pid>(info.si_pid));
    int status = 0;
    while (::waitpid(info.si_pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (info.si_pid == command) reaped.command_status = status;
  }
}

void pass_on(int signal, pid_t command, const Reaped& reaped, const SuperviseHooks& hooks) {
  if (!reaped.command_status) {
    ::kill(command, signal);
    return;
  }
  for (Pid pid : hooks.tree()) ::kill(static_cast<pid_t>(pid), signal);
}

int wait_ms(Clock::time_point until) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
  return static_cast<int>(std::max<std::chrono::milliseconds::rep>(0, left.count()) + 1);
}

}  // namespace

int supervise(pid_t command, RunSignals& signals, std::chrono::milliseconds interval,
              const SuperviseHooks& hooks) {
  Reaped reaped;
  Clock::time_point next_tick = Clock::now() + interval;
  while (true) {
    reap(command, hooks, reaped);
    if (reaped.command_status && !reaped.children_left) return *reaped.command_status;
    pollfd ready{.fd = signals.fd(), .events = POLLIN, .revents = 0};
    (void)::poll(&ready, 1, wait_ms(next_tick));
    for (const RunSignals::Arrival& arrival : signals.take()) {
      if (arrival.signal != SIGCHLD && !arrival.from_kernel) {
        pass_on(arrival.signal, command, reaped, hooks);
      }
    }
    if (Clock::now() >= next_tick) {
      hooks.tick();
      next_tick = Clock::now() + interval;
    }
  }
}

}  // namespace gpumeter::run

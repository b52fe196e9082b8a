// SPDX-License-Identifier: MIT
#include "daemon/stop_signals.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <csignal>

namespace gpumeter::daemon::stop_signals_test {

bool blocked(int signal) {
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  return sigismember(&mask, signal) == 1;
}

bool readable(int fd) {
  pollfd poll_fd{.fd = fd, .events = POLLIN, .revents = 0};
  return ::poll(&poll_fd, 1, 0) == 1 && (poll_fd.revents & POLLIN) != 0;
}

// Each test runs in a process of its own (one per test case), so the signals sent here reach
// nothing else.
TEST(StopSignals, ASignalBecomesReadableInsteadOfInterrupting) {
  ASSERT_FALSE(blocked(SIGTERM));
  const StopSignals signals;
  ASSERT_GE(signals.fd(), 0);
  EXPECT_TRUE(blocked(SIGTERM));
  EXPECT_TRUE(blocked(SIGINT));
  EXPECT_FALSE(readable(signals.fd()));

  ASSERT_EQ(::raise(SIGTERM), 0);  // would end the process if it were delivered
  ASSERT_TRUE(readable(signals.fd()));
  signalfd_siginfo info{};
  ASSERT_EQ(::read(signals.fd(), &info, sizeof(info)), static_cast<ssize_t>(sizeof(info)));
  EXPECT_EQ(info.ssi_signo, static_cast<std::uint32_t>(SIGTERM));
  EXPECT_FALSE(readable(signals.fd()));
}

// The signal that stopped the server is taken at the end, so the process exits with its own
// status instead of being killed when the mask is restored.
TEST(StopSignals, ASignalLeftUnreadIsTakenAndTheMaskRestored) {
  {
    const StopSignals signals;
    ASSERT_EQ(::raise(SIGINT), 0);
    ASSERT_TRUE(readable(signals.fd()));
  }
  EXPECT_FALSE(blocked(SIGTERM));
  EXPECT_FALSE(blocked(SIGINT));
  sigset_t pending;
  sigpending(&pending);
  EXPECT_EQ(sigismember(&pending, SIGINT), 0);
}

// A mask the caller had set is the one restored, not an empty one.
TEST(StopSignals, TheCallersOwnMaskIsKept) {
  sigset_t own;
  sigemptyset(&own);
  sigaddset(&own, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &own, nullptr);
  {
    const StopSignals signals;
  }
  EXPECT_TRUE(blocked(SIGUSR1));
  EXPECT_FALSE(blocked(SIGTERM));
  pthread_sigmask(SIG_UNBLOCK, &own, nullptr);
}

}  // namespace gpumeter::daemon::stop_signals_test

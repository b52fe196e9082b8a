// SPDX-License-Identifier: MIT
// Starting and supervising the command of `gpumeter run`, with real processes: a child that
// waits until released, failures to execute as shells report them, orphans waited for when
// this process is their subreaper, and a signal sent to us passed on to the command.
#include "run/child.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "run/signals.h"
#include "run/supervise.h"

namespace gpumeter::run::child_test {

sigset_t current_mask() {
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  return mask;
}

int wait_for(pid_t pid) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return status;
}

std::filesystem::path marker() {
  return std::filesystem::path(::testing::TempDir()) /
         ("gpumeter-run-child-" + std::to_string(::getpid()));
}

TEST(PendingChild, RunsTheCommandOnlyOnceReleased) {
  std::filesystem::remove(marker());
  auto child = PendingChild::fork({"touch", marker().string()}, current_mask());
  ASSERT_TRUE(child.has_value()) << child.error().message;
  const pid_t pid = child->pid();
  EXPECT_FALSE(std::filesystem::exists(marker()));
  ASSERT_TRUE(child->release().has_value());
  const int status = wait_for(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(std::filesystem::exists(marker()));
  std::filesystem::remove(marker());
}

TEST(PendingChild, AnAbandonedChildNeverRunsTheCommand) {
  std::filesystem::remove(marker());
  {
    auto child = PendingChild::fork({"touch", marker().string()}, current_mask());
    ASSERT_TRUE(child.has_value());
    child->abandon();
  }
  EXPECT_FALSE(std::filesystem::exists(marker()));
}

TEST(PendingChild, FailuresToExecuteAreTheShellsOnes) {
  const auto failure = [](const std::string& program) {
    auto child = PendingChild::fork({program}, current_mask());
    EXPECT_TRUE(child.has_value());
    const pid_t pid = child->pid();
    auto released = child->release();
    EXPECT_FALSE(released.has_value());
    const int status = wait_for(pid);
    EXPECT_TRUE(WIFEXITED(status));
    return released ? ExecFailure{0, "(ran)"} : released.error();
  };
  const ExecFailure missing = failure("gpumeter-no-such-command");
  EXPECT_EQ(missing.status, 127);
  EXPECT_EQ(missing.message, "gpumeter run: gpumeter-no-such-command: command not found");
  const ExecFailure no_path = failure("/nonexistent/tool");
  EXPECT_EQ(no_path.status, 127);
  EXPECT_EQ(no_path.message, "gpumeter run: /nonexistent/tool: No such file or directory");
  const ExecFailure directory = failure("/");
  EXPECT_EQ(directory.status, 126);
  EXPECT_EQ(directory.message, "gpumeter run: /: Permission denied");
}

// This test process acts as gpumeter: the subreaper of what it starts, its signals blocked.
class Supervise : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0); }
  void TearDown() override { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }

  pid_t start(const std::vector<std::string>& command) {
    auto child = PendingChild::fork(command, signals.previous_mask());
    EXPECT_TRUE(child.has_value());
    EXPECT_TRUE(child->release().has_value());
    return child->pid();
  }

  RunSignals signals;
  std::vector<Pid> exited;
  SuperviseHooks hooks{.tick = [] {},
                       .exiting = [this](Pid pid) { exited.push_back(pid); },
                       .tree = [] { return std::vector<Pid>{}; }};
};

TEST_F(Supervise, WaitsForTheOrphansTooAndGivesTheCommandsStatus) {
  const pid_t command = start({"sh", "-c", "sleep 0.3 & exit 5"});
  const int status = supervise(command, signals, std::chrono::milliseconds(100), hooks);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 5);
  EXPECT_EQ(exited.size(), 2U) << "the command and the orphaned sleep";
  EXPECT_NE(std::ranges::find(exited, static_cast<Pid>(command)), exited.end());
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "nobody left to reap";
}

TEST_F(Supervise, ASignalSentToUsGoesOnToTheCommand) {
  const pid_t command = start({"sleep", "30"});
  bool sent = false;
  hooks.tick = [&sent] {
    if (!sent) ::kill(::getpid(), SIGTERM);
    sent = true;
  };
  const int status = supervise(command, signals, std::chrono::milliseconds(100), hooks);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

}  // namespace gpumeter::run::child_test

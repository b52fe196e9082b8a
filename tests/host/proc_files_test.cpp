// SPDX-License-Identifier: MIT
#include "host/proc_files.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "host/files.h"
#include "host/proc_parse.h"

namespace gpumeter::host::proc_files_test {

const std::filesystem::path kFixtureProc = GPUMETER_HOST_FIXTURES "/root/proc";

using File = ProcFiles::File;

std::size_t open_descriptors() {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++count;
  }
  return count;
}

// A child that waits to be killed; killed and reaped by kill_and_reap().
pid_t spawn_sleeper() {
  const pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  return child;
}

void kill_and_reap(pid_t child) {
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

TEST(ProcFiles, ReadsTheFilesAsTheyAre) {
  ProcFiles files(kFixtureProc, 16);
  for (const File file : {File::stat, File::status}) {
    const char* name = file == File::stat ? "stat" : "status";
    const auto text = files.read(4242, file);
    ASSERT_TRUE(text.has_value()) << text.error().message();
    EXPECT_EQ(std::string(*text), read_file(kFixtureProc / "4242" / name).value());
    // Again, through the descriptor kept open.
    EXPECT_EQ(std::string(files.read(4242, file).value()),
              read_file(kFixtureProc / "4242" / name).value());
  }
  EXPECT_EQ(files.kept_processes(), 1U);
}

TEST(ProcFiles, ReadsAFileLongerThanItsFirstBuffer) {
  const auto proc =
      std::filesystem::temp_directory_path() / ("gpumeter-proc-files-" + std::to_string(getpid()));
  std::filesystem::create_directories(proc / "77");
  const std::string long_status = "Name:\tx\n" + std::string(10000, 'y') + "\nVmRSS:\t5 kB\n";
  std::ofstream(proc / "77" / "status", std::ios::binary) << long_status;
  std::ofstream(proc / "77" / "stat", std::ios::binary) << "77 (x) S";
  ProcFiles files(proc, 16);
  EXPECT_EQ(files.read(77, File::status).value(), long_status);
  EXPECT_EQ(files.read(77, File::status).value(), long_status);
  std::filesystem::remove_all(proc);
}

TEST(ProcFiles, AMissingProcessIsAnErrorAndNotKept) {
  ProcFiles files(kFixtureProc, 16);
  const auto text = files.read(99999, File::stat);
  ASSERT_FALSE(text.has_value());
  EXPECT_EQ(text.error(), std::errc::no_such_file_or_directory);
  EXPECT_EQ(files.kept_processes(), 0U);
}

TEST(ProcFiles, AKeptProcessThatWasReapedIsGoneNotAnother) {
  const pid_t child = spawn_sleeper();
  ASSERT_GT(child, 0);
  ProcFiles files("/proc", 16);
  const auto pid = static_cast<Pid>(child);
  const auto before = files.read(pid, File::stat);
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(parse_stat(*before)->pid, pid);
  ASSERT_EQ(files.kept_processes(), 1U);
  kill_and_reap(child);
  const auto after = files.read(pid, File::stat);
  ASSERT_FALSE(after.has_value());
  EXPECT_EQ(after.error(), std::errc::no_such_file_or_directory);
  EXPECT_EQ(files.kept_processes(), 0U);
}

TEST(ProcFiles, ProcessesBeyondTheBudgetAreReadByPath) {
  ProcFiles files("/proc", 1);
  const auto self = static_cast<Pid>(getpid());
  const auto parent = static_cast<Pid>(getppid());
  ASSERT_TRUE(files.read(self, File::status).has_value());
  const auto other = files.read(parent, File::stat);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(parse_stat(*other)->pid, parent);
  EXPECT_EQ(files.kept_processes(), 1U);
  ProcFiles none("/proc", 0);
  ASSERT_TRUE(none.read(self, File::stat).has_value());
  EXPECT_EQ(none.kept_processes(), 0U);
}

TEST(ProcFiles, ClosesTheDescriptorsOfProcessesNotReadLately) {
  const pid_t child = spawn_sleeper();
  ASSERT_GT(child, 0);
  const std::size_t open_before = open_descriptors();
  {
    ProcFiles files("/proc", 16);
    ASSERT_TRUE(files.read(static_cast<Pid>(getpid()), File::stat).has_value());
    ASSERT_TRUE(files.read(static_cast<Pid>(child), File::stat).has_value());
    EXPECT_EQ(open_descriptors(), open_before + 4);  // stat and status of each
    files.close_unread();  // both were read since the last call: both stay
    EXPECT_EQ(files.kept_processes(), 2U);
    ASSERT_TRUE(files.read(static_cast<Pid>(getpid()), File::status).has_value());
    files.close_unread();
    EXPECT_EQ(files.kept_processes(), 1U);
    EXPECT_EQ(open_descriptors(), open_before + 2);
  }
  EXPECT_EQ(open_descriptors(), open_before);
  kill_and_reap(child);
}

// Runs `check` with the soft descriptor limit at `soft` (when the hard limit allows it), then
// restores the limit.
template <class Check>
void with_soft_limit(rlim_t soft, Check check) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < soft) return;
  rlimit lowered = saved;
  lowered.rlim_cur = soft;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
  check();
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
}

TEST(ProcFiles, TheDefaultBudgetLeavesRoomForEverythingElse) {
  with_soft_limit(1024, [] { EXPECT_EQ(default_kept_processes(), 128U); });
  with_soft_limit(512, [] { EXPECT_EQ(default_kept_processes(), 0U); });
  with_soft_limit(20000, [] { EXPECT_EQ(default_kept_processes(), 4096U); });  // the cap
}

}  // namespace gpumeter::host::proc_files_test

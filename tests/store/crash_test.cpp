// SPDX-License-Identifier: MIT
// Crash safety: a writer process (crash_writer.cpp) is killed with SIGKILL at random moments,
// twenty times or more, while it writes batches and keeps the tiers; afterwards the database must
// be sound and hold every batch the writer reported as committed, each one whole.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::crash_test {

using gpumeter::testing::TempDir;

struct Killed {
  std::vector<std::uint64_t> reported;  // batch numbers committed before the kill
  bool by_sigkill = false;
};

std::vector<std::uint64_t> parse(const std::string& text) {
  std::vector<std::uint64_t> numbers;
  std::istringstream lines(text);
  for (std::uint64_t n = 0; lines >> n;) numbers.push_back(n);
  return numbers;
}

struct Writer {
  pid_t pid = -1;
  int output = -1;  // the read end of its stdout
};

Writer start_writer(const std::filesystem::path& database) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return {};
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::execl(GPUMETER_CRASH_WRITER, GPUMETER_CRASH_WRITER, database.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  return Writer{child, pipe_fds[0]};
}

// Kills the writer and collects what it reported.
Killed kill_writer(const Writer& writer, std::string output = {}) {
  ::kill(writer.pid, SIGKILL);
  int status = 0;
  ::waitpid(writer.pid, &status, 0);
  char buffer[4096];
  for (ssize_t got = 0; (got = ::read(writer.output, buffer, sizeof buffer)) > 0;)
    output.append(buffer, static_cast<std::size_t>(got));
  ::close(writer.output);
  return Killed{parse(output), WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL};
}

// Starts the writer on `database`, lets it run for `delay`, kills it and collects its reports.
Killed run_and_kill(const std::filesystem::path& database, std::chrono::milliseconds delay) {
  const Writer writer = start_writer(database);
  if (writer.pid < 0) return {};
  std::this_thread::sleep_for(delay);
  return kill_writer(writer);
}

// How long the writer takes from its start to its first committed batch on this machine (a
// sanitizer build, a loaded machine: several times an optimised build's), so that the kills'
// moments cover its start and its writing alike; its report counts as committed.
std::chrono::milliseconds time_to_first_batch(const std::filesystem::path& database,
                                              std::set<std::uint64_t>& committed) {
  const auto start = std::chrono::steady_clock::now();
  const Writer writer = start_writer(database);
  if (writer.pid < 0) return std::chrono::milliseconds(0);
  std::string output;
  char buffer[4096];
  while (output.find('\n') == std::string::npos) {
    const ssize_t got = ::read(writer.output, buffer, sizeof buffer);
    if (got <= 0) break;
    output.append(buffer, static_cast<std::size_t>(got));
  }
  const auto taken = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  const Killed killed = kill_writer(writer, output);
  committed.insert(killed.reported.begin(), killed.reported.end());
  return taken;
}

TEST(Crash, EveryCommittedBatchSurvivesTheKills) {
  TempDir dir;
  const auto database = dir / "crash.db";
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE(::testing::Message() << "random seed " << seed);
  std::mt19937 random(seed);
  std::set<std::uint64_t> committed;
  // The first start makes the schema; the second shows how long a start on the existing
  // database takes to commit a batch. The kills then fall anywhere from the start to 120 ms of
  // writing past that.
  (void)time_to_first_batch(database, committed);
  const auto first_batch = time_to_first_batch(database, committed);
  ::testing::Test::RecordProperty("first_batch_ms", static_cast<int>(first_batch.count()));
  std::uniform_int_distribution<int> delay_ms(0, static_cast<int>(first_batch.count()) + 120);
  // Twenty kills at least, and more until twenty batches are in: a kill during the start (each
  // step of the schema a transaction of its own) is part of the test too, and commits none.
  constexpr int kMostRuns = 200;
  int runs = 0;
  for (; runs < kMostRuns && (runs < 20 || committed.size() < 20); ++runs) {
    const Killed killed = run_and_kill(database, std::chrono::milliseconds(delay_ms(random)));
    ASSERT_TRUE(killed.by_sigkill) << "the writer stopped by itself in run " << runs;
    committed.insert(killed.reported.begin(), killed.reported.end());
  }
  ASSERT_GE(committed.size(), 20U) << "too few batches to tell anything after " << runs << " kills";
  ::testing::Test::RecordProperty("kills", runs);
  ::testing::Test::RecordProperty("committed_batches", static_cast<int>(committed.size()));

  Store store = testing::open_store(database, {.host = "crash-host"});
  const auto problems = store.integrity_check();
  ASSERT_TRUE(problems) << problems.error().message;
  EXPECT_TRUE(problems->empty()) << problems->front();
  testing::RawDatabase raw(database);
  EXPECT_EQ(raw.text("PRAGMA integrity_check"), "ok");
  for (const std::uint64_t n : committed) {
    const TimeUs second = testing::kT0 + static_cast<TimeUs>(n) * testing::kMinute;
    ASSERT_EQ(raw.integer(fmt::format("SELECT count(*) FROM tasks WHERE task_id = {}", n)), 1)
        << "batch " << n;
    ASSERT_EQ(raw.integer(fmt::format("SELECT count(*) FROM device_samples WHERE time_us >= {} "
                                      "AND time_us < {}",
                                      second, second + testing::kSecond)),
              200)
        << "batch " << n;
  }
  // Each batch is whole: every task stored came with its one second of held GPU.
  const auto tasks = raw.integer("SELECT count(*) FROM tasks");
  EXPECT_GE(tasks, static_cast<std::int64_t>(committed.size()));
  EXPECT_DOUBLE_EQ(raw.real("SELECT total(gpu_seconds) FROM ledger"), static_cast<double>(tasks));
}

}  // namespace gpumeter::store::crash_test

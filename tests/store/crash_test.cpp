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

// Starts the writer on `database`, lets it run for `delay`, kills it and collects its reports.
Killed run_and_kill(const std::filesystem::path& database, std::chrono::milliseconds delay) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return {};
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::execl(GPUMETER_CRASH_WRITER, GPUMETER_CRASH_WRITER, database.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  std::this_thread::sleep_for(delay);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  std::string output;
  char buffer[4096];
  for (ssize_t got = 0; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    output.append(buffer, static_cast<std::size_t>(got));
  ::close(pipe_fds[0]);
  return Killed{parse(output), WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL};
}

TEST(Crash, EveryCommittedBatchSurvivesTheKills) {
  TempDir dir;
  const auto database = dir / "crash.db";
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE(::testing::Message() << "random seed " << seed);
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> delay_ms(0, 120);
  std::set<std::uint64_t> committed;
  // Twenty kills at least, and more until twenty batches are in: on a loaded machine the first
  // runs may spend their time starting and making the schema (each step a transaction of its
  // own, so a kill there is part of the test too) and commit no batch.
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

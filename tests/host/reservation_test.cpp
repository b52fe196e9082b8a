// SPDX-License-Identifier: MIT
#include "host/reservation.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

#include "host/files.h"
#include "host/procfs.h"
#include "host/reservation_record.h"

namespace gpumeter::host::reservation_test {

namespace fs = std::filesystem;
using Uuids = std::vector<std::string>;

const Uuids kGpus = {"GPU-aaaa", "GPU-bbbb", "GPU-cccc"};

class ReservationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("gpumeter-reservations-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    fs::create_directories(base_);
    dir_ = base_ / "reservations";
  }
  void TearDown() override { fs::remove_all(base_); }

  Reservations reservations(std::chrono::seconds grace = std::chrono::seconds{30}) const {
    return Reservations({.directory = dir_, .grace = grace});
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary | std::ios::trunc) << text;
  }

  fs::path base_;
  fs::path dir_;
};

int my_pid() {
  return static_cast<int>(getpid());
}

// A pid that no process has now: a child that already exited and was reaped.
int dead_pid() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return static_cast<int>(child);
}

TEST_F(ReservationsTest, ReservesInPreferenceOrderUntilNoneAreLeft) {
  auto first = reservations().reserve(kGpus, 2, my_pid());
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_EQ(*first, (Uuids{"GPU-aaaa", "GPU-bbbb"}));
  EXPECT_EQ(reservations().reserve(kGpus, 2, my_pid()).value_or(Uuids{"failed"}),
            Uuids{"GPU-cccc"});
  EXPECT_EQ(reservations().reserve(kGpus, 1, my_pid()).value_or(Uuids{"failed"}), Uuids{});
}

TEST_F(ReservationsTest, TooFewToReachTheMinimumHoldsNothing) {
  ASSERT_EQ(reservations().reserve(kGpus, 1, my_pid()).value_or(Uuids{}), Uuids{"GPU-aaaa"});
  EXPECT_EQ(reservations().reserve(kGpus, 3, my_pid(), 3).value_or(Uuids{"failed"}), Uuids{});
  // The two that were free for a moment are free again.
  EXPECT_EQ(reservations().reserve(kGpus, 2, my_pid(), 2).value_or(Uuids{}),
            (Uuids{"GPU-bbbb", "GPU-cccc"}));
}

TEST_F(ReservationsTest, CreatesAPrivateDirectoryAndWholeRecords) {
  ASSERT_TRUE(reservations().reserve({"GPU-aaaa"}, 1, my_pid()).has_value());
  struct stat info{};
  ASSERT_EQ(stat(dir_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777U, 0700U);
  auto record = parse_record(read_file(dir_ / "GPU-aaaa").value_or(""));
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->owner_pid, my_pid());
  EXPECT_EQ(record->owner_start_ticks,
            process_start_ticks("/", static_cast<Pid>(my_pid())).value());
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_FALSE(entry.path().filename().string().starts_with(".tmp-")) << entry.path();
  }
}

TEST_F(ReservationsTest, SkipsEmptyAndRepeatedCandidates) {
  auto got = reservations().reserve({"", "GPU-aaaa", "GPU-aaaa", "GPU-bbbb"}, 3, my_pid());
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, (Uuids{"GPU-aaaa", "GPU-bbbb"}));
  EXPECT_EQ(reservations().reserve(kGpus, 0, my_pid()).value_or(Uuids{"failed"}), Uuids{});
}

TEST_F(ReservationsTest, RejectsAnInvalidOwner) {
  auto got = reservations().reserve(kGpus, 1, 0);
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().code, ErrorCode::invalid_input);
}

TEST_F(ReservationsTest, LiveOwnerHoldsUntilExpiry) {
  ASSERT_TRUE(reservations(std::chrono::hours{1}).reserve({"GPU-aaaa"}, 1, my_pid()).has_value());
  EXPECT_EQ(reservations().reserve({"GPU-aaaa"}, 1, my_pid()).value_or(Uuids{"failed"}), Uuids{});
}

TEST_F(ReservationsTest, ExpiredReservationIsReclaimedWhileItsOwnerLives) {
  ASSERT_TRUE(reservations(std::chrono::seconds{0}).reserve({"GPU-aaaa"}, 1, my_pid()).has_value());
  EXPECT_EQ(reservations().reserve({"GPU-aaaa"}, 1, my_pid()).value_or(Uuids{}), Uuids{"GPU-aaaa"});
}

TEST_F(ReservationsTest, DeadOwnerReleasesBeforeExpiry) {
  const int owner = dead_pid();
  ASSERT_EQ(reservations(std::chrono::hours{1}).reserve({"GPU-aaaa"}, 1, owner).value_or(Uuids{}),
            Uuids{"GPU-aaaa"});
  EXPECT_EQ(reservations().reserve({"GPU-aaaa"}, 1, my_pid()).value_or(Uuids{}), Uuids{"GPU-aaaa"});
  auto record = parse_record(read_file(dir_ / "GPU-aaaa").value_or(""));
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->owner_pid, my_pid());
}

TEST_F(ReservationsTest, ReusedOwnerPidIsReclaimed) {
  ASSERT_TRUE(reservations().reserve({}, 0, my_pid()).has_value());  // creates the directory
  const auto start = process_start_ticks("/", static_cast<Pid>(my_pid())).value();
  ReservationRecord other{.owner_pid = my_pid(), .owner_start_ticks = start + 1, .expires_us = 0};
  write("GPU-aaaa", format_record(other));
  EXPECT_EQ(reservations().reserve({"GPU-aaaa"}, 1, my_pid()).value_or(Uuids{}), Uuids{"GPU-aaaa"});
}

TEST_F(ReservationsTest, MalformedRecordsAndLeftoverTemporariesAreReclaimed) {
  ASSERT_TRUE(reservations().reserve({}, 0, my_pid()).has_value());
  write("GPU-aaaa", "owner_pid 12");
  write(".tmp-GPU-bbbb-999", "owner_pid 1\n");
  EXPECT_EQ(reservations().reserve({"GPU-aaaa"}, 1, my_pid()).value_or(Uuids{}), Uuids{"GPU-aaaa"});
  EXPECT_FALSE(fs::exists(dir_ / ".tmp-GPU-bbbb-999"));
}

TEST_F(ReservationsTest, RefusesAWorldWritableDirectory) {
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::all);
  auto got = reservations().reserve(kGpus, 1, my_pid());
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().code, ErrorCode::no_permission);
  EXPECT_NE(got.error().message.find(dir_.string()), std::string::npos) << got.error().message;
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(ReservationsTest, RefusesAGroupWritableDirectory) {
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_write | fs::perms::group_exec);
  auto got = reservations().reserve(kGpus, 1, my_pid());
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().code, ErrorCode::no_permission);
}

TEST_F(ReservationsTest, RefusesADirectoryOfAnotherUser) {
  if (geteuid() != 0) GTEST_SKIP() << "only root can give a directory away";
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::owner_all);
  ASSERT_EQ(chown(dir_.c_str(), 65534, 65534), 0);
  auto got = reservations().reserve(kGpus, 1, my_pid());
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().code, ErrorCode::no_permission);
  EXPECT_NE(got.error().message.find("uid 65534"), std::string::npos) << got.error().message;
}

TEST_F(ReservationsTest, RefusesASymbolicLink) {
  fs::create_directory(base_ / "elsewhere");
  fs::permissions(base_ / "elsewhere", fs::perms::owner_all);
  fs::create_directory_symlink(base_ / "elsewhere", dir_);
  auto got = reservations().reserve(kGpus, 1, my_pid());
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().code, ErrorCode::no_permission);
}

// Sets an environment variable for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST_F(ReservationsTest, DefaultDirectoryUnderXdgRuntimeDir) {
  ScopedEnv env("XDG_RUNTIME_DIR", base_.string());
  auto got = Reservations({}).reserve({"GPU-aaaa"}, 1, my_pid());
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_TRUE(fs::exists(base_ / "gpumeter" / "reservations" / "GPU-aaaa"));
}

TEST_F(ReservationsTest, DefaultDirectoryRefusesAPlantedParent) {
  ScopedEnv env("XDG_RUNTIME_DIR", base_.string());
  fs::create_directory(base_ / "gpumeter");
  fs::permissions(base_ / "gpumeter", fs::perms::all);
  auto got = Reservations({}).reserve({"GPU-aaaa"}, 1, my_pid());
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().code, ErrorCode::no_permission);
  EXPECT_FALSE(fs::exists(base_ / "gpumeter" / "reservations"));
}

// Each child waits at the barrier (a pipe nobody writes to: reads return when the parent
// closes it), reserves one GPU and reports it as one line, shorter than PIPE_BUF so that
// concurrent writes do not interleave.
[[noreturn]] void reserving_child(int barrier, int results, const fs::path& dir) {
  char byte = 0;
  while (read(barrier, &byte, 1) > 0) {
  }
  auto got = Reservations({.directory = dir}).reserve(kGpus, 1, static_cast<int>(getppid()));
  std::string line = !got ? "error " + got.error().message : got->empty() ? "none" : got->front();
  line += '\n';
  ssize_t ignored = write(results, line.data(), line.size());
  static_cast<void>(ignored);
  _exit(got ? 0 : 1);
}

std::vector<std::string> race(const fs::path& dir, int children) {
  int barrier[2];
  int results[2];
  if (pipe(barrier) != 0 || pipe(results) != 0) return {"pipe failed"};
  std::vector<pid_t> pids;
  for (int i = 0; i < children; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      close(barrier[1]);
      close(results[0]);
      reserving_child(barrier[0], results[1], dir);
    }
    pids.push_back(pid);
  }
  close(barrier[0]);
  close(results[1]);
  close(barrier[1]);  // everyone go
  std::string all;
  char chunk[256];
  for (ssize_t got; (got = read(results[0], chunk, sizeof chunk)) > 0;)
    all.append(chunk, static_cast<std::size_t>(got));
  close(results[0]);
  for (pid_t pid : pids) waitpid(pid, nullptr, 0);
  std::vector<std::string> lines;
  std::istringstream in(all);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(ReservationsTest, ConcurrentReservationsNeverShareAGpu) {
  constexpr int kChildren = 8;
  for (int round = 0; round < 10; ++round) {
    const fs::path dir = base_ / ("round-" + std::to_string(round));
    std::vector<std::string> lines = race(dir, kChildren);
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(kChildren));
    std::multiset<std::string> reserved;
    for (const std::string& line : lines) {
      ASSERT_FALSE(line.starts_with("error")) << line;
      if (line != "none") reserved.insert(line);
    }
    // Three GPUs, eight takers, one live owner (this process): each GPU exactly once.
    EXPECT_EQ(reserved, (std::multiset<std::string>{"GPU-aaaa", "GPU-bbbb", "GPU-cccc"}))
        << "round " << round;
  }
}

}  // namespace gpumeter::host::reservation_test

// SPDX-License-Identifier: MIT
#include "host/procfs.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

namespace gpumeter::host::procfs_test {

const std::filesystem::path kFixtureRoot = GPUMETER_HOST_FIXTURES "/root";
constexpr std::int64_t kFixtureBootTimeS = 1'700'000'000;

// Why `value` is absent; empty when it is present.
template <class T>
std::optional<Unavailable> reason(const Maybe<T>& value) {
  if (value) return std::nullopt;
  return value.error();
}

TimeUs fixture_start_us(std::int64_t ticks) {
  return kFixtureBootTimeS * 1'000'000 + ticks * 1'000'000 / sysconf(_SC_CLK_TCK);
}

HostProcess describe_fixture(Pid pid) {
  ProcfsProcessSource source(kFixtureRoot);
  auto process = source.describe(pid);
  EXPECT_TRUE(process.has_value()) << "pid " << pid;
  return process.value_or(HostProcess{});
}

TEST(ProcfsFixture, PythonTrainingScript) {
  HostProcess p = describe_fixture(4242);
  EXPECT_EQ(p.pid, 4242U);
  EXPECT_EQ(p.uid, 1000U);
  EXPECT_EQ(p.user, "alice");
  EXPECT_EQ(p.comm, "python3");
  EXPECT_EQ(p.cmdline,
            (std::vector<std::string>{"python3", "-u", "/home/alice/train.py", "--lr", "3"}));
  EXPECT_EQ(p.start_time_us, fixture_start_us(123456));
  EXPECT_FALSE(p.container);
  EXPECT_FALSE(p.namespace_pid);
}

TEST(ProcfsFixture, JupyterKernel) {
  HostProcess p = describe_fixture(5151);
  EXPECT_EQ(p.user, "bob");
  ASSERT_TRUE(p.cmdline.has_value());
  EXPECT_EQ(p.cmdline->at(2), "ipykernel_launcher");
  EXPECT_EQ(p.start_time_us, fixture_start_us(200000));
}

TEST(ProcfsFixture, DockerContainerProcessWithItsOwnPidNamespace) {
  HostProcess p = describe_fixture(6161);
  EXPECT_EQ(p.user, "root");
  ASSERT_TRUE(p.container.has_value());
  EXPECT_EQ(p.container->runtime, "docker");
  EXPECT_EQ(p.container->id, "3f4e8a1b2c9d0e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f");
  EXPECT_EQ(p.namespace_pid, 1U);
}

TEST(ProcfsFixture, KubernetesPodProcessOfAnUnknownUid) {
  HostProcess p = describe_fixture(7171);
  EXPECT_EQ(p.uid, 2000U);
  ASSERT_FALSE(p.user.has_value());
  EXPECT_EQ(p.user.error(), Unavailable::not_supported);
  ASSERT_TRUE(p.container.has_value());
  EXPECT_EQ(p.container->runtime, "kubernetes");
  EXPECT_EQ(p.container->id, "1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809");
  EXPECT_EQ(p.namespace_pid, 42U);
}

TEST(ProcfsFixture, SlurmJobWithoutTrailingNul) {
  HostProcess p = describe_fixture(8181);
  EXPECT_EQ(p.user, "carol");
  EXPECT_EQ(p.cmdline, (std::vector<std::string>{"./a.out", "--steps", "100"}));
  ASSERT_TRUE(p.container.has_value());
  EXPECT_EQ(p.container->runtime, "slurm");
  EXPECT_EQ(p.container->id, "98765");
}

TEST(ProcfsFixture, CommWithSpacesAndParentheses) {
  HostProcess p = describe_fixture(9191);
  EXPECT_EQ(p.comm, "x) y (z)");
  EXPECT_EQ(p.start_time_us, fixture_start_us(600000));
}

TEST(ProcfsFixture, KernelThreadHasNoCommandLine) {
  HostProcess p = describe_fixture(37);
  EXPECT_EQ(p.comm, "kworker/1:0-events");
  ASSERT_FALSE(p.cmdline.has_value());
  EXPECT_EQ(p.cmdline.error(), Unavailable::not_supported);
  EXPECT_EQ(p.user, "root");
  EXPECT_FALSE(p.container);
}

TEST(ProcfsFixture, MissingPidIsGone) {
  ProcfsProcessSource source(kFixtureRoot);
  auto process = source.describe(99999);
  ASSERT_FALSE(process.has_value());
  EXPECT_EQ(process.error(), Unavailable::process_gone);
  ASSERT_FALSE(source.usage(99999, UsageDetail::with_peak).has_value());
  EXPECT_EQ(source.usage(99999, UsageDetail::with_peak).error(), Unavailable::process_gone);
}

TEST(ProcfsFixture, UsageFromStatAndStatus) {
  ProcfsProcessSource source(kFixtureRoot);
  auto usage = source.usage(4242, UsageDetail::with_peak);
  ASSERT_TRUE(usage.has_value());
  const std::int64_t hz = sysconf(_SC_CLK_TCK);
  EXPECT_EQ(usage->cpu_user_us, 1500 * 1'000'000 / hz);
  EXPECT_EQ(usage->cpu_system_us, 300 * 1'000'000 / hz);
  EXPECT_EQ(usage->rss_bytes, 102400U * 1024U);
  EXPECT_EQ(usage->peak_rss_bytes, 204800U * 1024U);
}

TEST(ProcfsFixture, KernelThreadUsageHasNoMemory) {
  ProcfsProcessSource source(kFixtureRoot);
  auto usage = source.usage(37, UsageDetail::with_peak);
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->cpu_system_us, 42 * 1'000'000 / sysconf(_SC_CLK_TCK));
  EXPECT_EQ(reason(usage->rss_bytes), Unavailable::not_supported);
}

TEST(ProcfsFixture, StartTicks) {
  EXPECT_EQ(process_start_ticks(kFixtureRoot, 9191), 600000U);
  EXPECT_EQ(reason(process_start_ticks(kFixtureRoot, 99999)), Unavailable::process_gone);
}

// A scratch root the test can break in ways a checked-in fixture cannot.
class ScratchRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("gpumeter-procfs-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::copy(kFixtureRoot, root_, std::filesystem::copy_options::recursive);
  }
  void TearDown() override {
    std::filesystem::permissions(root_ / "proc", std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add);
    std::filesystem::remove_all(root_);
  }
  void write(const std::filesystem::path& relative, const std::string& text) {
    std::ofstream(root_ / relative, std::ios::binary | std::ios::trunc) << text;
  }
  std::filesystem::path root_;
};

TEST_F(ScratchRoot, UnparsableStatLeavesOnlyItsFieldsAbsent) {
  write("proc/4242/stat", "garbage");
  ProcfsProcessSource source(root_);
  auto p = source.describe(4242);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(reason(p->comm), Unavailable::error);
  EXPECT_EQ(reason(p->start_time_us), Unavailable::error);
  EXPECT_EQ(p->user, "alice");
  EXPECT_TRUE(p->cmdline.has_value());
}

TEST_F(ScratchRoot, MissingBootTimeLeavesOnlyStartTimeAbsent) {
  write("proc/stat", "cpu 1 2 3\n");
  ProcfsProcessSource source(root_);
  auto p = source.describe(4242);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(reason(p->start_time_us), Unavailable::error);
  EXPECT_EQ(p->comm, "python3");
}

TEST_F(ScratchRoot, MissingFileOfALiveProcessIsAnAbsentField) {
  std::filesystem::remove(root_ / "proc/4242/status");
  ProcfsProcessSource source(root_);
  auto p = source.describe(4242);
  ASSERT_TRUE(p.has_value());
  EXPECT_FALSE(p->uid.has_value());
  EXPECT_FALSE(p->user.has_value());
  EXPECT_EQ(p->comm, "python3");
}

// Root reads every file, so as root the check runs in a child that has given root up.
template <class Check>
void expect_unprivileged(Check check) {
  if (geteuid() != 0) {
    EXPECT_TRUE(check());
    return;
  }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const bool ok = setgid(65534) == 0 && setuid(65534) == 0 && check();
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(ScratchRoot, UnreadableFilesMeanNoPermission) {
  for (const char* name : {"stat", "status", "cmdline", "cgroup"}) {
    std::filesystem::permissions(root_ / "proc/4242" / name, std::filesystem::perms::none);
  }
  expect_unprivileged([this] {
    ProcfsProcessSource source(root_);
    auto p = source.describe(4242);
    return !p.has_value() && p.error() == Unavailable::no_permission;
  });
}

TEST_F(ScratchRoot, UnreadableCmdlineIsAnAbsentField) {
  std::filesystem::permissions(root_ / "proc/4242/cmdline", std::filesystem::perms::none);
  expect_unprivileged([this] {
    ProcfsProcessSource source(root_);
    auto p = source.describe(4242);
    return p.has_value() && reason(p->cmdline) == Unavailable::no_permission && p->user == "alice";
  });
}

// A source on the scratch root whose descriptions age by a clock the test steps.
class CachingSource : public ScratchRoot {
 protected:
  using Clock = std::chrono::steady_clock;
  ProcfsProcessSource source() {
    return ProcfsProcessSource(root_, ProcfsOptions{.clock = [this] { return now_; }});
  }
  void set_cmdline(const std::string& first_argument) {
    write("proc/4242/cmdline", first_argument + std::string("\0train.py\0", 10));
  }
  // The fixture's stat line with another comm and start time (field 22).
  void set_stat(const std::string& comm, const std::string& start_ticks) {
    write("proc/4242/stat",
          "4242 (" + comm + ") S 1 4242 4242 0 -1 4194560 52000 0 120 0 1500 300 0 0 20 0 8 0 " +
              start_ticks + " 9876543210 25600 18446744073709551615 1 1 0 0\n");
  }
  Clock::time_point now_{};
};

TEST_F(CachingSource, ADescriptionIsReusedWhileFresh) {
  ProcfsProcessSource source = this->source();
  ASSERT_EQ(source.describe(4242)->cmdline->front(), "python3");
  set_cmdline("renamed");
  now_ += kDescriptionMaxAge - std::chrono::seconds(1);
  EXPECT_EQ(source.describe(4242)->cmdline->front(), "python3");
  now_ += std::chrono::seconds(1);
  EXPECT_EQ(source.describe(4242)->cmdline->front(), "renamed");
}

TEST_F(CachingSource, ANewStartTimeIsDescribedAfreshAtOnce) {
  ProcfsProcessSource source = this->source();
  ASSERT_EQ(source.describe(4242)->start_time_us, fixture_start_us(123456));
  set_stat("python3", "999999");  // the pid now belongs to another process
  set_cmdline("other");
  const auto p = source.describe(4242);
  EXPECT_EQ(p->start_time_us, fixture_start_us(999999));
  EXPECT_EQ(p->cmdline->front(), "other");
}

TEST_F(CachingSource, ANewCommIsDescribedAfreshAtOnce) {
  ProcfsProcessSource source = this->source();
  ASSERT_EQ(source.describe(4242)->comm, "python3");
  set_stat("torchrun", "123456");  // the process exec()d
  set_cmdline("torchrun");
  const auto p = source.describe(4242);
  EXPECT_EQ(p->comm, "torchrun");
  EXPECT_EQ(p->cmdline->front(), "torchrun");
}

TEST_F(CachingSource, UsageIsReadAfreshOnEveryCall) {
  ProcfsProcessSource source = this->source();
  ASSERT_EQ(source.usage(4242, UsageDetail::with_peak)->rss_bytes, 102400U * 1024U);
  write("proc/4242/status", "Uid:\t1000\t1000\t1000\t1000\nVmHWM:\t300000 kB\nVmRSS:\t250000 kB\n");
  const auto usage = source.usage(4242, UsageDetail::with_peak);
  EXPECT_EQ(usage->rss_bytes, 250000U * 1024U);
  EXPECT_EQ(usage->peak_rss_bytes, 300000U * 1024U);
}

TEST_F(CachingSource, ARoundReadsStatOnceForDescribeAndUsage) {
  ProcfsProcessSource source = this->source();
  const std::int64_t hz = sysconf(_SC_CLK_TCK);
  source.begin_round();
  ASSERT_TRUE(source.describe(4242).has_value());
  write("proc/4242/stat",
        "4242 (python3) S 1 4242 4242 0 -1 4194560 52000 0 120 0 1600 300 0 0 20 0 8 0 123456 "
        "9876543210 25600 18446744073709551615 1 1 0 0\n");
  // The stat describe() read in this round, once; then read afresh.
  EXPECT_EQ(source.usage(4242, UsageDetail::current)->cpu_user_us, 1500 * 1'000'000 / hz);
  EXPECT_EQ(source.usage(4242, UsageDetail::current)->cpu_user_us, 1600 * 1'000'000 / hz);
  source.begin_round();
  EXPECT_EQ(source.usage(4242, UsageDetail::current)->cpu_user_us, 1600 * 1'000'000 / hz);
}

TEST_F(CachingSource, StatOfAnEarlierRoundIsNotUsedAgain) {
  ProcfsProcessSource source = this->source();
  source.begin_round();
  ASSERT_TRUE(source.describe(4242).has_value());
  source.begin_round();
  write("proc/4242/stat",
        "4242 (python3) S 1 4242 4242 0 -1 4194560 52000 0 120 0 1700 300 0 0 20 0 8 0 123456 "
        "9876543210 25600 18446744073709551615 1 1 0 0\n");
  EXPECT_EQ(source.usage(4242, UsageDetail::current)->cpu_user_us,
            1700 * 1'000'000 / sysconf(_SC_CLK_TCK));
}

TEST(ProcfsFixture, CurrentUsageTakesResidentMemoryFromStatAlone) {
  ProcfsProcessSource source(kFixtureRoot);
  const auto usage = source.usage(4242, UsageDetail::current);
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->rss_bytes, 25600U * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(reason(usage->peak_rss_bytes), Unavailable::not_supported);
  EXPECT_EQ(reason(source.usage(37, UsageDetail::current)->rss_bytes), Unavailable::not_supported);
}

TEST(ProcfsLive, AReapedProcessIsNotDescribedFromMemory) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  ProcfsProcessSource source("/");
  const auto pid = static_cast<Pid>(child);
  ASSERT_TRUE(source.describe(pid).has_value());
  ASSERT_TRUE(source.usage(pid, UsageDetail::with_peak).has_value());
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_EQ(reason(source.describe(pid)), Unavailable::process_gone);
  EXPECT_EQ(reason(source.usage(pid, UsageDetail::with_peak)), Unavailable::process_gone);
}

TEST(ProcfsLive, DescribesThisProcess) {
  ProcfsProcessSource source("/");
  const auto pid = static_cast<Pid>(getpid());
  auto p = source.describe(pid);
  ASSERT_TRUE(p.has_value()) << to_string(p.error());
  EXPECT_EQ(p->uid, getuid());
  if (auto name = system_user_name(getuid())) {
    EXPECT_EQ(p->user, *name);
  }
  ASSERT_TRUE(p->cmdline.has_value());
  ASSERT_FALSE(p->cmdline->empty());
  EXPECT_NE(p->cmdline->front().find("host_tests"), std::string::npos);
  EXPECT_EQ(p->comm, "host_tests");
  ASSERT_TRUE(p->start_time_us.has_value());
  const auto now = std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  // It started before now (allowing for btime's whole seconds), and less than an hour ago.
  EXPECT_LE(*p->start_time_us, now + 2'000'000);
  EXPECT_GT(*p->start_time_us, now - 3'600'000'000LL);
}

TEST(ProcfsLive, UsageOfThisProcess) {
  ProcfsProcessSource source("/");
  auto usage = source.usage(static_cast<Pid>(getpid()), UsageDetail::with_peak);
  ASSERT_TRUE(usage.has_value());
  ASSERT_TRUE(usage->rss_bytes.has_value());
  EXPECT_GT(*usage->rss_bytes, 0U);
  EXPECT_GE(usage->peak_rss_bytes.value_or(0), *usage->rss_bytes);
  EXPECT_GE(usage->cpu_user_us, 0);
}

TEST(ProcfsLive, ReapedChildIsGone) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ProcfsProcessSource source("/");
  auto p = source.describe(static_cast<Pid>(child));
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error(), Unavailable::process_gone);
}

}  // namespace gpumeter::host::procfs_test

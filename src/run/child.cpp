// SPDX-License-Identifier: MIT
#include "run/child.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include "run/signals.h"

namespace gpumeter::run {
namespace {

// Between fork and exec the child may only make async-signal-safe calls (the sampler's
// thread may hold a lock of the allocator's): everything it needs is prepared before.
// Of the two pipes, the child reads `go` and writes `exec_status`; it closes the other ends,
// or it would never see the end of file of a gpumeter that gave up.
[[noreturn]] void run_child(char* const* argv, const sigset_t& mask, std::array<int, 2> go,
                            std::array<int, 2> exec_status) {
  ::close(go[1]);
  ::close(exec_status[0]);
  struct sigaction default_action{};
  default_action.sa_handler = SIG_DFL;
  for (int signal : kPassedOnSignals) ::sigaction(signal, &default_action, nullptr);
  ::sigaction(SIGPIPE, &default_action, nullptr);
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  char byte = 0;
  ssize_t got = 0;
  do {
    got = ::read(go[0], &byte, 1);
  } while (got < 0 && errno == EINTR);
  if (got != 1) ::_exit(127);  // gpumeter gave up on the command
  ::execvp(argv[0], argv);
  const int error = errno;
  (void)!::write(exec_status[1], &error, sizeof(error));
  ::_exit(error == ENOENT ? 127 : 126);
}

ExecFailure exec_failure(const std::string& program, int error) {
  // As shells say it: a bare name was searched in PATH; a path was tried as it is.
  if (error == ENOENT && program.find('/') == std::string::npos) {
    return {127, fmt::format("gpumeter run: {}: command not found", program)};
  }
  return {error == ENOENT ? 127 : 126,
          fmt::format("gpumeter run: {}: {}", program, std::strerror(error))};
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::expected<PendingChild, Error> PendingChild::fork(const std::vector<std::string>& command,
                                                      const sigset_t& mask) {
  std::vector<std::string> args = command;
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::array<int, 2> go{-1, -1};
  std::array<int, 2> status{-1, -1};
  if (::pipe2(go.data(), O_CLOEXEC) != 0 || ::pipe2(status.data(), O_CLOEXEC) != 0) {
    const int error = errno;
    for (int fd : {go[0], go[1], status[0], status[1]}) {
      if (fd >= 0) ::close(fd);
    }
    return std::unexpected(Error{
        ErrorCode::io, fmt::format("gpumeter run: cannot make a pipe: {}", std::strerror(error))});
  }
  const pid_t pid = ::fork();
  if (pid == 0) run_child(argv.data(), mask, go, status);
  const int fork_error = errno;
  ::close(go[0]);
  ::close(status[1]);
  if (pid < 0) {
    ::close(go[1]);
    ::close(status[0]);
    return std::unexpected(Error{
        ErrorCode::io, fmt::format("gpumeter run: cannot fork: {}", std::strerror(fork_error))});
  }
  return PendingChild(pid, go[1], status[0], command.front());
}

PendingChild::PendingChild(PendingChild&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      go_(std::exchange(other.go_, -1)),
      exec_status_(std::exchange(other.exec_status_, -1)),
      program_(std::move(other.program_)) {}

PendingChild::~PendingChild() {
  if (go_ >= 0) abandon();
  close_fd(exec_status_);
}

std::expected<void, ExecFailure> PendingChild::release() {
  const char byte = 'g';
  ssize_t wrote = 0;
  do {
    wrote = ::write(go_, &byte, 1);
  } while (wrote < 0 && errno == EINTR);
  close_fd(go_);
  int error = 0;
  ssize_t got = 0;
  do {
    got = ::read(exec_status_, &error, sizeof(error));
  } while (got < 0 && errno == EINTR);
  close_fd(exec_status_);
  if (got == static_cast<ssize_t>(sizeof(error)))
    return std::unexpected(exec_failure(program_, error));
  return {};
}

void PendingChild::abandon() {
  close_fd(go_);  // the child reads end of file and exits without running the command
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
}

}  // namespace gpumeter::run

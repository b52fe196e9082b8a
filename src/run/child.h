// SPDX-License-Identifier: MIT
// Starting the command of `gpumeter run`: a forked child that waits, so that it can be
// placed in its cgroup before it runs anything, then executes the command (searched in
// PATH, as a shell does).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <expected>
#include <string>
#include <vector>

#include "core/error.h"

namespace gpumeter::run {

// Why the command could not be executed, and the status a shell exits with for it.
struct ExecFailure {
  int status = 127;     // 127: not found; 126: found but not executable
  std::string message;  // "gpumeter run: foo: command not found"
};

class PendingChild {
 public:
  // Forks. The child restores `mask` and the default action of the signals gpumeter passes
  // on, and waits. Errors: io when fork or pipe fails.
  static std::expected<PendingChild, Error> fork(const std::vector<std::string>& command,
                                                 const sigset_t& mask);
  PendingChild(PendingChild&& other) noexcept;
  PendingChild& operator=(PendingChild&&) = delete;
  PendingChild(const PendingChild&) = delete;
  PendingChild& operator=(const PendingChild&) = delete;
  ~PendingChild();  // abandons a child never released

  pid_t pid() const noexcept { return pid_; }

  // Lets the child execute the command and returns once it has, or failed to. On failure
  // the child has exited; the caller reaps it.
  std::expected<void, ExecFailure> release();

  // Ends a child that was never released (its placement failed) and reaps it.
  void abandon();

 private:
  PendingChild(pid_t pid, int go, int exec_status, std::string program)
      : pid_(pid), go_(go), exec_status_(exec_status), program_(std::move(program)) {}

  pid_t pid_ = -1;
  int go_ = -1;           // written once to let the child go on
  int exec_status_ = -1;  // the child's errno if exec failed; end of file if it succeeded
  std::string program_;
};

}  // namespace gpumeter::run

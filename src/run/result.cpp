// SPDX-License-Identifier: MIT
#include "run/result.h"

#include <fmt/format.h>
#include <string.h>  // sigabbrev_np: glibc
#include <sys/wait.h>

namespace gpumeter::run {

RunExit exit_of(int wait_status) {
  RunExit out;
  if (WIFSIGNALED(wait_status)) {
    out.signal = WTERMSIG(wait_status);
    out.core_dumped = WCOREDUMP(wait_status);
    out.status = 128 + *out.signal;  // as shells report it
  } else {
    out.code = WEXITSTATUS(wait_status);
    out.status = *out.code;
  }
  return out;
}

std::string signal_name(int signal) {
  const char* name = ::sigabbrev_np(signal);
  return name != nullptr ? fmt::format("SIG{}", name) : fmt::format("signal {}", signal);
}

}  // namespace gpumeter::run

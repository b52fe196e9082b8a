// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "host/peak_rss_reset.h"

namespace gpumeter::host {
namespace {

Unavailable reason_for(int error) {
  switch (error) {
    case ENOENT:
    case ESRCH: return Unavailable::process_gone;
    case EACCES:
    case EPERM: return Unavailable::no_permission;
    case EINVAL: return Unavailable::not_supported;
    default: return Unavailable::error;
  }
}

}  // namespace

Maybe<void> reset_peak_rss(const std::filesystem::path& root, Pid pid) {
  const std::filesystem::path path = root / "proc" / std::to_string(pid) / "clear_refs";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return std::unexpected(reason_for(errno));
  const bool written = ::write(fd, "5", 1) == 1;
  const int error = errno;
  ::close(fd);
  if (!written) return std::unexpected(reason_for(error));
  return {};
}

}  // namespace gpumeter::host

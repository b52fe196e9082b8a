// SPDX-License-Identifier: MIT
#include "cli/limit_process.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include "host/process_tree.h"

namespace gpumeter::cli {

std::expected<std::vector<Pid>, Error> limit_targets(const std::filesystem::path& root, Pid pid,
                                                     unsigned euid) {
  const auto dir = root / "proc" / std::to_string(pid);
  struct stat info{};
  if (::stat(dir.c_str(), &info) != 0) {
    return std::unexpected(Error{ErrorCode::invalid_input,
                                 fmt::format("gpumeter limit: no process with pid {}", pid)});
  }
  if (euid != 0 && info.st_uid != euid) {
    return std::unexpected(Error{
        ErrorCode::no_permission,
        fmt::format("gpumeter limit: pid {} belongs to uid {}, not to you (uid {}); moving "
                    "another user's processes into a cgroup needs root: run it as root (sudo)",
                    pid, info.st_uid, euid)});
  }
  std::vector<Pid> pids{pid};
  const std::vector<Pid> below = host::descendants(root, pid);
  pids.insert(pids.end(), below.begin(), below.end());
  return pids;
}

}  // namespace gpumeter::cli

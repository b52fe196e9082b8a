// SPDX-License-Identifier: MIT
#include "sim/machine_clock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "sim/clock.h"
#include "sim/scenario.h"

namespace gpumeter::sim {
namespace {

// FNV-1a: the same name for the same path in every process and build (std::hash promises
// neither).
std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::filesystem::path clock_directory() {
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime != nullptr && *runtime != '\0')
    return std::filesystem::path(runtime) / "gpumeter-sim";
  return std::filesystem::path("/tmp") / ("gpumeter-sim-" + std::to_string(::getuid()));
}

UniqueFd open_file(const std::filesystem::path& path) {
  return UniqueFd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
}

bool lock(int fd, int operation) {
  while (::flock(fd, operation) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

std::optional<std::int64_t> read_epoch(int fd) {
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text, text + n, value);
  if (ec != std::errc() || (end != text + n && *end != '\n')) return std::nullopt;
  return value;
}

bool write_epoch(int fd, std::int64_t epoch_us) {
  const std::string text = std::to_string(epoch_us) + "\n";
  return ::ftruncate(fd, 0) == 0 &&
         ::pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size());
}

// Whether `path` still names the file open as `fd` (not removed or replaced since).
bool still_named(int fd, const std::filesystem::path& path) {
  struct stat open_file{};
  struct stat named{};
  return ::fstat(fd, &open_file) == 0 && ::stat(path.c_str(), &named) == 0 &&
         open_file.st_dev == named.st_dev && open_file.st_ino == named.st_ino;
}

MachineEpoch private_epoch(std::int64_t epoch_us, const std::string& why) {
  return MachineEpoch{epoch_us, ClockHold(),
                      "the clock is not shared with other processes: " + why};
}

}  // namespace

double history_lead_s(const Scenario& scenario) {
  double lead = 0;
  for (const DeviceSpec& d : scenario.devices) lead = std::max(lead, d.sample_buffer_s);
  return std::ceil(lead);
}

MachineEpoch machine_epoch(const std::filesystem::path& scenario, double lead_s) {
  if (auto fixed = epoch_from_environment()) return MachineEpoch{*fixed, ClockHold(), ""};
  const std::int64_t mine = now_us() - static_cast<std::int64_t>(std::llround(lead_s * 1e6));
  const std::filesystem::path directory = clock_directory();
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST)
    return private_epoch(mine, directory.string() + ": " + std::strerror(errno));
  // In /tmp another user could have made the directory first: only one's own is trusted.
  struct stat made{};
  if (::lstat(directory.c_str(), &made) != 0 || !S_ISDIR(made.st_mode) ||
      made.st_uid != ::getuid() || (made.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return private_epoch(mine, directory.string() + " is not a private directory of this user");
  std::error_code ignored;
  const std::string name =
      std::to_string(fnv1a(std::filesystem::absolute(scenario, ignored).string()));
  const std::filesystem::path guard_path = directory / (name + ".guard");
  const std::filesystem::path clock_path = directory / (name + ".clock");
  // Decisions are taken one process at a time (the guard), so that "nobody holds the clock,
  // I start it" and "somebody does, I read it" cannot interleave. A file the last holder
  // removed while this process waited for the guard is opened again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const UniqueFd guard = open_file(guard_path);
    UniqueFd clock = open_file(clock_path);
    if (!guard.valid() || !clock.valid() || !lock(guard.get(), LOCK_EX))
      return private_epoch(mine, clock_path.string() + ": " + std::strerror(errno));
    if (!still_named(guard.get(), guard_path) || !still_named(clock.get(), clock_path)) continue;
    std::optional<std::int64_t> epoch;
    if (::flock(clock.get(), LOCK_EX | LOCK_NB) == 0) {  // no process holds it: a new timeline
      if (write_epoch(clock.get(), mine)) epoch = mine;
    } else {
      epoch = read_epoch(clock.get());
    }
    const bool held = lock(clock.get(), LOCK_SH);
    ::flock(guard.get(), LOCK_UN);
    if (!epoch || !held) return private_epoch(mine, clock_path.string() + " is unreadable");
    return MachineEpoch{*epoch, ClockHold(std::move(clock), clock_path, guard_path), ""};
  }
  return private_epoch(mine, clock_path.string() + " keeps being replaced");
}

ClockHold::~ClockHold() {
  if (!clock_.valid()) return;
  // Under the guard, so that no loader is between opening the file and taking its lock.
  const UniqueFd guard(::open(guard_path_.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW));
  if (!guard.valid() || !lock(guard.get(), LOCK_EX)) return;
  if (::flock(clock_.get(), LOCK_EX | LOCK_NB) == 0) {  // the last holder
    ::unlink(clock_path_.c_str());
    ::unlink(guard_path_.c_str());
  }
}

}  // namespace gpumeter::sim

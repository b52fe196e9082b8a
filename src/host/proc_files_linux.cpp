// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>

#include "host/os_error.h"
#include "host/proc_files.h"

namespace gpumeter::host {
namespace {

constexpr std::size_t kReservedDescriptors = 512;
constexpr std::size_t kReadersSharingTheLimit = 2;
constexpr std::size_t kMaxKeptProcesses = 4096;
constexpr std::size_t kFirstBufferBytes = 4096;  // stat and status are 0.3 and 1.5 KiB

// Reads the file behind `fd` from offset 0 into `buffer`; the number of bytes read. procfs
// generates stat and status whole on every read from offset 0, so a read that leaves room in
// the buffer has reached the end (as it has for a regular file), and no second read is needed.
std::expected<std::size_t, std::error_code> read_from_start(int fd, std::string& buffer) {
  std::size_t size = 0;
  while (true) {
    if (size == buffer.size()) buffer.resize(std::max(kFirstBufferBytes, 2 * buffer.size()));
    const ssize_t got =
        ::pread(fd, buffer.data() + size, buffer.size() - size, static_cast<off_t>(size));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::unexpected(last_os_error());
    size += static_cast<std::size_t>(got);
    if (size < buffer.size()) return size;
  }
}

}  // namespace

std::size_t default_kept_processes() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  const rlim_t soft = limit.rlim_cur;
  if (soft != RLIM_INFINITY && soft <= kReservedDescriptors) return 0;
  const rlim_t spare = soft == RLIM_INFINITY ? kMaxKeptProcesses * 4 : soft - kReservedDescriptors;
  const auto per_reader = static_cast<std::size_t>(spare) / (2 * kReadersSharingTheLimit);
  return std::min(per_reader, kMaxKeptProcesses);
}

ProcFiles::ProcFiles(const std::filesystem::path& proc, std::size_t max_kept_processes)
    : proc_((proc / "").string()), max_kept_(max_kept_processes) {}

ProcFiles::~ProcFiles() {
  for (auto& [pid, kept] : kept_) close(kept);
}

std::expected<std::string_view, std::error_code> ProcFiles::read(Pid pid, File file) {
  if (const auto it = kept_.find(pid); it != kept_.end()) {
    if (auto text = read_kept(file, it->second)) return text;
    // Gone, most likely: forget it, and read by path, where the pid may name another process.
    close(it->second);
    kept_.erase(it);
  }
  if (kept_.size() < max_kept_) {
    // Both files at once, so that both descriptors are of the same process.
    Kept kept{.stat = open(pid, File::stat), .status = open(pid, File::status)};
    if (kept.stat >= 0 && kept.status >= 0) {
      auto text = read_kept(file, kept);
      if (text) {
        kept_.emplace(pid, kept);
        return text;
      }
    }
    close(kept);
  }
  return read_once(pid, file);
}

void ProcFiles::close_unread() {
  for (auto it = kept_.begin(); it != kept_.end();) {
    if (it->second.read_lately) {
      it->second.read_lately = false;
      ++it;
    } else {
      close(it->second);
      it = kept_.erase(it);
    }
  }
}

std::expected<std::string_view, std::error_code> ProcFiles::read_kept(File file, Kept& kept) {
  kept.read_lately = true;
  const auto size = read_from_start(file == File::stat ? kept.stat : kept.status, buffer_);
  if (!size) return std::unexpected(size.error());
  return std::string_view(buffer_.data(), *size);
}

std::expected<std::string_view, std::error_code> ProcFiles::read_once(Pid pid, File file) {
  const int fd = open(pid, file);
  if (fd < 0) return std::unexpected(last_os_error());
  const auto size = read_from_start(fd, buffer_);
  ::close(fd);
  if (!size) return std::unexpected(size.error());
  return std::string_view(buffer_.data(), *size);
}

int ProcFiles::open(Pid pid, File file) {
  std::array<char, 16> digits{};
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), pid).ptr;
  path_.assign(proc_).append(digits.data(), end).append(file == File::stat ? "/stat" : "/status");
  return ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
}

void ProcFiles::close(Kept& kept) {
  if (kept.stat >= 0) ::close(kept.stat);
  if (kept.status >= 0) ::close(kept.status);
  kept.stat = kept.status = -1;
}

}  // namespace gpumeter::host

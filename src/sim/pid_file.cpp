// SPDX-License-Identifier: MIT
#include "sim/pid_file.h"

#include <signal.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <string>

namespace gpumeter::sim {
namespace {

// The kernel's PID_MAX_LIMIT. Larger numbers would turn negative as a pid_t, and kill(-1, 0)
// asks about every process.
constexpr std::uint32_t kMaxPid = 4'194'304;

std::optional<std::uint32_t> parse_pid(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::nullopt;
  const std::size_t last = text.find_last_not_of(" \t\r\n");
  std::uint32_t pid = 0;
  const char* begin = text.data() + first;
  const char* end = text.data() + last + 1;
  const auto [stop, error] = std::from_chars(begin, end, pid);
  if (error != std::errc{} || stop != end || pid == 0 || pid > kMaxPid) return std::nullopt;
  return pid;
}

// Signal 0 checks that the process exists; EPERM means it does, owned by someone else.
bool alive(std::uint32_t pid) {
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

std::optional<std::uint32_t> live_pid_in(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  // A pid and a newline; anything longer is not one.
  std::array<char, 32> buffer{};
  in.read(buffer.data(), buffer.size());
  const std::string text(buffer.data(), static_cast<std::size_t>(in.gcount()));
  const std::optional<std::uint32_t> pid = parse_pid(text);
  if (!pid || !alive(*pid)) return std::nullopt;
  return pid;
}

}  // namespace gpumeter::sim

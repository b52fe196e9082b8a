// SPDX-License-Identifier: MIT
// Reading a Jetson board's kernel files (sysfs, debugfs, procfs, /etc) under a root directory
// that tests and the simulator replace: "/" on a board, a fixture tree in tests. Every read
// says why it failed, so that a value the kernel hides from us reads as no_permission and one
// it does not offer as not_supported, never as 0.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/unavailable.h"

namespace gpumeter::jetson {

class Sysfs {
 public:
  explicit Sysfs(std::filesystem::path root) : root_(std::move(root)) {}

  // `path` is absolute on the board ("/sys/class/devfreq"); it is read under the root.
  std::filesystem::path at(std::string_view path) const;

  // The file's text without trailing NULs, newlines and blanks (device-tree strings end in a
  // NUL). not_supported when it does not exist, no_permission when we may not read it (debugfs
  // without root), error otherwise (a sensor that is powered off answers EAGAIN).
  Maybe<std::string> text(std::string_view path) const;
  // The whole of text() as a decimal integer; error when it is not one.
  Maybe<std::int64_t> integer(std::string_view path) const;
  // The names in a directory, sorted; empty when it does not exist.
  std::vector<std::string> list(std::string_view path) const;
  bool exists(std::string_view path) const;

 private:
  std::filesystem::path root_;
};

// Joins "dir" and "name" with one '/'.
std::string join(std::string_view dir, std::string_view name);

}  // namespace gpumeter::jetson

// SPDX-License-Identifier: MIT
// The operations on a cgroup file system that making a cgroup takes, behind an interface:
// the kernel's (SystemCgroupFs), or in tests an emulation of the kernel's rules on a
// temporary directory.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace gpumeter::host {

class CgroupFs {
 public:
  virtual ~CgroupFs() = default;
  // mkdir(2): the kernel fills the new group with its interface files.
  virtual std::expected<void, std::error_code> make_directory(const std::filesystem::path& dir) = 0;
  // rmdir(2): only an empty group (no processes, no child groups) can be removed.
  virtual std::expected<void, std::error_code> remove_directory(
      const std::filesystem::path& dir) = 0;
  // Writes `text` to an interface file that exists, in one write(2), as the kernel wants.
  virtual std::expected<void, std::error_code> write(const std::filesystem::path& file,
                                                     std::string_view text) = 0;
  virtual std::expected<std::string, std::error_code> read(const std::filesystem::path& file) = 0;
};

// The kernel's cgroup file systems, through the system calls.
class SystemCgroupFs final : public CgroupFs {
 public:
  std::expected<void, std::error_code> make_directory(const std::filesystem::path& dir) override;
  std::expected<void, std::error_code> remove_directory(const std::filesystem::path& dir) override;
  std::expected<void, std::error_code> write(const std::filesystem::path& file,
                                             std::string_view text) override;
  std::expected<std::string, std::error_code> read(const std::filesystem::path& file) override;
};

}  // namespace gpumeter::host

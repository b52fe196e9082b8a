// SPDX-License-Identifier: MIT
// A directory of one test's own under the system's temporary directory, removed with
// everything in it afterwards; tests lay out procfs or cgroupfs trees, databases and files in
// it. With the small file helpers the tests share.
#pragma once

#include <stdlib.h>  // mkdtemp: POSIX

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace gpumeter::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gpumeter-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;  // best effort: a leftover temporary directory harms nothing
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }

  // Writes `content` to `relative` (directories created as needed); returns its path.
  std::filesystem::path write(const std::filesystem::path& relative,
                              std::string_view content) const {
    const std::filesystem::path file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << content;
    return file;
  }

  // The text of `relative`; empty when it does not exist.
  std::string read(const std::filesystem::path& relative) const {
    std::ifstream in(path_ / relative);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  std::filesystem::path path_;
};

// A whole file's bytes; empty when it cannot be read.
inline std::string read_bytes(const std::filesystem::path& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error) return {};
  std::string bytes(size, '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  return bytes;
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

}  // namespace gpumeter::testing

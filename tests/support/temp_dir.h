// A directory of one test's own under the system's temporary directory, removed with
// everything in it afterwards; tests lay out procfs or cgroupfs trees in it.
#pragma once

#include <stdlib.h>  // mkdtemp: POSIX

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpumeter::host::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gpumeter-host-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;  // best effort: a leftover temporary directory harms nothing
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

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
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace gpumeter::host::testing

// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>
#include <system_error>

#include "core/unique_fd.h"
#include "recorder/csv_file.h"
#include "recorder/windows.h"

namespace gpumeter::recorder {
namespace {

Error io_error(const std::filesystem::path& path, std::string_view what) {
  return Error{ErrorCode::io,
               fmt::format("{}: cannot {}: {}", path.string(), what, std::strerror(errno))};
}

// The size of the file once a partial last line (one not ending in '\n') is cut off.
std::expected<off_t, Error> complete_size(int fd, const std::filesystem::path& path, off_t size) {
  std::array<char, 4096> chunk{};
  off_t end = size;
  while (end > 0) {
    const off_t begin =
        end > static_cast<off_t>(chunk.size()) ? end - static_cast<off_t>(chunk.size()) : 0;
    const auto length = static_cast<std::size_t>(end - begin);
    if (::pread(fd, chunk.data(), length, begin) != static_cast<ssize_t>(length))
      return std::unexpected(io_error(path, "read"));
    for (std::size_t i = length; i > 0; --i) {
      if (chunk[i - 1] == '\n') return begin + static_cast<off_t>(i);
    }
    end = begin;
  }
  return 0;
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t wrote = ::write(fd, text.data(), text.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return true;
}

// Appends `lines` to one file; true when a partial last line had to be removed first.
std::expected<bool, Error> append_file(const std::filesystem::path& path, const std::string& lines,
                                       mode_t mode) {
  const UniqueFd fd(
      ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, mode));
  if (fd.get() < 0) return std::unexpected(io_error(path, "open"));
  struct stat status{};
  if (::fstat(fd.get(), &status) != 0) return std::unexpected(io_error(path, "examine"));
  if (!S_ISREG(status.st_mode)) {
    return std::unexpected(
        Error{ErrorCode::io, fmt::format("{}: not a regular file", path.string())});
  }
  off_t size = status.st_size;
  bool repaired = false;
  if (size > 0) {
    auto complete = complete_size(fd.get(), path, size);
    if (!complete) return std::unexpected(std::move(complete.error()));
    if (*complete != size) {
      if (::ftruncate(fd.get(), *complete) != 0) return std::unexpected(io_error(path, "truncate"));
      size = *complete;
      repaired = true;
    }
  }
  const std::string text = size == 0 ? std::string(kCsvHeader) + lines : lines;
  if (!write_all(fd.get(), text)) {
    const Error error = io_error(path, "write");
    // Undo a write cut short, so that the file still ends in a whole row.
    if (::ftruncate(fd.get(), size) != 0) errno = 0;
    return std::unexpected(error);
  }
  return repaired;
}

}  // namespace

std::string local_date(TimeUs time_us) {
  const std::time_t seconds = floor_multiple(time_us, 1'000'000) / 1'000'000;
  std::tm local{};
  ::localtime_r(&seconds, &local);
  return fmt::format("{:04}-{:02}-{:02}", local.tm_year + 1900, local.tm_mon + 1, local.tm_mday);
}

std::filesystem::path daily_csv_path(const std::filesystem::path& directory, TimeUs time_us) {
  return directory / (local_date(time_us) + ".csv");
}

CsvAppend append_daily_csv(const std::filesystem::path& directory, std::span<const CsvRow> rows,
                           mode_t file_mode) {
  CsvAppend result;
  // A directory that cannot be created makes every open below fail, naming the file.
  std::error_code ignored;
  std::filesystem::create_directories(directory, ignored);
  std::map<std::filesystem::path, std::vector<const CsvRow*>> files;
  for (const CsvRow& row : rows) files[daily_csv_path(directory, row.timestamp_us)].push_back(&row);
  for (const auto& [path, file_rows] : files) {
    std::string lines;
    for (const CsvRow* row : file_rows) lines += csv_line(*row);
    auto appended = append_file(path, lines, file_mode);
    if (appended) {
      if (*appended) ++result.partial_lines_removed;
      continue;
    }
    if (!result.error) result.error = std::move(appended.error());
    for (const CsvRow* row : file_rows) result.unwritten.push_back(*row);
  }
  return result;
}

}  // namespace gpumeter::recorder

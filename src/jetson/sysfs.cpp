// SPDX-License-Identifier: MIT
#include "jetson/sysfs.h"

#include <algorithm>
#include <cerrno>

#include "core/bounded_file.h"
#include "core/text.h"

namespace gpumeter::jetson {
namespace {

// The largest kernel file read here is nvmap's client list: a line per process.
constexpr std::size_t kMaxFileBytes = std::size_t{1} << 20U;

Unavailable reason_of(const BoundedReadError& error) {
  if (error.kind == BoundedReadError::Kind::too_large) return Unavailable::error;
  switch (error.errno_value) {
    case ENOENT:
    case ENOTDIR:
    case ENODEV:
    case ENXIO: return Unavailable::not_supported;
    case EACCES:
    case EPERM: return Unavailable::no_permission;
    default: return Unavailable::error;
  }
}

}  // namespace

std::string join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.ends_with('/')) out += '/';
  out += name;
  return out;
}

std::filesystem::path Sysfs::at(std::string_view path) const {
  return root_ / std::filesystem::path(path).relative_path();
}

Maybe<std::string> Sysfs::text(std::string_view path) const {
  auto read = read_file_at_most(at(path), kMaxFileBytes);
  if (!read) return std::unexpected(reason_of(read.error()));
  std::string& content = *read;
  while (!content.empty() && (content.back() == '\0' || content.back() == '\n' ||
                              content.back() == ' ' || content.back() == '\t')) {
    content.pop_back();
  }
  return std::move(content);
}

Maybe<std::int64_t> Sysfs::integer(std::string_view path) const {
  const auto content = text(path);
  if (!content) return std::unexpected(content.error());
  const auto value = parse_integer<std::int64_t>(trim(*content));
  if (!value) return std::unexpected(Unavailable::error);
  return *value;
}

std::vector<std::string> Sysfs::list(std::string_view path) const {
  std::vector<std::string> names;
  std::error_code error;
  for (std::filesystem::directory_iterator it(at(path), error), end; !error && it != end;
       it.increment(error)) {
    names.push_back(it->path().filename().string());
  }
  std::ranges::sort(names);
  return names;
}

bool Sysfs::exists(std::string_view path) const {
  std::error_code error;
  return std::filesystem::exists(at(path), error);
}

}  // namespace gpumeter::jetson

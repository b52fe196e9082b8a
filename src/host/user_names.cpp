// SPDX-License-Identifier: MIT
#include "host/user_names.h"

#include "core/text.h"
#include "host/files.h"

namespace gpumeter::host {
std::optional<std::string> find_passwd_name(std::string_view passwd, std::uint32_t uid) {
  // name:password:uid:gid:gecos:home:shell
  for (std::string_view line : split_lines(passwd)) {
    std::size_t name_end = line.find(':');
    if (name_end == 0 || name_end == std::string_view::npos || line.starts_with('#')) continue;
    std::size_t uid_start = line.find(':', name_end + 1);
    if (uid_start == std::string_view::npos) continue;
    std::size_t uid_end = line.find(':', uid_start + 1);
    auto found = parse_integer<std::uint32_t>(line.substr(uid_start + 1, uid_end - uid_start - 1));
    if (found == uid) return std::string(line.substr(0, name_end));
  }
  return std::nullopt;
}

UserNames::UserNames(std::filesystem::path root)
    : root_(std::move(root)), use_system_(std::filesystem::path(root_).lexically_normal() == "/") {}

std::optional<std::string> UserNames::name(std::uint32_t uid) {
  auto cached = cache_.find(uid);
  if (cached != cache_.end()) return cached->second;
  auto found = look_up(uid);
  cache_.emplace(uid, found);
  return found;
}

std::optional<std::string> UserNames::look_up(std::uint32_t uid) const {
  // A missing or unreadable passwd file reads as empty: every uid is then unknown to it.
  if (auto local = find_passwd_name(read_file(root_ / "etc" / "passwd").value_or(""), uid))
    return local;
  if (use_system_) return system_user_name(uid);
  return std::nullopt;
}

}  // namespace gpumeter::host

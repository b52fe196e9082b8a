// SPDX-License-Identifier: MIT
// User names for uids: from <root>/etc/passwd, and, on the live system (root "/"), from the
// system's name service as well, so that LDAP or SSSD users get their names too.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpumeter::host {

// The name of `uid` in passwd(5)-format text; empty when no line has that uid.
std::optional<std::string> find_passwd_name(std::string_view passwd, std::uint32_t uid);

// The system's name service (getpwuid_r): files, LDAP, SSSD, ... Empty when unknown.
std::optional<std::string> system_user_name(std::uint32_t uid);

// Looks names up under `root` and remembers the answers, known and unknown, for the
// object's lifetime: a collection describes many processes of few users.
class UserNames {
 public:
  explicit UserNames(std::filesystem::path root);
  std::optional<std::string> name(std::uint32_t uid);

 private:
  std::optional<std::string> look_up(std::uint32_t uid) const;

  std::filesystem::path root_;
  bool use_system_;  // the root is the live system's, so its name service applies
  std::map<std::uint32_t, std::optional<std::string>> cache_;
};

}  // namespace gpumeter::host

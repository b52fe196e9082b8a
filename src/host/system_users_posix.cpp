// SPDX-License-Identifier: MIT
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "host/user_names.h"

namespace gpumeter::host {

std::optional<std::string> system_user_name(std::uint32_t uid) {
  long suggested = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(suggested > 0 ? static_cast<std::size_t>(suggested) : 1024);
  passwd entry{};
  passwd* result = nullptr;
  // Entries from a directory service can exceed the suggested size: grow and retry.
  while (true) {
    int rc = getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &result);
    if (rc == ERANGE && buffer.size() < (1U << 20)) {
      buffer.resize(buffer.size() * 2);
      continue;
    }
    if (rc != 0 || result == nullptr) return std::nullopt;
    return std::string(result->pw_name);
  }
}

}  // namespace gpumeter::host

// SPDX-License-Identifier: MIT
// An address of this machine that other machines may reach, for the tests of the rules
// that apply off loopback.
#pragma once

#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>

#include <optional>
#include <string>

#include "net/listen_address.h"

namespace gpumeter::net::testing {

// The first IPv4 address of an interface that is not loopback; absent when there is none.
inline std::optional<std::string> outside_address() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return std::nullopt;
  std::optional<std::string> found;
  for (const ifaddrs* entry = list; entry != nullptr && !found; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
    char text[NI_MAXHOST] = {};
    if (::getnameinfo(entry->ifa_addr, sizeof(sockaddr_in), text, sizeof(text), nullptr, 0,
                      NI_NUMERICHOST) == 0 &&
        !is_loopback(text)) {
      found = text;
    }
  }
  ::freeifaddrs(list);
  return found;
}

}  // namespace gpumeter::net::testing

// SPDX-License-Identifier: MIT
#include "net/host_allow_list.h"

#include <algorithm>
#include <cctype>

#include "net/listen_address.h"

namespace gpumeter::net {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The host part of a Host header without brackets or port; empty when malformed.
std::string_view host_part(std::string_view value) {
  if (value.starts_with('[')) {
    const std::size_t close = value.find(']');
    if (close == std::string_view::npos) return {};
    const std::string_view rest = value.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return {};
    return value.substr(1, close - 1);
  }
  const std::size_t colon = value.find(':');
  if (colon != std::string_view::npos && value.find(':', colon + 1) != std::string_view::npos) {
    return {};  // an IPv6 address without brackets is not a valid Host
  }
  std::string_view host = value.substr(0, colon);
  if (host.ends_with('.')) host.remove_suffix(1);
  return host;
}

bool is_wildcard(std::string_view host) {
  return host == "0.0.0.0" || host == "::" || host.empty();
}

}  // namespace

HostAllowList::HostAllowList(std::string_view listen_host,
                             const std::vector<std::string>& extra_names)
    : any_(is_wildcard(listen_host)) {
  names_.push_back("localhost");
  names_.push_back(lower(listen_host));
  for (const std::string& name : extra_names) names_.push_back(lower(name));
}

bool HostAllowList::allows(std::string_view value) const {
  const std::string host = lower(host_part(value));
  if (host.empty()) return false;
  if (any_ || is_loopback(host)) return true;
  return std::ranges::find(names_, host) != names_.end();
}

}  // namespace gpumeter::net

#include "net/process_labels.h"

#include "host/command_name.h"

namespace gpumeter::net {

std::string owner_label(const Maybe<HostProcess>& host) {
  if (!host) return "?";
  if (host->user) return *host->user;
  if (host->uid) return std::to_string(*host->uid);
  return "?";
}

std::string command_label(const Maybe<HostProcess>& host) {
  if (!host) return "";
  if (host->cmdline && !host->cmdline->empty()) return host::short_command(*host->cmdline);
  if (host->comm) return *host->comm;
  return "";
}

}  // namespace gpumeter::net

// SPDX-License-Identifier: MIT
#include "sim/lib/accounting_state.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gpumeter::sim::lib {
namespace {

// The file: one line per GPU, "<uuid> <enabled: 1, 0 or -> <enabled_at_us> <cleared_at_us>".
std::optional<std::string> state_path() {
  const char* path = std::getenv(kStateVariable);
  if (path == nullptr || *path == '\0') return std::nullopt;
  return std::string(path);
}

std::optional<std::pair<std::string, AccountingChange>> parse_line(const std::string& line) {
  std::istringstream in(line);
  std::string uuid;
  std::string enabled;
  AccountingChange change;
  if (!(in >> uuid >> enabled >> change.enabled_at_us >> change.cleared_at_us)) return {};
  if (enabled == "1" || enabled == "0") change.enabled = enabled == "1";
  return std::pair{uuid, change};
}

std::string format_line(const std::string& uuid, const AccountingChange& change) {
  const char* enabled = !change.enabled ? "-" : (*change.enabled ? "1" : "0");
  return uuid + ' ' + enabled + ' ' + std::to_string(change.enabled_at_us) + ' ' +
         std::to_string(change.cleared_at_us) + '\n';
}

}  // namespace

void AccountingState::refresh() {
  const auto path = state_path();
  if (!path) return;
  std::ifstream in(*path);
  if (!in) return;
  std::map<std::string, AccountingChange> read;
  for (std::string line; std::getline(in, line);) {
    if (auto entry = parse_line(line)) read.insert_or_assign(entry->first, entry->second);
  }
  changes_ = std::move(read);
}

AccountingChange AccountingState::of(const std::string& uuid) const {
  const auto found = changes_.find(uuid);
  return found == changes_.end() ? AccountingChange{} : found->second;
}

bool AccountingState::set(const std::string& uuid, const AccountingChange& change) {
  changes_.insert_or_assign(uuid, change);
  const auto path = state_path();
  if (!path) return true;
  // A name of our own next to the file, so that a reader never sees half a file.
  const std::string temporary = *path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    for (const auto& [id, c] : changes_) out << format_line(id, c);
    if (!out.flush()) return false;
  }
  return std::rename(temporary.c_str(), path->c_str()) == 0;
}

}  // namespace gpumeter::sim::lib

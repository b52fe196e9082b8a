// SPDX-License-Identifier: MIT
// The master's config as TOML, read by toml++ (src/cli/config_tables, master_config), and as
// nvgpu's cluster config (src/cli/nvgpu_config).
// Promise: any text gives tables or an invalid_input error "FILE:LINE: ..."; every entry's
// line lies within the text; a master config that parses has at least one agent... or none,
// but never two of the same name.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "cli/config_tables.h"
#include "cli/master_config.h"
#include "fuzz_check.h"

namespace {

using namespace gpumeter;

void check_tables(std::string_view text) {
  const auto tables = cli::parse_config_tables(text, "fuzz.toml");
  if (!tables) {
    fuzz::check(tables.error().code == ErrorCode::invalid_input, "tables: not invalid_input");
    fuzz::check(tables.error().message.starts_with("fuzz.toml:"), "tables: error without file");
    return;
  }
  const auto lines = static_cast<std::size_t>(std::ranges::count(text, '\n')) + 1;
  for (const auto& table : *tables) {
    fuzz::check(table.line <= lines, "tables: header line past the end");
    for (const auto& entry : table.entries) {
      fuzz::check(entry.line >= 1 && entry.line <= lines, "tables: entry line out of range");
    }
  }
}

void check_master(std::string_view text) {
  const auto config = cli::parse_master_config(text, "/nonexistent/fuzz.toml", "self-host");
  if (!config) {
    fuzz::check(config.error().message.starts_with("/nonexistent/fuzz.toml"),
                "master: error without file");
    return;
  }
  std::set<std::string> names;
  for (const auto& agent : config->agents) {
    fuzz::check(names.insert(agent.name).second, "master: two agents of one name");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = gpumeter::fuzz::text_of(data, size);
  check_tables(text);
  check_master(text);
  return 0;
}

// SPDX-License-Identifier: MIT
// nvgpu's cluster config (the file $NVGPU_CLUSTER_CFG names for its master), read by `gpumeter
// master` beside its own TOML so that a fleet moves over without rewriting it: a Python
// assignment of the agents to poll,
//
//   AGENTS = [
//            'self', # node01 - master - direct access without using HTTP
//            'http://node02:1080',
//   ]
//
// where 'self' is this machine read directly and each URL an agent. Only AGENTS is read; the
// Flask settings such a file may also hold are refused with their line (they configure nvgpu's
// web server, not the poll).
#pragma once

#include <expected>
#include <string_view>
#include <vector>

#include "cli/config_tables.h"
#include "core/error.h"

namespace gpumeter::cli {

// Whether `text` is such a file: its first statement assigns AGENTS.
bool is_nvgpu_config(std::string_view text);

// The agents of an nvgpu config as the tables of gpumeter's own ([[agent]] url = ..., each on
// its line), for parse_master_config. Errors: invalid_input "FILE:LINE: ..." for anything but
// one AGENTS list of quoted strings (single or double quotes, comments and a trailing comma
// allowed).
std::expected<std::vector<ConfigTable>, Error> nvgpu_config_tables(std::string_view text,
                                                                   std::string_view file);

}  // namespace gpumeter::cli

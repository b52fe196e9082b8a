// SPDX-License-Identifier: MIT
// The config file of `gpumeter master` (docs/master.md, "Config file"): the poll settings,
// the agents to poll, and optionally the master's own options under their long names (the
// command line wins over the file).
//
//   interval = "5s"
//   [[agent]]
//   url = "self"
//   [[agent]]
//   url = "https://gpu02.example.org:9416"
//   token-file = "gpu02.token"
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "master/url.h"

namespace gpumeter::cli {

struct MasterAgentConfig {
  std::string name;                          // unique; defaults to the URL's host, or this host
  std::string url;                           // as written, or "self"
  std::optional<master::AgentUrl> endpoint;  // absent for "self"
  std::optional<std::filesystem::path> token_file;  // relative paths: from the file's folder
  std::optional<std::filesystem::path> ca_file;
  std::chrono::milliseconds timeout{2000};
  std::size_t line = 0;  // of its [[agent]] header
};

// The master's command-line options, when the file sets them.
struct MasterFileOptions {
  std::optional<std::string> listen;
  std::optional<std::filesystem::path> token_file;
  std::optional<bool> insecure;
  std::optional<std::filesystem::path> tls_cert;
  std::optional<std::filesystem::path> tls_key;
  std::optional<std::string> prometheus;
};

struct MasterConfig {
  std::chrono::milliseconds interval{5000};        // between poll rounds
  std::uint32_t stale_after = 3;                   // intervals with the same reading: stale
  std::chrono::milliseconds timeout{2000};         // agents' default
  std::chrono::milliseconds max_backoff{300'000};  // the longest wait for a failing agent
  std::size_t connections = 1024;                  // HTTP polls in flight at once, at most
  std::vector<MasterAgentConfig> agents;
  MasterFileOptions options;
};

// Reads and checks the file. `self_name` names the "self" agent when it has no name.
// Errors: invalid_input "FILE:LINE: ..." naming what was expected (an unknown key or table,
// a bad duration, number or URL, a missing url, a name used twice, a second "self"); io when
// the file cannot be read.
std::expected<MasterConfig, Error> read_master_config(const std::filesystem::path& file,
                                                      std::string_view self_name);

// The same from text; `file` names it in messages and anchors relative paths.
std::expected<MasterConfig, Error> parse_master_config(std::string_view text,
                                                       const std::filesystem::path& file,
                                                       std::string_view self_name);

}  // namespace gpumeter::cli

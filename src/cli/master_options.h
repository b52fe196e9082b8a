// SPDX-License-Identifier: MIT
// The options of `gpumeter master` (docs/master.md): the config file, the master's own HTTP
// server, Prometheus mode, and what they resolve to once the file is read (the command line
// wins over the file's keys of the same names).
#pragma once

#include <CLI/CLI.hpp>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "cli/master_config.h"
#include "core/error.h"
#include "master/url.h"
#include "view/quota.h"

namespace gpumeter::cli {

// The master's default address: beside an agent's 9416 on the same machine.
inline constexpr int kMasterDefaultPort = 9417;
inline constexpr std::string_view kMasterDefaultListen = "127.0.0.1:9417";
static_assert(kMasterDefaultListen.ends_with(":9417"), "the default listen is on the default port");

struct MasterOptions {
  std::string config;
  std::string listen;
  std::string token_file;
  bool insecure = false;
  std::string tls_cert;
  std::string tls_key;
  std::string prometheus;
  std::string quota;
  bool once = false;
};

struct MasterSettings {
  std::filesystem::path config_file;
  MasterConfig config;
  std::string listen{kMasterDefaultListen};
  std::optional<std::filesystem::path> token_file;
  bool insecure = false;
  std::optional<std::filesystem::path> tls_cert;
  std::optional<std::filesystem::path> tls_key;
  std::optional<master::AgentUrl> prometheus;  // set: Prometheus mode
  std::string prometheus_text;                 // as given
  std::optional<view::QuotaFile> quotas;       // --quota, for the fleet's usage (Prometheus)
  bool once = false;
};

void add_master_options(CLI::App& master, MasterOptions& options);

// Reads the config file (--config, else the nvgpu cluster config `nvgpu_cluster_cfg` names:
// $NVGPU_CLUSTER_CFG, null when unset) and merges it with the command line. `self_name` names a
// "self" agent without a name. Errors: neither file given (invalid_input); the config file's
// (invalid_input "FILE:LINE: ...", io); a bad Prometheus URL; no agents without Prometheus mode.
std::expected<MasterSettings, Error> resolve_master_options(const CLI::App& master,
                                                            const MasterOptions& options,
                                                            std::string_view self_name,
                                                            const char* nvgpu_cluster_cfg);

}  // namespace gpumeter::cli

// SPDX-License-Identifier: MIT
#include "cli/master_options.h"

#include <fmt/format.h>

#include <utility>

#include "master/prometheus_client.h"

namespace gpumeter::cli {
namespace {

bool given(const CLI::App& master, const std::string& name) {
  const CLI::Option* option = master.get_option_no_throw(name);
  return option != nullptr && option->count() > 0;
}

// The command line's path when given, else the file's.
std::optional<std::filesystem::path> path_option(const CLI::App& master, const std::string& name,
                                                 const std::string& value,
                                                 const std::optional<std::filesystem::path>& file) {
  if (given(master, name)) return std::filesystem::path(value);
  return file;
}

}  // namespace

void add_master_options(CLI::App& master, MasterOptions& options) {
  master
      .add_option("--config", options.config,
                  "The agents to poll and how (docs/master.md); default: $NVGPU_CLUSTER_CFG, an "
                  "nvgpu cluster config")
      ->option_text("FILE");
  master
      .add_option("--listen", options.listen,
                  fmt::format("Serve the fleet on HOST:PORT (default {})", kMasterDefaultListen))
      ->option_text("HOST:PORT");
  master
      .add_option("--token-file", options.token_file,
                  "Require \"Authorization: Bearer <token>\" with the token in FILE")
      ->option_text("FILE");
  master.add_flag("--insecure", options.insecure,
                  "Allow a non-loopback --listen address without a token (logged as a warning)");
  master.add_option("--tls-cert", options.tls_cert, "Serve https with this certificate (PEM)")
      ->option_text("FILE");
  master.add_option("--tls-key", options.tls_key, "The private key of --tls-cert (PEM)")
      ->option_text("FILE");
  master
      .add_option("--prometheus", options.prometheus,
                  "Read the fleet from this Prometheus server instead of polling the agents")
      ->option_text("URL");
  master
      .add_option("--quota", options.quota,
                  "With --prometheus: the quota file whose standing the fleet's usage "
                  "(GET /api/v1/usage, the page's Usage) reports (docs/report.md)")
      ->option_text("FILE");
  master.add_flag("--once", options.once,
                  "Poll once, print the fleet document (GET /api/v1/fleet) and exit");
}

std::expected<MasterSettings, Error> resolve_master_options(const CLI::App& master,
                                                            const MasterOptions& options,
                                                            std::string_view self_name,
                                                            const char* nvgpu_cluster_cfg) {
  // nvgpu's master reads its agents from the file $NVGPU_CLUSTER_CFG names: so does this one,
  // when no --config is given.
  const bool from_nvgpu =
      options.config.empty() && nvgpu_cluster_cfg != nullptr && *nvgpu_cluster_cfg != '\0';
  const std::string config_file = from_nvgpu ? std::string(nvgpu_cluster_cfg) : options.config;
  // Prometheus mode polls no agent: the file is optional there (the defaults serve).
  if (config_file.empty() && options.prometheus.empty()) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              "gpumeter master: --config FILE is required: the agents to poll "
              "(docs/master.md), or set NVGPU_CLUSTER_CFG to an nvgpu cluster "
              "config, or read the fleet from Prometheus with --prometheus URL"});
  }
  auto config = config_file.empty() ? std::expected<MasterConfig, Error>(MasterConfig{})
                                    : read_master_config(config_file, self_name);
  if (!config) return std::unexpected(std::move(config.error()));
  MasterSettings settings{
      .config_file = config_file, .config = std::move(*config), .once = options.once};
  const MasterFileOptions& file = settings.config.options;
  if (given(master, "--listen")) {
    settings.listen = options.listen;
  } else if (file.listen) {
    settings.listen = *file.listen;
  }
  settings.token_file = path_option(master, "--token-file", options.token_file, file.token_file);
  settings.tls_cert = path_option(master, "--tls-cert", options.tls_cert, file.tls_cert);
  settings.tls_key = path_option(master, "--tls-key", options.tls_key, file.tls_key);
  settings.insecure =
      given(master, "--insecure") ? options.insecure : file.insecure.value_or(false);
  settings.prometheus_text =
      given(master, "--prometheus") ? options.prometheus : file.prometheus.value_or("");
  if (!settings.prometheus_text.empty()) {
    auto url = master::parse_agent_url(settings.prometheus_text, master::kDefaultPrometheusPort);
    if (!url) {
      return std::unexpected(
          Error{ErrorCode::invalid_input, "--prometheus: " + url.error().message});
    }
    settings.prometheus = std::move(*url);
  } else if (!options.quota.empty()) {
    return std::unexpected(Error{ErrorCode::invalid_input,
                                 "--quota: the master reports usage from Prometheus only: add "
                                 "--prometheus URL (or report quotas on each machine's daemon)"});
  } else if (settings.config.agents.empty()) {
    return std::unexpected(Error{
        ErrorCode::invalid_input,
        fmt::format("{}: no [[agent]] tables (expected at least one, or prometheus = \"URL\")",
                    config_file)});
  }
  if (!options.quota.empty()) {
    auto quotas = view::read_quota_file(options.quota);
    if (!quotas) return std::unexpected(std::move(quotas.error()));
    settings.quotas = std::move(*quotas);
  }
  return settings;
}

}  // namespace gpumeter::cli

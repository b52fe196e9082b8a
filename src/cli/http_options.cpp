// SPDX-License-Identifier: MIT
#include "cli/http_options.h"

#include <utility>

#include "cli/daemon_options.h"
#include "net/listen_address.h"
#include "net/token_file.h"

namespace gpumeter::cli {
namespace {

CLI::Validator listen_validator() {
  return CLI::Validator(
      [](const std::string& text) {
        const auto address = net::parse_listen(text);
        // CLI11 names the option itself.
        constexpr std::string_view kPrefix = "--listen ";
        if (address) return std::string{};
        const std::string& message = address.error().message;
        return message.starts_with(kPrefix) ? message.substr(kPrefix.size()) : message;
      },
      "HOST:PORT");
}

std::optional<std::filesystem::path> path_or_none(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return std::filesystem::path(text);
}

}  // namespace

void add_http_options(CLI::App& daemon, HttpOptions& options) {
  daemon
      .add_option("--listen", options.listen,
                  "Serve the HTTP API on HOST:PORT, [IPV6]:PORT or :PORT (default "
                  "127.0.0.1:9416; another address than loopback needs --token-file or "
                  "--insecure)")
      ->option_text("HOST:PORT")
      ->check(listen_validator());
  daemon.add_flag("--no-http", options.no_http, "Serve no HTTP API");
  daemon
      .add_option("--token-file", options.token_file,
                  "Require \"Authorization: Bearer TOKEN\", the token being the content of FILE "
                  "(not readable by every user)")
      ->option_text("FILE");
  daemon.add_flag("--insecure", options.insecure,
                  "Serve an address other than loopback without a token (logged as a warning)");
  daemon
      .add_option("--tls-cert", options.tls_cert, "Serve HTTPS with this certificate chain (PEM)")
      ->option_text("FILE");
  daemon.add_option("--tls-key", options.tls_key, "The private key of --tls-cert (PEM)")
      ->option_text("FILE");
  daemon
      .add_option("--quota", options.quota,
                  "Quota file whose standing GET /api/v1/usage reports (docs/report.md)")
      ->option_text("FILE");
  daemon
      .add_option("--request-deadline", options.request_deadline,
                  "Stop a request's history database queries after DURATION and answer 503, "
                  "10ms to 10m (default 5s)")
      ->option_text("DURATION");
}

std::expected<std::optional<HttpSettings>, Error> resolve_http_options(const HttpOptions& options) {
  if (options.no_http) return std::nullopt;
  HttpSettings settings;
  auto listen = net::parse_listen(options.listen);
  if (!listen) return std::unexpected(std::move(listen.error()));
  settings.config.listen = std::move(*listen);
  settings.config.insecure = options.insecure;
  settings.config.tls_certificate = path_or_none(options.tls_cert);
  settings.config.tls_key = path_or_none(options.tls_key);
  if (!options.token_file.empty()) {
    auto token = net::read_token_file(options.token_file);
    if (!token) return std::unexpected(std::move(token.error()));
    settings.config.token = std::move(*token);
  }
  const auto deadline = parse_duration(options.request_deadline);
  if (!deadline || *deadline < std::chrono::milliseconds(10) ||
      *deadline > std::chrono::minutes(10)) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              "--request-deadline: a duration from 10ms to 10m, such as 5s or 30s"});
  }
  settings.request_deadline = *deadline;
  if (!options.quota.empty()) {
    auto quotas = view::read_quota_file(options.quota);
    if (!quotas) return std::unexpected(std::move(quotas.error()));
    settings.quotas = std::move(*quotas);
  }
  return settings;
}

}  // namespace gpumeter::cli

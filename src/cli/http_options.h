// SPDX-License-Identifier: MIT
// The HTTP options of `gpumeter daemon` (docs/http.md): where the agent listens, its bearer
// token, TLS, and the quota file its usage route reports against. Their config file keys are
// the same names.
#pragma once

#include <CLI/CLI.hpp>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "net/http_server.h"
#include "net/request_deadline.h"
#include "view/quota.h"

namespace gpumeter::cli {

struct HttpOptions {
  std::string listen = "127.0.0.1:9416";
  bool no_http = false;
  std::string token_file;  // empty: no token
  bool insecure = false;
  std::string tls_cert;
  std::string tls_key;
  std::string quota;  // empty: no quota file
  std::string request_deadline = "5s";
};

// What the options resolve to; absent with --no-http.
struct HttpSettings {
  net::HttpConfig config;
  std::optional<view::QuotaFile> quotas;
  // How long one request may spend in the history database (net/request_deadline.h).
  std::chrono::milliseconds request_deadline = net::kRequestDeadline;
};

// Registers the options on the daemon.
void add_http_options(CLI::App& daemon, HttpOptions& options);

// Validates the options, reads the token file and the quota file. With --no-http nothing
// else is looked at. Errors: invalid_input for a bad --listen or quota file, those of
// net::read_token_file; the security rules are checked when the server opens.
std::expected<std::optional<HttpSettings>, Error> resolve_http_options(const HttpOptions& options);

}  // namespace gpumeter::cli

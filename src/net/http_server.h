// SPDX-License-Identifier: MIT
// The HTTP server of `gpumeter daemon` and `gpumeter master`: GNU libmicrohttpd (event-driven:
// a held connection costs memory within its limit, never a thread) behind the project's
// security rules (docs/http.md). It binds to loopback unless told otherwise; a non-loopback
// address needs a bearer token or an explicit `insecure`; TLS is optional. It answers GET (and
// HEAD) only. Every connection is bounded in memory, header fields, time and number; every
// refusal is a JSON error: 400 for a malformed request, 401 for a missing or wrong token, 404
// for an unknown path, 405 for another method, 413 for a body, 414 and 431 for a request
// target or header too large, 421 for a Host name the server does not answer to.
//
// The routes keep httplib's Request and Response types (plain structs), filled and sent by
// http_exchange. httplib.h is included directly only under src/net (its compile definitions
// come with PkgConfig::HTTPLIB, which gpumeter::net passes on to its users, src/master's route
// among them).
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/listen_address.h"

namespace gpumeter::net {

struct HttpConfig {
  ListenAddress listen;
  std::optional<std::string> token;  // bearer token (read from --token-file); never empty
  bool insecure = false;             // allow a non-loopback address without a token (warned)
  std::optional<std::filesystem::path> tls_certificate, tls_key;  // both or neither (PEM)
  // Extra names the Host header may carry besides loopback names and the --listen host.
  std::vector<std::string> allowed_hosts;

  // Limits (docs/http.md lists each with what happens when it is exceeded).
  std::size_t max_request_bytes = std::size_t{64} * 1024;  // largest request body (GET has none)
  std::size_t max_uri_bytes = std::size_t{8} * 1024;       // request target, decoded
  std::size_t max_header_fields = 100;
  std::size_t max_header_bytes = std::size_t{16} * 1024;  // names and values together
  // Memory a connection may hold for its request head and read buffer; a head that does not
  // fit is refused by the library (431, or 414 for the request line).
  std::size_t connection_memory_bytes = std::size_t{32} * 1024;
  unsigned max_connections = 512;              // in total; more are closed on accept
  unsigned max_connections_per_address = 128;  // from one client address
  std::chrono::seconds idle_timeout{5};        // no byte received or sent: closed
  std::chrono::seconds request_timeout{10};    // a whole request head, from the connection's
                                               // start or the previous response's end
  std::chrono::seconds response_timeout{60};   // from a whole head to the response written
  unsigned threads = 0;                        // event loops; 0: the number of cores, 16 to 64
};

// Who may call a route. `token` routes need "Authorization: Bearer <token>" when the server
// has a token; `open` routes (the dashboard's assets, /healthz) never do.
enum class Access : std::uint8_t { token, open };

// What a person should know about a configuration that open() accepts: serving without a
// token off loopback (--insecure), a token sent in clear text off loopback. One line each;
// the daemon logs them at every start.
std::vector<std::string> security_warnings(const HttpConfig& config);

class HttpServer {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

  // Checks the security rules, loads TLS and binds (port 0: any free port). Errors:
  // invalid_input for a non-loopback address without a token or `insecure`, an empty
  // token, only one of the TLS files, or a TLS file that holds no usable certificate or key
  // (naming the file); io for an unreadable TLS file or an address that cannot be bound.
  static std::expected<std::unique_ptr<HttpServer>, Error> open(const HttpConfig& config);

  ~HttpServer();  // stops
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Routes a GET (and HEAD) request whose path matches `pattern` (a std::regex, matched
  // against the whole decoded path: "/api/v1/status", "/assets/(.+)"; the request's `matches`
  // hold the groups) to `handler`, which runs on one of the server's event-loop threads,
  // several at once; while it runs, the other connections of its loop wait. Register every
  // route before start().
  void get(const std::string& pattern, Handler handler, Access access = Access::token);

  int port() const noexcept;                      // the bound port
  const ListenAddress& address() const noexcept;  // the host asked for and the bound port
  std::string url() const;                        // "http://127.0.0.1:9416", "https://[::1]:8443"

  // Serves on the server's own threads until stop(). stop() waits for the requests in
  // progress; keep-alive connections are closed. Both are idempotent; a stopped server does
  // not start again. open() has already checked that the library accepts the configuration,
  // so start() does not fail.
  void start();
  void stop();

  // Responses sent so far, by status code (for the server's own metrics). Refusals the library
  // makes before a request reaches the server (connection limits, a head that does not fit in
  // the connection's memory) are not counted.
  std::map<int, std::uint64_t> requests_by_status() const;

 private:
  struct State;
  explicit HttpServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace gpumeter::net

// The HTTP server of `gpumeter daemon` and `gpumeter master`: cpp-httplib behind the
// project's security rules (docs/http.md). It binds to loopback unless told otherwise; a
// non-loopback address needs a bearer token or an explicit `insecure`; TLS is optional. It
// answers GET (and HEAD) only: 405 for other methods, 413 for a request with a body larger
// than the limit, 401 for a missing or wrong token, 404 for an unknown path, JSON errors.
//
// httplib.h is included only under src/net (its compile definitions come with
// PkgConfig::HTTPLIB, which gpumeter::net passes on to its users).
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
  std::size_t max_request_bytes = std::size_t{64} * 1024;  // largest request body (GET has none)
  std::chrono::seconds read_timeout{5}, write_timeout{5};
  unsigned threads = 0;  // 0: a default fit for 64 concurrent keep-alive clients
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

  // Routes a GET (and HEAD) request whose path matches `pattern` (an httplib regex, matched
  // against the whole path: "/api/v1/status", "/assets/(.+)") to `handler`, which runs on one
  // of the server's threads, several at once. Register every route before start().
  void get(const std::string& pattern, Handler handler, Access access = Access::token);

  int port() const noexcept;                      // the bound port
  const ListenAddress& address() const noexcept;  // the host asked for and the bound port
  std::string url() const;                        // "http://127.0.0.1:9416", "https://[::1]:8443"

  // Serves on the server's own threads until stop(). stop() waits for the requests in
  // progress; keep-alive connections are closed. Both are idempotent; a stopped server does
  // not start again.
  void start();
  void stop();

  // Responses sent so far, by status code (for the server's own metrics).
  std::map<int, std::uint64_t> requests_by_status() const;

 private:
  struct State;
  explicit HttpServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace gpumeter::net

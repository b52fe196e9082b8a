#include "net/http_server.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

#include "net/bearer_token.h"
#include "net/response.h"
#include "net/tls_context.h"

namespace gpumeter::net {
namespace {

// Each keep-alive connection holds a thread while it is open (httplib serves a connection on
// one thread), so 64 concurrent clients need 64 threads, plus a few for new connections and
// health probes.
constexpr unsigned kDefaultThreads = 64 + 8;
// Requests on one connection before the server closes it, so that no client holds a thread
// for ever; high enough that benchmarks and dashboards rarely reconnect.
constexpr std::size_t kKeepAliveRequests = 1000;
constexpr time_t kKeepAliveIdleSeconds = 5;

using Routed = httplib::Server::HandlerResponse;

struct Rules {
  std::optional<std::string> token;
  std::size_t max_request_bytes = 0;
};

std::string_view reason(int status) {
  switch (status) {
    case 400: return "bad request";
    case 401: return "missing or wrong bearer token";
    case 404: return "no such path";
    case 405: return "method not allowed: only GET and HEAD are served";
    case 413: return "request too large";
    case 414: return "request URI too long";
    case 500: return "internal error";
    case 503: return "not ready";
    default: return "HTTP error";
  }
}

// The request's body length as announced: unbounded for a body of unknown length
// (chunked), absent for a length that is not a number.
std::optional<std::size_t> announced_body_bytes(const httplib::Request& request) {
  if (request.has_header("Transfer-Encoding")) return SIZE_MAX;
  if (!request.has_header("Content-Length")) return 0;
  const std::string text = request.get_header_value("Content-Length");
  std::size_t bytes = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (error == std::errc::result_out_of_range) return SIZE_MAX;
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return bytes;
}

// httplib answers a client that accepts brotli with brotli, whose compression costs 11 ms of CPU
// for a status document (gzip: 0.4 ms), and every browser accepts it: a dashboard left open
// would cost the daemon a few percent of a core. Offering only the client's other encodings
// keeps compression (gzip) at a fraction of that. The request is httplib's own modifiable
// object, handed to this handler as const.
void decline_brotli(const httplib::Request& request) {
  auto& headers = const_cast<httplib::Request&>(request).headers;  // NOLINT(*-const-cast)
  const auto accepted = headers.find("Accept-Encoding");
  if (accepted == headers.end() || accepted->second.find("br") == std::string::npos) return;
  std::string kept;
  std::string_view rest = accepted->second;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    if (item.empty() || item.starts_with("br")) continue;
    if (!kept.empty()) kept += ", ";
    kept += item;
  }
  accepted->second = kept;
}

// Before routing: refuses what no route reads. No route reads a request body, so the answer
// to a request that has one asks the client to close the connection (httplib would read the
// unread body as the next request).
Routed screen(const Rules& rules, const httplib::Request& request, httplib::Response& response) {
  const std::optional<std::size_t> body = announced_body_bytes(request);
  if (body != 0) response.set_header("Connection", "close");
  if (!body) {
    reply_error(response, 400, "Content-Length is not a number");
    return Routed::Handled;
  }
  if (*body > rules.max_request_bytes) {
    reply_error(response, 413,
                fmt::format("request body larger than {} bytes", rules.max_request_bytes));
    return Routed::Handled;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    response.set_header("Allow", "GET, HEAD");
    reply_error(response, 405, reason(405));
    return Routed::Handled;
  }
  return Routed::Unhandled;
}

bool authorized(const httplib::Request& request, const std::string& token) {
  const std::string header = request.get_header_value("Authorization");
  const std::string_view given = bearer_token(header);
  return !given.empty() && same_token(given, token);
}

// Only SO_REUSEADDR (a restarted daemon binds again at once), not httplib's default
// SO_REUSEPORT, which would let a second daemon share the port silently.
void reuse_address(socket_t socket) {
  const int yes = 1;
  ::setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

std::expected<std::unique_ptr<httplib::Server>, Error> make_server(const HttpConfig& config) {
  if (!config.tls_certificate) return std::make_unique<httplib::Server>();
  Error failure{ErrorCode::internal, "cannot set up TLS"};
  auto server = std::make_unique<httplib::SSLServer>([&](SSL_CTX& context) {
    auto configured = configure_tls(context, *config.tls_certificate, *config.tls_key);
    if (!configured) failure = std::move(configured.error());
    return configured.has_value();
  });
  if (!server->is_valid()) return std::unexpected(std::move(failure));
  return server;
}

std::expected<void, Error> check_rules(const HttpConfig& config) {
  if (config.token && config.token->empty()) {
    return std::unexpected(Error{ErrorCode::invalid_input, "the bearer token is empty"});
  }
  if (config.tls_certificate.has_value() != config.tls_key.has_value()) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, "TLS needs both --tls-cert FILE and --tls-key FILE"});
  }
  if (is_loopback(config.listen.host) || config.token || config.insecure) return {};
  return std::unexpected(Error{
      ErrorCode::invalid_input,
      fmt::format("--listen {}: other machines can reach this address; give --token-file FILE "
                  "(or --insecure to serve it without a token)",
                  to_string(config.listen))});
}

}  // namespace

std::vector<std::string> security_warnings(const HttpConfig& config) {
  std::vector<std::string> warnings;
  const bool loopback = is_loopback(config.listen.host);
  if (config.insecure && !config.token) {
    warnings.push_back(
        loopback ? "--insecure has no effect on a loopback address"
                 : fmt::format("--insecure: serving {} without a token; anyone who reaches it "
                               "reads GPU users and command lines",
                               to_string(config.listen)));
  }
  if (config.token && !loopback && !config.tls_certificate) {
    warnings.push_back(
        "the bearer token travels in clear text over plain HTTP; give --tls-cert and --tls-key");
  }
  return warnings;
}

struct HttpServer::State {
  HttpConfig config;
  std::unique_ptr<httplib::Server> server;
  ListenAddress bound;
  int listening_socket = -1;  // the last socket httplib made to bind
  bool started = false;
  std::thread thread;
  std::atomic<bool> finished{false};
  mutable std::mutex counts_mutex;
  std::map<int, std::uint64_t> counts;

  void configure() {
    const Rules rules{.max_request_bytes = config.max_request_bytes};
    const unsigned threads = config.threads > 0 ? config.threads : kDefaultThreads;
    server->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server->set_socket_options([this](socket_t socket) {
      reuse_address(socket);
      listening_socket = socket;
    });
    server->set_tcp_nodelay(true);
    server->set_payload_max_length(config.max_request_bytes);
    server->set_read_timeout(config.read_timeout);
    server->set_write_timeout(config.write_timeout);
    server->set_keep_alive_max_count(kKeepAliveRequests);
    server->set_keep_alive_timeout(kKeepAliveIdleSeconds);
    server->set_pre_routing_handler(
        [rules](const httplib::Request& request, httplib::Response& response) {
          decline_brotli(request);
          return screen(rules, request, response);
        });
    // Errors httplib itself answers (404, 400 for a malformed request) get the JSON shape too.
    server->set_error_handler(httplib::Server::HandlerWithResponse(
        [](const httplib::Request&, httplib::Response& response) {
          if (response.body.empty()) {
            reply_error(response, response.status, reason(response.status));
          }
          return Routed::Handled;
        }));
    // A handler's exception becomes a 500 without its text (httplib would send it in a header).
    server->set_exception_handler(
        [](const httplib::Request&, httplib::Response& response, const std::exception_ptr&) {
          reply_error(response, 500, reason(500));
        });
    // Counted before the response is written (the logger runs after), so that a client that
    // has its answer also finds it counted.
    server->set_post_routing_handler(
        [this](const httplib::Request&, const httplib::Response& response) {
          const std::lock_guard lock(counts_mutex);
          ++counts[response.status];
        });
  }

  std::expected<void, Error> bind() {
    errno = 0;
    const auto& host = config.listen.host;
    const int port = config.listen.port == 0 ? server->bind_to_any_port(host)
                     : server->bind_to_port(host, config.listen.port) ? config.listen.port
                                                                      : -1;
    if (port > 0) {
      bound = ListenAddress{.host = host, .port = port};
      // httplib listens with a backlog of 5: 64 clients reconnecting at once would overflow it
      // and wait a second for their SYN to be sent again. Listening again only resizes it.
      ::listen(listening_socket, SOMAXCONN);
      return {};
    }
    const std::string why = errno != 0 ? std::strerror(errno) : "no such address";
    return std::unexpected(Error{
        ErrorCode::io, fmt::format("cannot listen on {}: {}", to_string(config.listen), why)});
  }
};

std::expected<std::unique_ptr<HttpServer>, Error> HttpServer::open(const HttpConfig& config) {
  if (auto allowed = check_rules(config); !allowed) return std::unexpected(allowed.error());
  auto server = make_server(config);
  if (!server) return std::unexpected(std::move(server.error()));
  auto state = std::make_unique<State>();
  state->config = config;
  state->server = std::move(*server);
  state->configure();
  if (auto bound = state->bind(); !bound) return std::unexpected(std::move(bound.error()));
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(state)));
}

HttpServer::HttpServer(std::unique_ptr<State> state) : state_(std::move(state)) {}

HttpServer::~HttpServer() {
  stop();
  // A server that never ran still holds its bound socket: httplib closes it only in stop().
  if (!state_->started && state_->listening_socket >= 0) ::close(state_->listening_socket);
}

void HttpServer::get(const std::string& pattern, Handler handler, Access access) {
  const std::optional<std::string>& token = state_->config.token;
  if (access == Access::open || !token.has_value()) {
    state_->server->Get(pattern, std::move(handler));
    return;
  }
  state_->server->Get(pattern, [token = *token, handler = std::move(handler)](
                                   const httplib::Request& request, httplib::Response& response) {
    if (!authorized(request, token)) {
      response.set_header("WWW-Authenticate", R"(Bearer realm="gpumeter")");
      reply_error(response, 401, reason(401));
      return;
    }
    handler(request, response);
  });
}

int HttpServer::port() const noexcept {
  return state_->bound.port;
}

const ListenAddress& HttpServer::address() const noexcept {
  return state_->bound;
}

std::string HttpServer::url() const {
  return fmt::format("{}://{}", state_->config.tls_certificate ? "https" : "http",
                     to_string(state_->bound));
}

void HttpServer::start() {
  if (state_->started) return;
  state_->started = true;
  state_->thread = std::thread([state = state_.get()] {
    state->server->listen_after_bind();
    state->finished = true;
  });
  // httplib's stop() does nothing until the server runs: wait for that, so that a stop()
  // right after start() is not lost.
  while (!state_->server->is_running() && !state_->finished) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void HttpServer::stop() {
  if (!state_->thread.joinable()) return;
  state_->server->stop();
  state_->thread.join();
}

std::map<int, std::uint64_t> HttpServer::requests_by_status() const {
  const std::lock_guard lock(state_->counts_mutex);
  return state_->counts;
}

}  // namespace gpumeter::net

// SPDX-License-Identifier: MIT
#include "net/http_server.h"

#include <fmt/format.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <iterator>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>

#include "net/bearer_token.h"
#include "net/blocked_signals.h"
#include "net/connection_watch.h"
#include "net/host_allow_list.h"
#include "net/http_exchange.h"
#include "net/listen_socket.h"
#include "net/request_screen.h"
#include "net/response.h"
#include "net/tls_context.h"
#include "task/heap_release.h"

namespace gpumeter::net {
namespace {

// Once an answer of this size or more is sent, the freed heap goes back to the kernel
// (task::release_free_heap). Not after smaller ones: a purge after every answer cut
// /api/v1/status of 8 GPUs x 64 processes (about 320 kB) from 8,810 to 3,399 requests/s.
constexpr std::size_t kLargeAnswerBytes = std::size_t{1} << 20U;

// TLS 1.2 and later, as the OpenSSL check of the same files asks for.
constexpr const char* kTlsPriorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";

struct Route {
  std::regex pattern;
  HttpServer::Handler handler;
  Access access;
};

struct Tls {
  std::string certificate, key;  // PEM text
};

std::expected<std::string, Error> read_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  if (file) text << file.rdbuf();
  if (!file) {
    return std::unexpected(Error{ErrorCode::io, fmt::format("cannot read {}", path.string())});
  }
  return text.str();
}

// The PEM files, checked by OpenSSL first so that a bad file is named with OpenSSL's reason.
std::expected<std::optional<Tls>, Error> load_tls(const HttpConfig& config) {
  if (!config.tls_certificate || !config.tls_key) return std::optional<Tls>{};
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> context(SSL_CTX_new(TLS_server_method()),
                                                            &SSL_CTX_free);
  if (!context) return std::unexpected(Error{ErrorCode::internal, "cannot set up TLS"});
  auto usable = configure_tls(*context, *config.tls_certificate, *config.tls_key);
  if (!usable) return std::unexpected(std::move(usable.error()));
  auto certificate = read_text(*config.tls_certificate);
  if (!certificate) return std::unexpected(std::move(certificate.error()));
  auto key = read_text(*config.tls_key);
  if (!key) return std::unexpected(std::move(key.error()));
  return Tls{.certificate = std::move(*certificate), .key = std::move(*key)};
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

bool authorized(const httplib::Request& request, const std::string& token) {
  const std::string header = request.get_header_value("Authorization");
  const std::string_view given = bearer_token(header);
  return !given.empty() && same_token(given, token);
}

ConnectionWatch::Watched* watched(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info != nullptr ? static_cast<ConnectionWatch::Watched*>(info->socket_context) : nullptr;
}

// One event loop per core, and at least 16: a loop serves its connections one handler at a
// time, so a slow request (a long history window) holds back only its loop's share of them,
// and on a busy machine a loop that waits for a core delays only its own. On 2 shared cores,
// 16 loops served /metrics 20-60 % faster than 4, with a third of the p99 (docs/benchmarks.md).
unsigned default_threads() {
  return std::clamp(std::thread::hardware_concurrency(), 16U, 64U);
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
  std::optional<Tls> tls;
  HostAllowList hosts;
  ScreenLimits limits;
  std::vector<Route> routes;
  ListenAddress bound;
  int listen_fd = -1;
  bool started = false;
  MHD_Daemon* daemon = nullptr;
  std::unique_ptr<ConnectionWatch> watch;
  mutable std::mutex counts_mutex;
  std::map<int, std::uint64_t> counts;

  State(const HttpConfig& configured, std::optional<Tls> pem)
      : config(configured),
        tls(std::move(pem)),
        hosts(configured.listen.host, configured.allowed_hosts),
        limits{.max_uri_bytes = configured.max_uri_bytes,
               .max_header_fields = configured.max_header_fields,
               .max_header_bytes = configured.max_header_bytes,
               .max_body_bytes = configured.max_request_bytes} {}

  void count(int status) {
    const std::lock_guard lock(counts_mutex);
    ++counts[status];
  }

  // A route's answer; 401 for a token route without the token, 500 for an exception (without
  // its text, which may name files or users), 404 for no route.
  void route(httplib::Request& request, httplib::Response& response) const {
    for (const Route& candidate : routes) {
      if (!std::regex_match(request.path, request.matches, candidate.pattern)) continue;
      if (candidate.access == Access::token && config.token &&
          !authorized(request, *config.token)) {
        response.set_header("WWW-Authenticate", R"(Bearer realm="gpumeter")");
        reply_error(response, 401, "missing or wrong bearer token");
        return;
      }
      call(candidate.handler, request, response);
      return;
    }
    reply_error(response, 404, "no such path");
  }

  static void call(const Handler& handler, const httplib::Request& request,
                   httplib::Response& response) {
    try {
      handler(request, response);
    } catch (const std::exception&) {
      response = httplib::Response{};
      reply_error(response, 500, "internal error");
    }
  }

  // A request whose head has been read; `answered` once its response is queued.
  struct Exchange {
    httplib::Request request;
    bool close = false;
    bool answered = false;
    std::size_t body_bytes = 0;  // of the answer, before compression
  };

  bool answer(MHD_Connection* connection, Exchange& exchange, httplib::Response& response) {
    exchange.answered = true;
    exchange.body_bytes = response.body.size();
    count(response.status > 0 ? response.status : 200);
    return send_response(connection, exchange.request, response, exchange.close);
  }

  // The first call, with the head read: a refusal is answered at once (the library then
  // closes the connection without reading the body); anything else is answered on the call
  // that says the body is over, since a response queued earlier makes the library close the
  // connection (and lose pipelined requests).
  bool head_read(MHD_Connection* connection, Exchange& exchange) {
    exchange.close = announces_body(exchange.request);
    auto refusal = screen(exchange.request, target_bytes(exchange.request), limits, hosts);
    if (!refusal) return true;
    httplib::Response response;
    if (refusal->status == 405) response.set_header("Allow", "GET, HEAD");
    reply_error(response, refusal->status, refusal->reason);
    exchange.close = exchange.close || refusal->close;
    return answer(connection, exchange, response);
  }

  // The total cap, checked on accept so that a connection over it is closed at once: the
  // library's own limit stops accepting instead, which leaves new clients waiting in the
  // listen backlog until a slot frees.
  static MHD_Result on_accept(void* self, const sockaddr* /*address*/, socklen_t /*size*/) {
    const State& state = *static_cast<const State*>(self);
    return state.watch->open_connections() < state.config.max_connections ? MHD_YES : MHD_NO;
  }

  // A connection the library closes with bytes it never parsed as a request line gets a 400
  // (the library answers every other malformed request itself), or a 408 when it ran out of
  // time; plain HTTP only, as the bytes of a TLS connection are not ours to write.
  void last_words(const ConnectionWatch::Watched& connection) {
    if (tls || !connection.unparsed_bytes()) return;
    // Malformed bytes are closed on at once; a connection quiet for a while timed out.
    const bool late = connection.cut() || connection.quiet() * 2 >= config.idle_timeout;
    send_last_words(connection.fd(), late ? 408 : 400,
                    late ? "the request did not arrive in time"
                         : "malformed request line: expected METHOD TARGET HTTP/1.1");
    count(late ? 408 : 400);
  }

  static void on_connection(void* self, MHD_Connection* connection, void** context,
                            MHD_ConnectionNotificationCode code) {
    auto& state = *static_cast<State*>(self);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      const MHD_ConnectionInfo* info =
          MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
      if (info == nullptr) return;
      // Responses leave at once: Nagle's algorithm would hold a response's last segment
      // until the client acknowledges the previous one, which it delays by up to 40 ms.
      const int yes = 1;
      ::setsockopt(info->connect_fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
      *context = state.watch->opened(info->connect_fd);
      return;
    }
    // The library closes the socket after this notification, so it is still ours to write.
    auto* closing = static_cast<ConnectionWatch::Watched*>(*context);
    if (closing == nullptr) return;
    state.last_words(*closing);
    state.watch->closed(closing);
    *context = nullptr;
  }

  static void* on_request_line(void* /*self*/, const char* /*uri*/, MHD_Connection* connection) {
    if (auto* connection_watch = watched(connection)) connection_watch->request_line_read();
    return nullptr;  // the request's context, set on its first call
  }

  static MHD_Result on_request(void* self, MHD_Connection* connection, const char* path,
                               const char* method, const char* version, const char* /*upload*/,
                               std::size_t* upload_bytes, void** request_context) {
    auto& state = *static_cast<State*>(self);
    if (*request_context == nullptr) {
      if (auto* connection_watch = watched(connection)) connection_watch->request_read();
      auto* exchange = new Exchange{.request = read_request(connection, method, path, version)};
      *request_context = exchange;  // deleted by on_completed
      return state.head_read(connection, *exchange) ? MHD_YES : MHD_NO;
    }
    auto& exchange = *static_cast<Exchange*>(*request_context);
    if (*upload_bytes != 0 || exchange.answered) {
      *upload_bytes = 0;  // a body no route reads: dropped
      return MHD_YES;
    }
    httplib::Response response;
    state.route(exchange.request, response);
    return state.answer(connection, exchange, response) ? MHD_YES : MHD_NO;
  }

  static void on_completed(void* /*self*/, MHD_Connection* connection, void** request_context,
                           MHD_RequestTerminationCode /*why*/) {
    if (auto* connection_watch = watched(connection)) connection_watch->response_sent();
    auto* exchange = static_cast<Exchange*>(*request_context);
    const bool large = exchange != nullptr && exchange->body_bytes >= kLargeAnswerBytes;
    delete exchange;  // NOLINT(*-owning-memory)
    *request_context = nullptr;
    // A large answer's document, its text and the library's copy are freed by now, in the
    // malloc arena of this server thread, which no other thread reuses: given back at once,
    // not when the allocator's decay or trim comes round (40 answers of 1,000 tasks with the
    // largest labels one after another, each served by the next thread, took the daemon
    // from 34 MB to 238 MB).
    if (large) task::release_free_heap();
  }

  std::vector<MHD_OptionItem> options(bool with_listen_socket) {
    const unsigned threads = config.threads > 0 ? config.threads : default_threads();
    std::vector<MHD_OptionItem> items{
        {MHD_OPTION_THREAD_POOL_SIZE, threads, nullptr},
        // Above the cap on_accept keeps, which the event loops may overshoot together by one
        // each; at the library's limit it would stop accepting (see on_accept).
        {MHD_OPTION_CONNECTION_LIMIT, config.max_connections + threads, nullptr},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, config.max_connections_per_address, nullptr},
        {MHD_OPTION_CONNECTION_TIMEOUT, config.idle_timeout.count(), nullptr},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<intptr_t>(config.connection_memory_bytes),
         nullptr},
        // Strict parsing, but the Host rule is checked by screen(), whose refusal is JSON.
        {MHD_OPTION_STRICT_FOR_CLIENT, 0, nullptr},
        {MHD_OPTION_NOTIFY_CONNECTION, reinterpret_cast<intptr_t>(&on_connection),  // NOLINT
         this},
        {MHD_OPTION_URI_LOG_CALLBACK, reinterpret_cast<intptr_t>(&on_request_line),  // NOLINT
         this},
        {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(&on_completed),  // NOLINT
         this},
    };
    if (with_listen_socket) items.push_back({MHD_OPTION_LISTEN_SOCKET, listen_fd, nullptr});
    if (tls) {
      items.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, tls->certificate.data()});
      items.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, tls->key.data()});
      items.push_back(
          {MHD_OPTION_HTTPS_PRIORITIES, 0, const_cast<char*>(kTlsPriorities)});  // NOLINT
    }
    items.push_back({MHD_OPTION_END, 0, nullptr});
    return items;
  }

  MHD_Daemon* start_daemon(bool with_listen_socket) {
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TURBO;
    if (tls) flags |= MHD_USE_TLS;
    if (!with_listen_socket) flags |= MHD_USE_NO_LISTEN_SOCKET;
    std::vector<MHD_OptionItem> items = options(with_listen_socket);
    return with_signals_blocked([&] {
      return MHD_start_daemon(flags, 0, &on_accept, this, &on_request, this, MHD_OPTION_ARRAY,
                              items.data(), MHD_OPTION_END);
    });
  }

  // Starts the library once without a socket, so that a configuration it refuses (GnuTLS
  // rejecting a certificate OpenSSL took) is an error of open(), not of start().
  std::expected<void, Error> check_library() {
    MHD_Daemon* trial = start_daemon(false);
    if (trial == nullptr) {
      return std::unexpected(
          Error{ErrorCode::invalid_input,
                tls ? fmt::format("GnuTLS cannot use {} with {}",
                                  config.tls_certificate.value_or("").string(),
                                  config.tls_key.value_or("").string())
                    : std::string("libmicrohttpd cannot start with these limits")});
    }
    MHD_stop_daemon(trial);
    return {};
  }
};

std::expected<std::unique_ptr<HttpServer>, Error> HttpServer::open(const HttpConfig& config) {
  if (auto allowed = check_rules(config); !allowed) return std::unexpected(allowed.error());
  auto tls = load_tls(config);
  if (!tls) return std::unexpected(std::move(tls.error()));
  auto state = std::make_unique<State>(config, std::move(*tls));
  state->watch = std::make_unique<ConnectionWatch>(
      ConnectionDeadlines{.request = config.request_timeout, .response = config.response_timeout});
  if (auto usable = state->check_library(); !usable) return std::unexpected(usable.error());
  auto socket = listen_on(config.listen);
  if (!socket) return std::unexpected(std::move(socket.error()));
  state->listen_fd = socket->fd;
  state->bound = ListenAddress{.host = config.listen.host, .port = socket->port};
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(state)));
}

HttpServer::HttpServer(std::unique_ptr<State> state) : state_(std::move(state)) {}

HttpServer::~HttpServer() {
  stop();
  // A server that never ran still holds its socket: the library closes it only when it ran.
  if (!state_->started && state_->listen_fd >= 0) ::close(state_->listen_fd);
}

void HttpServer::get(const std::string& pattern, Handler handler, Access access) {
  state_->routes.push_back(
      Route{.pattern = std::regex(pattern), .handler = std::move(handler), .access = access});
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
  state_->daemon = state_->start_daemon(true);
  // Checked in open(); should the library still refuse (out of memory, descriptors), nothing
  // listens any more, so clients see a refused connection rather than a silent hang.
  if (state_->daemon == nullptr) ::close(state_->listen_fd);
}

void HttpServer::stop() {
  if (state_->daemon == nullptr) return;
  MHD_stop_daemon(state_->daemon);
  state_->daemon = nullptr;
}

std::map<int, std::uint64_t> HttpServer::requests_by_status() const {
  const std::lock_guard lock(state_->counts_mutex);
  return state_->counts;
}

}  // namespace gpumeter::net

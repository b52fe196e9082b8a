// SPDX-License-Identifier: MIT
// The server over real HTTP on loopback: routing, the token rule, limits, error shapes.
#include "net/http_server.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "net/response.h"
#include "support/outside_address.h"
#include "support/raw_http.h"

namespace gpumeter::net::http_server_test {

using testing::exchange;
using testing::send_and_read;
using testing::status_of;

constexpr const char* kToken = "correct-horse-battery";

HttpConfig loopback_config() {
  HttpConfig config;
  config.listen = ListenAddress{.host = "127.0.0.1", .port = 0};
  return config;
}

// A started server with one token route (/api/v1/echo) and one open route (/public).
std::unique_ptr<HttpServer> serve(const HttpConfig& config) {
  auto server = HttpServer::open(config);
  if (!server) throw std::runtime_error(server.error().message);
  (*server)->get("/api/v1/echo", [](const httplib::Request& request, httplib::Response& response) {
    reply_json(response,
               nlohmann::json{{"path", request.path}, {"q", request.get_param_value("q")}});
  });
  (*server)->get(
      "/public",
      [](const httplib::Request&, httplib::Response& response) {
        response.set_content("hello", "text/plain");
      },
      Access::open);
  (*server)->start();
  return std::move(*server);
}

nlohmann::json body_of(const httplib::Result& result) {
  return nlohmann::json::parse(result->body);
}

TEST(HttpServer, ServesRegisteredRoutesAsJson) {
  const auto server = serve(loopback_config());
  ASSERT_GT(server->port(), 0);
  httplib::Client client("127.0.0.1", server->port());
  const auto result = client.Get("/api/v1/echo?q=x%20y");
  ASSERT_TRUE(result) << httplib::to_string(result.error());
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(result->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(body_of(result), (nlohmann::json{{"path", "/api/v1/echo"}, {"q", "x y"}}));
  EXPECT_EQ(server->url(), "http://127.0.0.1:" + std::to_string(server->port()));
}

TEST(HttpServer, CompressesWithGzipEvenForClientsThatPreferBrotli) {
  const auto server = serve(loopback_config());
  httplib::Client client("127.0.0.1", server->port());
  client.set_decompress(false);
  const auto brotli_first = client.Get("/api/v1/echo", {{"Accept-Encoding", "br, gzip, deflate"}});
  ASSERT_TRUE(brotli_first) << httplib::to_string(brotli_first.error());
  EXPECT_EQ(brotli_first->get_header_value("Content-Encoding"), "gzip");
  const auto brotli_only = client.Get("/api/v1/echo", {{"Accept-Encoding", "br"}});
  ASSERT_TRUE(brotli_only) << httplib::to_string(brotli_only.error());
  EXPECT_FALSE(brotli_only->has_header("Content-Encoding"));
  EXPECT_EQ(body_of(brotli_only)["path"], "/api/v1/echo");
}

TEST(HttpServer, UnknownPathIsA404WithAJsonError) {
  const auto server = serve(loopback_config());
  httplib::Client client("127.0.0.1", server->port());
  const auto result = client.Get("/api/v1/nothing");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 404);
  EXPECT_TRUE(body_of(result).contains("error"));
}

TEST(HttpServer, OnlyGetAndHeadAreServed) {
  const auto server = serve(loopback_config());
  httplib::Client client("127.0.0.1", server->port());
  const auto head = client.Head("/api/v1/echo");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  for (const auto& result : {client.Post("/api/v1/echo", "x", "text/plain"),
                             client.Delete("/api/v1/echo"), client.Put("/public", "", "")}) {
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 405);
    EXPECT_EQ(result->get_header_value("Allow"), "GET, HEAD");
    EXPECT_TRUE(body_of(result).contains("error"));
  }
  const auto after = client.Get("/api/v1/echo");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
}

TEST(HttpServer, TokenRoutesNeedTheBearerToken) {
  HttpConfig config = loopback_config();
  config.token = kToken;
  const auto server = serve(config);
  httplib::Client client("127.0.0.1", server->port());

  const auto missing = client.Get("/api/v1/echo");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 401);
  EXPECT_EQ(missing->get_header_value("WWW-Authenticate"), R"(Bearer realm="gpumeter")");
  EXPECT_TRUE(body_of(missing).contains("error"));

  for (const char* wrong : {"Bearer correct-horse-batter", "Bearer correct-horse-battery2",
                            "Basic correct-horse-battery", "correct-horse-battery"}) {
    const auto refused = client.Get("/api/v1/echo", {{"Authorization", wrong}});
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 401) << wrong;
  }

  client.set_bearer_token_auth(kToken);
  const auto allowed = client.Get("/api/v1/echo");
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
}

TEST(HttpServer, OpenRoutesNeedNoToken) {
  HttpConfig config = loopback_config();
  config.token = kToken;
  const auto server = serve(config);
  httplib::Client client("127.0.0.1", server->port());
  const auto result = client.Get("/public");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(result->body, "hello");
}

TEST(HttpServer, RefusesALargeBodyAndKeepsServing) {
  HttpConfig config = loopback_config();
  config.max_request_bytes = 1024;
  const auto server = serve(config);
  const std::string body(4096, 'x');
  const std::string answer = exchange(
      server->port(),
      "GET /api/v1/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4096\r\n\r\n" + body);
  EXPECT_EQ(status_of(answer), 413) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_EQ(
      status_of(exchange(server->port(),
                         "POST /x HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "5\r\nhello\r\n0\r\n\r\n")),
      413);

  httplib::Client client("127.0.0.1", server->port());
  const auto after = client.Get("/api/v1/echo");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
}

TEST(HttpServer, AsksToCloseAConnectionWhoseBodyItDidNotRead) {
  const auto server = serve(loopback_config());
  const std::string answer =
      exchange(server->port(),
               "GET /api/v1/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_EQ(status_of(answer), 200) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
}

TEST(HttpServer, RejectsMalformedRequestsAndKeepsServing) {
  const auto server = serve(loopback_config());
  EXPECT_EQ(status_of(exchange(server->port(), "NONSENSE\r\n\r\n")), 400);
  EXPECT_EQ(status_of(exchange(server->port(),
                               "GET /api/v1/echo HTTP/1.1\r\nContent-Length: ten\r\n\r\n")),
            400);
  const std::string long_header =
      "GET /api/v1/echo HTTP/1.1\r\nHost: localhost\r\nX-Long: " + std::string(20000, 'a') +
      "\r\n\r\n";
  EXPECT_EQ(status_of(exchange(server->port(), long_header)), 431);
  const std::string long_uri =
      "GET /" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
  EXPECT_EQ(status_of(exchange(server->port(), long_uri)), 414);

  httplib::Client client("127.0.0.1", server->port());
  const auto after = client.Get("/api/v1/echo");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
}

// RFC 9112's rejections, which the old server answered with 200.
TEST(HttpServer, RejectsWhatRfc9112Rejects) {
  const auto server = serve(loopback_config());
  const auto status = [&](const std::string& head) {
    return status_of(exchange(server->port(), "GET /public HTTP/1.1\r\n" + head + "\r\n"));
  };
  EXPECT_EQ(status("Host: localhost\r\n"), 200);
  EXPECT_EQ(status(""), 400);
  EXPECT_EQ(status("Host: localhost\r\nNoColonHere\r\n"), 400);
  EXPECT_EQ(status("Host: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n"), 400);
  std::string many = "Host: localhost\r\n";
  for (int i = 0; i < 200; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  EXPECT_EQ(status(many), 431);
  EXPECT_EQ(status_of(exchange(server->port(), "\x16\x03\x01garbage\r\n\r\n")), 400);
}

TEST(HttpServer, AForeignHostIsMisdirectedWithAJsonError) {
  const auto server = serve(loopback_config());
  const std::string answer =
      exchange(server->port(), "GET /public HTTP/1.1\r\nHost: rebind.example:9416\r\n\r\n");
  EXPECT_EQ(status_of(answer), 421) << answer;
  EXPECT_NE(answer.find(R"({"error":)"), std::string::npos) << answer;
  EXPECT_EQ(status_of(exchange(server->port(), "GET /public HTTP/1.1\r\nHost: localhost\r\n\r\n")),
            200);
}

// Reads until the server closes the connection (the last request asks for it).
std::string read_to_end(int port, const std::string& requests) {
  return send_and_read(port, requests, 10, [](const std::string&) { return false; });
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

TEST(HttpServer, AnswersEveryPipelinedRequestInOrder) {
  const auto server = serve(loopback_config());
  for (const int n : {2, 500}) {
    std::string requests;
    for (int i = 0; i < n; ++i) {
      requests += fmt::format("GET /api/v1/echo?q={} HTTP/1.1\r\nHost: localhost\r\n{}\r\n", i,
                              i + 1 == n ? "Connection: close\r\n" : "");
    }
    const std::string answer = read_to_end(server->port(), requests);
    EXPECT_EQ(count_of(answer, "HTTP/1.1 200"), static_cast<std::size_t>(n));
    std::size_t at = 0;
    for (int i = 0; i < n; ++i) {
      at = answer.find(fmt::format(R"("q":"{}")", i), at);
      ASSERT_NE(at, std::string::npos)
          << "answer " << i << " of " << n << " missing or out of order";
    }
  }
}

// A client that sends a header line now and then never lets the idle timeout pass; the
// request deadline closes its connection all the same.
TEST(HttpServer, ClosesAConnectionThatNeverFinishesItsRequest) {
  HttpConfig config = loopback_config();
  config.request_timeout = std::chrono::seconds(1);
  const auto server = serve(config);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(server->port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  const std::string start = "GET /public HTTP/1.1\r\nHost: localhost\r\n";
  ASSERT_GT(::send(fd, start.data(), start.size(), MSG_NOSIGNAL), 0);
  bool closed = false;
  for (int i = 0; i < 100 && !closed; ++i) {  // 10 s at most, ten times the deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::string line = "X-Slow-" + std::to_string(i) + ": 1\r\n";
    closed = ::send(fd, line.data(), line.size(), MSG_NOSIGNAL) < 0;
    char byte = 0;
    closed = closed || ::recv(fd, &byte, 1, MSG_DONTWAIT) == 0;
  }
  ::close(fd);
  EXPECT_TRUE(closed);
}

TEST(HttpServer, AHandlersExceptionIsA500WithoutItsText) {
  auto server = HttpServer::open(loopback_config());
  ASSERT_TRUE(server);
  (*server)->get("/boom", [](const httplib::Request&, httplib::Response&) {
    throw std::runtime_error("secret detail");
  });
  (*server)->start();
  httplib::Client client("127.0.0.1", (*server)->port());
  const auto result = client.Get("/boom");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 500);
  EXPECT_EQ(result->body.find("secret"), std::string::npos);
  for (const auto& header : result->headers) {
    EXPECT_EQ(header.second.find("secret"), std::string::npos) << header.first;
  }
}

TEST(HttpServer, CountsResponsesByStatus) {
  const auto server = serve(loopback_config());
  httplib::Client client("127.0.0.1", server->port());
  ASSERT_TRUE(client.Get("/api/v1/echo"));
  ASSERT_TRUE(client.Get("/api/v1/echo"));
  ASSERT_TRUE(client.Get("/missing"));
  const auto counts = server->requests_by_status();
  EXPECT_EQ(counts.at(200), 2U);
  EXPECT_EQ(counts.at(404), 1U);
}

TEST(HttpServer, StopClosesThePort) {
  auto server = serve(loopback_config());
  const int port = server->port();
  server->stop();
  server->stop();
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(std::chrono::seconds(1));
  EXPECT_FALSE(client.Get("/api/v1/echo"));
}

TEST(HttpServer, ATakenPortIsAnError) {
  const auto first = serve(loopback_config());
  HttpConfig config = loopback_config();
  config.listen.port = first->port();
  const auto second = HttpServer::open(config);
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code, ErrorCode::io);
  EXPECT_NE(second.error().message.find(std::to_string(first->port())), std::string::npos);
}

TEST(HttpServer, APortIsFreeAgainOnceItsServerIsGone) {
  HttpConfig config = loopback_config();
  {
    auto never_started = HttpServer::open(config);
    ASSERT_TRUE(never_started.has_value());
    config.listen.port = (*never_started)->port();
  }
  {
    auto again = HttpServer::open(config);
    ASSERT_TRUE(again.has_value()) << again.error().message;
    (*again)->start();
  }
  EXPECT_TRUE(HttpServer::open(config).has_value());
}

TEST(HttpServerRules, NonLoopbackNeedsATokenOrInsecure) {
  HttpConfig config = loopback_config();
  config.listen.host = "0.0.0.0";
  const auto refused = HttpServer::open(config);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::invalid_input);
  EXPECT_NE(refused.error().message.find("--token-file"), std::string::npos);
  EXPECT_NE(refused.error().message.find("0.0.0.0"), std::string::npos);

  config.insecure = true;
  EXPECT_TRUE(HttpServer::open(config).has_value());
  ASSERT_EQ(security_warnings(config).size(), 1U);
  EXPECT_NE(security_warnings(config)[0].find("--insecure"), std::string::npos);

  config.insecure = false;
  config.token = kToken;
  EXPECT_TRUE(HttpServer::open(config).has_value());
  ASSERT_EQ(security_warnings(config).size(), 1U);
  EXPECT_NE(security_warnings(config)[0].find("clear text"), std::string::npos);
}

TEST(HttpServerRules, LoopbackNeedsNothingAndWarnsOfNothing) {
  EXPECT_TRUE(HttpServer::open(loopback_config()).has_value());
  EXPECT_TRUE(security_warnings(loopback_config()).empty());
}

TEST(HttpServerRules, AnEmptyTokenOrOneTlsFileIsRefused) {
  HttpConfig config = loopback_config();
  config.token = "";
  EXPECT_FALSE(HttpServer::open(config).has_value());
  config = loopback_config();
  config.tls_certificate = "/nonexistent/cert.pem";
  const auto refused = HttpServer::open(config);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("--tls-key"), std::string::npos);
}

TEST(HttpServerRules, TheTokenIsEnforcedOnAnOutsideAddress) {
  const auto host = testing::outside_address();
  if (!host) GTEST_SKIP() << "this machine has no address besides loopback";
  HttpConfig config = loopback_config();
  config.listen.host = *host;
  ASSERT_FALSE(HttpServer::open(config).has_value());
  config.token = kToken;
  const auto server = serve(config);
  httplib::Client client(*host, server->port());
  const auto refused = client.Get("/api/v1/echo");
  ASSERT_TRUE(refused) << httplib::to_string(refused.error());
  EXPECT_EQ(refused->status, 401);
  client.set_bearer_token_auth(kToken);
  const auto allowed = client.Get("/api/v1/echo");
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
}

}  // namespace gpumeter::net::http_server_test

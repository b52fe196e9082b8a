// SPDX-License-Identifier: MIT
// `gpumeter daemon`'s HTTP options end to end: the token, TLS, addresses off loopback, the
// config file, refusals at start, and a clean stop on SIGTERM.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "support/daemon_process.h"
#include "support/outside_address.h"
#include "support/raw_http.h"
#include "support/source_files.h"
#include "support/temp_dir.h"

namespace gpumeter::net::agent_daemon_test {

using testing::Daemon;
using testing::Process;

constexpr const char* kToken = "s3cret-token.value";

class AgentDaemon : public ::testing::Test {
 protected:
  std::filesystem::path scenario() const {
    return gpumeter::testing::source_path("examples/scenarios/workstation.json");
  }
  // The token file, mode `mode`; its content the token and a newline.
  std::filesystem::path token_file(mode_t mode = 0600) const {
    const auto path = dir_.write("token", std::string(kToken) + "\n");
    ::chmod(path.c_str(), mode);
    return path;
  }
  // A daemon that must refuse to start: its exit status and log.
  std::pair<int, std::string> refused(std::vector<std::string> args) const {
    Process daemon(Daemon::arguments(scenario(), dir_.path(), std::move(args)));
    const int status = daemon.wait();
    return {status, daemon.err()};
  }
  gpumeter::testing::TempDir dir_;
};

TEST_F(AgentDaemon, TheTokenGuardsEverythingButHealthz) {
  Daemon daemon(scenario(), dir_.path(), {"--token-file", token_file().string()});
  httplib::Client client("127.0.0.1", daemon.port());
  const auto missing = client.Get("/api/v1/status");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 401);
  const auto wrong = client.Get("/api/v1/status", {{"Authorization", "Bearer s3cret-token.valu"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  const auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  client.set_bearer_token_auth(kToken);  // the file's trailing newline is not part of it
  for (const char* path : {"/api/v1/status", "/gpu_status", "/api/v1/tasks"}) {
    const auto allowed = client.Get(path);
    ASSERT_TRUE(allowed) << path;
    EXPECT_EQ(allowed->status, 200) << path;
  }
}

TEST_F(AgentDaemon, RefusesATokenFileEveryUserMayRead) {
  const auto [status, err] = refused({"--token-file", token_file(0644).string()});
  EXPECT_EQ(status, 2) << err;
  EXPECT_NE(err.find("--token-file"), std::string::npos) << err;
  EXPECT_NE(err.find("every user may read it"), std::string::npos) << err;
}

TEST_F(AgentDaemon, RefusesAnEmptyTokenFile) {
  const auto path = dir_.write("empty-token", "\n");
  ::chmod(path.c_str(), 0600);
  const auto [status, err] = refused({"--token-file", path.string()});
  EXPECT_EQ(status, 2) << err;
  EXPECT_NE(err.find("empty"), std::string::npos) << err;
}

TEST_F(AgentDaemon, RefusesARequestDeadlineOutOfRange) {
  for (const char* deadline : {"5ms", "11m", "soon"}) {
    const auto [status, err] = refused({"--request-deadline", deadline});
    EXPECT_EQ(status, 2) << deadline << ": " << err;
    EXPECT_NE(err.find("--request-deadline: a duration from 10ms to 10m"), std::string::npos)
        << err;
  }
}

TEST_F(AgentDaemon, AnOutsideAddressNeedsATokenOrInsecure) {
  const auto [status, err] = refused({"--listen", "0.0.0.0:0"});
  EXPECT_EQ(status, 2) << err;
  EXPECT_NE(err.find("--token-file"), std::string::npos) << err;

  Daemon insecure(scenario(), dir_.path(), {"--listen", "0.0.0.0:0", "--insecure"});
  EXPECT_NE(insecure.process().err().find("warning: --insecure"), std::string::npos)
      << insecure.process().err();
  httplib::Client client("127.0.0.1", insecure.port());
  const auto result = client.Get("/api/v1/status");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
}

TEST_F(AgentDaemon, TheTokenIsEnforcedOnAnOutsideAddress) {
  const auto host = testing::outside_address();
  if (!host) GTEST_SKIP() << "this machine has no address besides loopback";
  Daemon daemon(scenario(), dir_.path(),
                {"--listen", *host + ":0", "--token-file", token_file().string()});
  EXPECT_NE(daemon.process().err().find("clear text"), std::string::npos);
  httplib::Client client(*host, daemon.port());
  const auto refused_answer = client.Get("/api/v1/status");
  ASSERT_TRUE(refused_answer);
  EXPECT_EQ(refused_answer->status, 401);
  client.set_bearer_token_auth(kToken);
  const auto allowed = client.Get("/api/v1/status");
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
}

TEST_F(AgentDaemon, ServesHttpsWithACertificateMadeByOpenssl) {
  const auto cert = dir_.path() / "cert.pem";
  const auto key = dir_.path() / "key.pem";
  const std::string command = fmt::format(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
      "-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 -keyout {} -out {} >/dev/null 2>&1",
      key.string(), cert.string());
  ASSERT_EQ(std::system(command.c_str()), 0);
  Daemon daemon(scenario(), dir_.path(),
                {"--tls-cert", cert.string(), "--tls-key", key.string(), "--token-file",
                 token_file().string()});
  EXPECT_TRUE(daemon.url().starts_with("https://127.0.0.1:")) << daemon.url();
  httplib::SSLClient client("127.0.0.1", daemon.port());
  client.set_ca_cert_path(cert.c_str());
  client.enable_server_certificate_verification(true);
  client.set_bearer_token_auth(kToken);
  const auto result = client.Get("/api/v1/status");
  ASSERT_TRUE(result) << httplib::to_string(result.error());
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(nlohmann::json::parse(result->body)["schema_version"], 1);
}

TEST_F(AgentDaemon, RefusesACertificateItCannotLoad) {
  const auto garbage = dir_.write("cert.pem", "not a certificate\n");
  const auto [status, err] =
      refused({"--tls-cert", garbage.string(), "--tls-key", garbage.string()});
  EXPECT_EQ(status, 2) << err;
  EXPECT_NE(err.find("--tls-cert " + garbage.string()), std::string::npos) << err;
}

TEST_F(AgentDaemon, RefusesATakenPort) {
  Daemon first(scenario(), dir_.path(), {});
  gpumeter::testing::TempDir other;
  Process second(Daemon::arguments(scenario(), other.path(),
                                   {"--listen", "127.0.0.1:" + std::to_string(first.port())}));
  EXPECT_NE(second.wait(), 0);
  EXPECT_NE(second.err().find("cannot listen on 127.0.0.1:" + std::to_string(first.port())),
            std::string::npos)
      << second.err();
}

TEST_F(AgentDaemon, TheConfigFileTakesTheSameKeys) {
  const auto config = dir_.write(
      "gpumeter.toml",
      fmt::format("listen = \"127.0.0.1:0\"\ntoken-file = \"{}\"\n", token_file().string()));
  Daemon daemon(scenario(), dir_.path(), {"--config", config.string()});
  httplib::Client client("127.0.0.1", daemon.port());
  const auto result = client.Get("/api/v1/status");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 401);
}

TEST_F(AgentDaemon, NoHttpServesNothing) {
  Process daemon(Daemon::arguments(scenario(), dir_.path(), {"--no-http"}));
  ASSERT_TRUE(daemon.wait_for("serving no HTTP (--no-http)")) << daemon.err();
  EXPECT_EQ(daemon.terminate(), 0) << daemon.err();
}

TEST_F(AgentDaemon, KeepsServingAfterBadRequestsAndStopsOnSigterm) {
  Daemon daemon(scenario(), dir_.path(), {});
  const std::string large =
      "GET /api/v1/status HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000\r\n\r\n" +
      std::string(100'000, 'x');
  EXPECT_EQ(testing::status_of(testing::exchange(daemon.port(), large)), 413);
  EXPECT_EQ(testing::status_of(testing::exchange(daemon.port(), "GARBAGE\r\n\r\n")), 400);
  httplib::Client client("127.0.0.1", daemon.port());
  const auto result = client.Get("/api/v1/status");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  const auto post = client.Post("/api/v1/status", "{}", "application/json");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);

  EXPECT_EQ(daemon.process().terminate(), 0) << daemon.process().err();
  EXPECT_NE(daemon.process().err().find("gpumeter daemon: stopped"), std::string::npos);
  httplib::Client after("127.0.0.1", daemon.port());
  after.set_connection_timeout(std::chrono::seconds(1));
  EXPECT_FALSE(after.Get("/healthz"));
}

}  // namespace gpumeter::net::agent_daemon_test

// SPDX-License-Identifier: MIT
// An https agent: the master checks its certificate, against ca-file when one is given.
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "master/fetch.h"
#include "support/fake_agent.h"
#include "support/tls_files.h"

namespace gpumeter::master::fetch_tls_test {

using namespace std::chrono_literals;

class HttpsAgent : public ::testing::Test {
 protected:
  void SetUp() override {
    files = net::testing::make_self_signed_certificate();
    server = std::make_unique<httplib::SSLServer>(files.certificate.c_str(), files.key.c_str());
    ASSERT_TRUE(server->is_valid());
    server->Get("/api/v1/status", testing::serves_status("secure", 1'000));
    port = server->bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    thread = std::thread([this] { server->listen_after_bind(); });
    while (!server->is_running()) std::this_thread::sleep_for(1ms);
  }
  void TearDown() override {
    server->stop();
    thread.join();
    std::filesystem::remove_all(files.directory);
  }

  PollOutcome fetch(const std::string& host, std::optional<std::filesystem::path> ca_file,
                    bool https = true) {
    const AgentUrl url{.https = https, .host = host, .port = port};
    return make_http_fetcher(url, {.ca_file = std::move(ca_file), .timeout = 2s})->fetch();
  }

  net::testing::TlsFiles files;
  std::unique_ptr<httplib::SSLServer> server;
  int port = 0;
  std::thread thread;
};

TEST_F(HttpsAgent, TrustedThroughCaFile) {
  const PollOutcome outcome = fetch("127.0.0.1", files.certificate);
  EXPECT_EQ(outcome.state, NodeState::ok) << outcome.error;
  ASSERT_NE(outcome.document, nullptr);
  EXPECT_EQ(outcome.document->parse()["host"], "secure");
}

TEST_F(HttpsAgent, HostNameInTheCertificateCounts) {
  EXPECT_EQ(fetch("localhost", files.certificate).state, NodeState::ok);
}

TEST_F(HttpsAgent, ASelfSignedCertificateIsNotTrustedWithoutCaFile) {
  const PollOutcome outcome = fetch("127.0.0.1", std::nullopt);
  EXPECT_EQ(outcome.state, NodeState::unreachable);
  EXPECT_EQ(outcome.error, "the server's certificate is not trusted or does not name its host");
}

TEST_F(HttpsAgent, PlainHttpToATlsPortGetsNoStatus) {
  const PollOutcome outcome = fetch("127.0.0.1", std::nullopt, false);
  EXPECT_NE(outcome.state, NodeState::ok);
  EXPECT_EQ(outcome.document, nullptr);
}

}  // namespace gpumeter::master::fetch_tls_test

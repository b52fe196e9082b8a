// SPDX-License-Identifier: MIT
// TLS with a self-signed certificate that the openssl command makes for each test.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "net/http_server.h"
#include "support/temp_dir.h"

namespace gpumeter::net::tls_test {

class Tls : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string command = fmt::format(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
        "-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 -keyout {} -out {} "
        ">/dev/null 2>&1",
        key().string(), certificate().string());
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  std::filesystem::path certificate() const { return dir_.path() / "cert.pem"; }
  std::filesystem::path key() const { return dir_.path() / "key.pem"; }
  HttpConfig config() const {
    HttpConfig made;
    made.listen = ListenAddress{.host = "127.0.0.1", .port = 0};
    made.tls_certificate = certificate();
    made.tls_key = key();
    return made;
  }
  gpumeter::testing::TempDir dir_;
};

TEST_F(Tls, ServesOverHttpsWithTheCertificate) {
  auto server = HttpServer::open(config());
  ASSERT_TRUE(server.has_value()) << server.error().message;
  (*server)->get("/x", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("secret", "text/plain");
  });
  (*server)->start();
  EXPECT_TRUE((*server)->url().starts_with("https://127.0.0.1:"));

  httplib::SSLClient client("127.0.0.1", (*server)->port());
  client.set_ca_cert_path(certificate().c_str());
  client.enable_server_certificate_verification(true);
  const auto result = client.Get("/x");
  ASSERT_TRUE(result) << httplib::to_string(result.error());
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(result->body, "secret");

  // Plain HTTP to the TLS port gets no answer.
  httplib::Client plain("127.0.0.1", (*server)->port());
  plain.set_read_timeout(std::chrono::seconds(2));
  const auto refused = plain.Get("/x");
  EXPECT_TRUE(!refused || refused->status != 200);
}

TEST_F(Tls, AMissingFileIsNamed) {
  HttpConfig broken = config();
  broken.tls_key = dir_.path() / "absent.pem";
  const auto server = HttpServer::open(broken);
  ASSERT_FALSE(server.has_value());
  EXPECT_EQ(server.error().code, ErrorCode::io);
  EXPECT_NE(server.error().message.find("--tls-key"), std::string::npos);
  EXPECT_NE(server.error().message.find("absent.pem"), std::string::npos);
}

TEST_F(Tls, AFileWithoutACertificateIsNamed) {
  HttpConfig broken = config();
  broken.tls_certificate = dir_.write("garbage.pem", "not a certificate\n");
  const auto server = HttpServer::open(broken);
  ASSERT_FALSE(server.has_value());
  EXPECT_EQ(server.error().code, ErrorCode::invalid_input);
  EXPECT_NE(server.error().message.find("--tls-cert"), std::string::npos);
  EXPECT_NE(server.error().message.find("garbage.pem"), std::string::npos);
}

TEST_F(Tls, AKeyOfAnotherCertificateIsRefused) {
  HttpConfig broken = config();
  broken.tls_key = dir_.path() / "other-key.pem";
  const std::string command = fmt::format(
      "openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:prime256v1 -out {} "
      ">/dev/null 2>&1",
      broken.tls_key->string());
  ASSERT_EQ(std::system(command.c_str()), 0);
  const auto server = HttpServer::open(broken);
  ASSERT_FALSE(server.has_value());
  EXPECT_NE(server.error().message.find("other-key.pem"), std::string::npos)
      << server.error().message;
}

}  // namespace gpumeter::net::tls_test

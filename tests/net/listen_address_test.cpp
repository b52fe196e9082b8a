// SPDX-License-Identifier: MIT
#include "net/listen_address.h"

#include <gtest/gtest.h>

namespace gpumeter::net::listen_address_test {

TEST(ParseListen, HostAndPort) {
  const auto address = parse_listen("0.0.0.0:8080");
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(address->host, "0.0.0.0");
  EXPECT_EQ(address->port, 8080);
}

TEST(ParseListen, BracketedIpv6) {
  const auto address = parse_listen("[::1]:9416");
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(address->host, "::1");
  EXPECT_EQ(address->port, 9416);
  EXPECT_EQ(to_string(*address), "[::1]:9416");
}

TEST(ParseListen, PortOnlyKeepsTheLoopbackHost) {
  const auto address = parse_listen(":0");
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(address->host, "127.0.0.1");
  EXPECT_EQ(address->port, 0);
}

TEST(ParseListen, NamesAreKept) {
  const auto address = parse_listen("localhost:1");
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(address->host, "localhost");
  EXPECT_EQ(to_string(*address), "localhost:1");
}

TEST(ParseListen, RefusesWhatIsNotAnAddress) {
  for (const char* text : {"", "9416", "host:", "host:x", "host:65536", "host:-1", ":9416x",
                           "::1:9416", "[::1]9416", "[::1", "[nonsense]:1", "[]:1"}) {
    const auto address = parse_listen(text);
    ASSERT_FALSE(address.has_value()) << text;
    EXPECT_EQ(address.error().code, ErrorCode::invalid_input);
    EXPECT_NE(address.error().message.find("--listen"), std::string::npos) << text;
  }
}

TEST(IsLoopback, OnlyAddressesThisMachineAloneReaches) {
  for (const char* host : {"localhost", "127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(is_loopback(host)) << host;
  }
  for (const char* host :
       {"0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "::ffff:10.0.0.1", "example.org", ""}) {
    EXPECT_FALSE(is_loopback(host)) << host;
  }
}

}  // namespace gpumeter::net::listen_address_test

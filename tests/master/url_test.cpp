// SPDX-License-Identifier: MIT
#include "master/url.h"

#include <gtest/gtest.h>

namespace gpumeter::master::url_test {

TEST(AgentUrl, HostAndPort) {
  const auto url = parse_agent_url("http://gpu01:9500");
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_FALSE(url->https);
  EXPECT_EQ(url->host, "gpu01");
  EXPECT_EQ(url->port, 9500);
  EXPECT_EQ(url->origin(), "http://gpu01:9500");
  EXPECT_EQ(url->path("/api/v1/status"), "/api/v1/status");
}

TEST(AgentUrl, NoPortMeansTheAgentsPortForEitherScheme) {
  EXPECT_EQ(parse_agent_url("http://gpu01")->port, kDefaultAgentPort);
  EXPECT_EQ(parse_agent_url("https://gpu01/")->port, kDefaultAgentPort);
  EXPECT_TRUE(parse_agent_url("https://gpu01")->https);
}

TEST(AgentUrl, PathPrefixForAProxyLosesTrailingSlashes) {
  const auto url = parse_agent_url("https://proxy.example.org:443/gpumeter/gpu02//");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->port, 443);
  EXPECT_EQ(url->base_path, "/gpumeter/gpu02");
  EXPECT_EQ(url->path("/api/v1/status"), "/gpumeter/gpu02/api/v1/status");
}

TEST(AgentUrl, Ipv6InBrackets) {
  const auto url = parse_agent_url("http://[fd00::2]:9416");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->host, "fd00::2");
  EXPECT_EQ(url->origin(), "http://[fd00::2]:9416");
}

TEST(AgentUrl, RejectsWhatItCannotUseAndSaysWhatWasExpected) {
  const auto expect_error = [](std::string_view text, std::string_view expected) {
    const auto url = parse_agent_url(text);
    ASSERT_FALSE(url) << text;
    EXPECT_EQ(url.error().code, ErrorCode::invalid_input);
    EXPECT_NE(url.error().message.find(expected), std::string::npos) << url.error().message;
  };
  expect_error("gpu01:9416", "http:// or https://");
  expect_error("ftp://gpu01", "http:// or https://");
  expect_error("http://", "a host");
  expect_error("http://gpu01:0", "port from 1 to 65535");
  expect_error("http://gpu01:70000", "port from 1 to 65535");
  expect_error("http://gpu01:94x6", "port from 1 to 65535");
  expect_error("http://[fd00::2", "a host");
  expect_error("http://fd00::2:9416", "a host");
  expect_error("http://gpu01/status?x=1", "query");
  expect_error("http://user:secret@gpu01", "token-file");
}

}  // namespace gpumeter::master::url_test

// SPDX-License-Identifier: MIT
#include "cli/master_config.h"

#include <gtest/gtest.h>

#include "support/source_files.h"

namespace gpumeter::cli::master_config_test {

using namespace std::chrono_literals;

std::expected<MasterConfig, Error> parse(std::string_view text) {
  return parse_master_config(text, "/etc/gpumeter/master.toml", "this-host");
}

std::string error_of(std::string_view text) {
  const auto config = parse(text);
  return config ? std::string("no error") : config.error().message;
}

TEST(MasterConfig, ReadsSettingsAndAgents) {
  const auto config = parse(R"(
interval = "10s"
stale-after = 4
timeout = "3s"
max-backoff = "10m"
connections = 64

[[agent]]
url = "self"

[[agent]]
url = "https://gpu02.example.org:9416"
token-file = "tokens/gpu02"
ca-file = "/etc/ssl/fleet-ca.pem"
timeout = "1s"

[[agent]]
name = "gpu03-b"
url = "http://10.0.0.3:9500/proxy/"
)");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->interval, 10s);
  EXPECT_EQ(config->stale_after, 4U);
  EXPECT_EQ(config->timeout, 3s);
  EXPECT_EQ(config->max_backoff, 10min);
  EXPECT_EQ(config->connections, 64U);
  ASSERT_EQ(config->agents.size(), 3U);

  const MasterAgentConfig& self = config->agents[0];
  EXPECT_EQ(self.name, "this-host");
  EXPECT_EQ(self.url, "self");
  EXPECT_FALSE(self.endpoint);
  EXPECT_EQ(self.timeout, 3s);
  EXPECT_EQ(self.line, 8U);

  const MasterAgentConfig& gpu02 = config->agents[1];
  EXPECT_EQ(gpu02.name, "gpu02.example.org");
  ASSERT_TRUE(gpu02.endpoint);
  EXPECT_TRUE(gpu02.endpoint->https);
  EXPECT_EQ(gpu02.token_file, std::filesystem::path("/etc/gpumeter/tokens/gpu02"));
  EXPECT_EQ(gpu02.ca_file, std::filesystem::path("/etc/ssl/fleet-ca.pem"));
  EXPECT_EQ(gpu02.timeout, 1s);

  const MasterAgentConfig& gpu03 = config->agents[2];
  EXPECT_EQ(gpu03.name, "gpu03-b");
  EXPECT_EQ(gpu03.endpoint->port, 9500);
  EXPECT_EQ(gpu03.endpoint->base_path, "/proxy");
}

TEST(MasterConfig, DefaultsWithoutSettings) {
  const auto config = parse("[[agent]]\nurl = \"http://gpu01\"\n");
  ASSERT_TRUE(config);
  EXPECT_EQ(config->interval, 5s);
  EXPECT_EQ(config->stale_after, 3U);
  EXPECT_EQ(config->max_backoff, 5min);
  EXPECT_EQ(config->agents.at(0).timeout, 2s);
  EXPECT_EQ(config->agents.at(0).endpoint->port, 9416);
}

TEST(MasterConfig, TheMastersOwnOptionsUnderTheirLongNames) {
  const auto config = parse(R"(
listen = "0.0.0.0:9417"
token-file = "master.token"
insecure = false
tls-cert = "/etc/gpumeter/cert.pem"
tls-key = "/etc/gpumeter/key.pem"
[master]
prometheus = "http://prometheus:9090"
)");
  ASSERT_TRUE(config) << config.error().message;
  const MasterFileOptions& options = config->options;
  EXPECT_EQ(options.listen, "0.0.0.0:9417");
  EXPECT_EQ(options.token_file, std::filesystem::path("/etc/gpumeter/master.token"));
  EXPECT_EQ(options.insecure, false);
  EXPECT_EQ(options.tls_cert, std::filesystem::path("/etc/gpumeter/cert.pem"));
  EXPECT_EQ(options.prometheus, "http://prometheus:9090");
  EXPECT_TRUE(config->agents.empty());
}

TEST(MasterConfig, ErrorsNameFileLineAndWhatWasExpected) {
  EXPECT_EQ(
      error_of("intervall = \"5s\"\n"),
      "/etc/gpumeter/master.toml:1: unknown key \"intervall\" (expected one of interval, "
      "stale-after, timeout, max-backoff, connections, listen, token-file, insecure, tls-cert, "
      "tls-key, prometheus)");
  EXPECT_EQ(error_of("interval = \"5 s\"\n"),
            "/etc/gpumeter/master.toml:1: interval = \"5 s\": expected a duration of at least "
            "100ms, such as 500ms, 5s or 1m");
  EXPECT_EQ(error_of("interval = \"10ms\"\n"),
            "/etc/gpumeter/master.toml:1: interval = \"10ms\": expected a duration of at least "
            "100ms, such as 500ms, 5s or 1m");
  EXPECT_EQ(error_of("stale-after = 0\n"),
            "/etc/gpumeter/master.toml:1: stale-after = \"0\": expected a whole number from 1 "
            "to 1000");
  EXPECT_EQ(error_of("insecure = \"yes\"\n"),
            "/etc/gpumeter/master.toml:1: insecure = \"yes\": expected true or false");
  EXPECT_EQ(error_of("[agents]\n"),
            "/etc/gpumeter/master.toml:1: unknown table \"agents\" (expected [[agent]] or "
            "[master])");
  EXPECT_EQ(error_of("\n[[agent]]\nname = \"x\"\n"),
            "/etc/gpumeter/master.toml:2: [[agent]] without url (expected url = \"self\" or a "
            "URL)");
  EXPECT_EQ(error_of("[[agent]]\nurl = \"gpu01:9416\"\n"),
            "/etc/gpumeter/master.toml:2: url = \"gpu01:9416\": expected \"self\" or an agent's "
            "URL; \"gpu01:9416\": expected a URL that starts with http:// or https://");
  EXPECT_EQ(error_of("[[agent]]\nurl = \"self\"\nhost = \"x\"\n"),
            "/etc/gpumeter/master.toml:3: unknown key \"host\" in [[agent]] (expected one of "
            "url, name, token-file, ca-file, timeout)");
}

TEST(MasterConfig, NamesMustBeUniqueAndSelfComesOnce) {
  EXPECT_EQ(error_of("[[agent]]\nurl = \"http://gpu01:9416\"\n[[agent]]\nurl = "
                     "\"http://gpu01:9417\"\n"),
            "/etc/gpumeter/master.toml:3: the name \"gpu01\" is taken by the agent on line 1 "
            "(expected a unique name = \"...\")");
  EXPECT_EQ(error_of("[[agent]]\nurl = \"self\"\n[[agent]]\nurl = \"self\"\nname = \"again\"\n"),
            "/etc/gpumeter/master.toml:3: a second \"self\" agent (the first is on line 1; "
            "expected one at most)");
}

TEST(MasterConfig, TimeoutsFitInTheInterval) {
  const auto fast = parse("interval = \"500ms\"\n[[agent]]\nurl = \"self\"\n");
  ASSERT_TRUE(fast) << fast.error().message;
  EXPECT_EQ(fast->timeout, 500ms);  // the default of 2s, shortened to the interval
  EXPECT_EQ(fast->agents.at(0).timeout, 500ms);
  // A mistake across keys names the line of the key weighed against the interval.
  EXPECT_EQ(error_of("interval = \"1s\"\ntimeout = \"2s\"\n"),
            "/etc/gpumeter/master.toml:2: timeout is longer than the interval (expected at most "
            "the interval)");
  EXPECT_EQ(error_of("interval = \"1s\"\n[[agent]]\nurl = \"self\"\ntimeout = \"2s\"\n"),
            "/etc/gpumeter/master.toml:2: the agent's timeout is longer than the interval "
            "(expected at most the interval)");
  EXPECT_EQ(error_of("interval = \"1m\"\nmax-backoff = \"30s\"\n"),
            "/etc/gpumeter/master.toml:2: max-backoff is shorter than the interval (expected at "
            "least it)");
  // The default max-backoff (5 minutes) under a longer interval: the interval's line.
  EXPECT_EQ(error_of("# slow\ninterval = \"10m\"\n"),
            "/etc/gpumeter/master.toml:2: max-backoff is shorter than the interval (expected at "
            "least it)");
}

TEST(MasterConfig, UnreadableFileSaysSo) {
  const auto config = read_master_config("/nonexistent/master.toml", "x");
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().code, ErrorCode::io);
  EXPECT_EQ(config.error().message,
            "/nonexistent/master.toml: cannot read: No such file or directory");
}

// nvgpu's cluster config, as its master reads it from $NVGPU_CLUSTER_CFG.
TEST(NvgpuConfig, TheAgentsListBecomesTheAgents) {
  const auto config = parse(R"(AGENTS = [
         'self', # node01 - master - direct access without using HTTP
         'http://node02:1080',
         "http://node03:1080",
]
)");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_EQ(config->agents.size(), 3U);
  EXPECT_EQ(config->agents[0].url, "self");
  EXPECT_EQ(config->agents[0].name, "this-host");
  EXPECT_FALSE(config->agents[0].endpoint.has_value());
  EXPECT_EQ(config->agents[1].name, "node02");
  ASSERT_TRUE(config->agents[1].endpoint.has_value());
  EXPECT_EQ(config->agents[1].endpoint->port, 1080);
  EXPECT_EQ(config->agents[1].line, 3U);
  EXPECT_EQ(config->agents[2].name, "node03");
  EXPECT_EQ(config->interval, 5s);  // gpumeter's defaults for the rest
  EXPECT_EQ(config->agents[2].timeout, 2s);
}

TEST(NvgpuConfig, MistakesNameFileLineAndWhatWasExpected) {
  EXPECT_EQ(error_of("AGENTS = ['self', 'http://a:1080' 'http://b:1080']"),
            "/etc/gpumeter/master.toml:1: expected , or ] after an agent");
  EXPECT_EQ(error_of("AGENTS = [\n  'self',\n  node02,\n]"),
            "/etc/gpumeter/master.toml:3: expected 'self' or an agent's URL in quotes, or ] to "
            "end AGENTS");
  EXPECT_EQ(error_of("AGENTS = ['http://a:1080\n]"),
            "/etc/gpumeter/master.toml:1: a string without its closing quote");
  EXPECT_EQ(error_of("AGENTS = ['self']\nDEBUG = True\n"),
            "/etc/gpumeter/master.toml:2: only AGENTS is read from an nvgpu config (its other "
            "settings are its web server's; gpumeter master takes them as options)");
  // The checks of gpumeter's own config hold: one self, unique names, valid URLs.
  EXPECT_NE(error_of("AGENTS = ['self', 'self']").find("a second \"self\" agent"),
            std::string::npos);
  EXPECT_NE(error_of("AGENTS = ['ftp://node02']").find("url = \"ftp://node02\""),
            std::string::npos);
}

TEST(MasterConfigExample, TheShippedExampleReads) {
  const auto config =
      read_master_config(gpumeter::testing::source_path("examples/master.toml"), "this-host");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_EQ(config->agents.size(), 3U);
  EXPECT_EQ(config->agents[0].name, "this-host");
  EXPECT_EQ(config->agents[1].name, "gpu01.example.org");
  EXPECT_EQ(config->agents[2].name, "gpu02");
  EXPECT_TRUE(config->agents[2].endpoint->https);
  EXPECT_FALSE(config->options.listen);
}

}  // namespace gpumeter::cli::master_config_test

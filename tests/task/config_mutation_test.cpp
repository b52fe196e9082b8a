// SPDX-License-Identifier: MIT
// Mutants of the shipped config files (the daemon's, the master's, the quota file): whatever
// the mutation, reading never crashes, and every refusal names the file and a line. The seed
// is fixed, so a failure names a mutant that fails again.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string_view>

#include "cli/config_file.h"
#include "cli/config_tables.h"
#include "cli/daemon_options.h"
#include "cli/master_config.h"
#include "support/source_files.h"
#include "view/quota.h"

namespace gpumeter::cli::config_mutation_test {

constexpr int kMutantsPerFile = 300;

std::filesystem::path example(const char* name) {
  return gpumeter::testing::source_path(std::string("examples/") + name);
}

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Values of every wrong type and shape, and some right ones.
constexpr std::array kValues{"[]",
                             "{}",
                             "[1, 2]",
                             "\"\"",
                             "-1",
                             "1e999",
                             "true",
                             "0",
                             "\"0ms\"",
                             "\"abc\"",
                             "'x",
                             "\"1s\" 2",
                             "99999999999999999999999",
                             "\"forever\"",
                             "= 1",
                             "\"\\u0000\"",
                             "{a = 1}",
                             "\"50ms\"",
                             "\"200d\"",
                             "\"100h\"",
                             "nan",
                             "\"0777\"",
                             "\"1s"};
constexpr std::array kLines{"[x]",
                            "[daemon]",
                            "[[daemon]]",
                            "[a.b.c]",
                            "[[agent]]",
                            "[master]",
                            "x = 1",
                            "=",
                            "[",
                            "]]",
                            "a.b = 1",
                            "\"k\" = 1",
                            "interval",
                            "[[agent]",
                            "url = \"self\"",
                            "default = 2h per day",
                            "bob = 1h per year"};

// Characters that mean something to a config parser, and a NUL.
constexpr std::string_view kCharacters("[]{}\"'=#.;\n x-\0", 15);

// One mutant of `lines`, reproducible from `random`.
std::string mutant(std::vector<std::string> lines, std::mt19937& random) {
  const auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random);
  };
  const std::size_t at = pick(lines.size());
  std::string& line = lines[at];
  switch (pick(6)) {
    case 0: {  // another value
      const auto equals = line.find('=');
      line = (equals == std::string::npos ? line + " = " : line.substr(0, equals + 1) + " ") +
             kValues[pick(kValues.size())];
      break;
    }
    case 1:  // a character dropped
      if (!line.empty()) line.erase(pick(line.size()), 1);
      break;
    case 2:  // a character added
      line.insert(pick(line.size() + 1), 1, kCharacters[pick(kCharacters.size())]);
      break;
    case 3:  // a line twice
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), std::string(line));
      break;
    case 4:  // a line added
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), kLines[pick(kLines.size())]);
      break;
    default:  // a key misspelt
      line.insert(line.find_first_of(" =") == std::string::npos ? 0 : line.find_first_of(" ="),
                  "x");
  }
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

class ConfigMutants : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpumeter-mut-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    directory_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  // Runs `check` on each mutant of `original` written to a file; `check` returns the error
  // message, if any, which must begin with "FILE:LINE: ".
  template <class Check>
  void mutate(const std::filesystem::path& original, std::uint32_t seed, Check check) {
    const std::vector<std::string> lines = lines_of(read(original));
    ASSERT_FALSE(lines.empty());
    std::mt19937 random(seed);
    const std::filesystem::path file = directory_ / original.filename();
    const std::regex located(
        "^" + std::regex_replace(file.string(), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
        R"(:\d+: \S)");
    int refused = 0;
    for (int i = 0; i < kMutantsPerFile; ++i) {
      const std::string text = mutant(lines, random);
      std::ofstream(file, std::ios::trunc) << text;
      const std::optional<std::string> error = check(file);
      if (!error) continue;
      ++refused;
      EXPECT_TRUE(std::regex_search(*error, located))
          << "mutant " << i << " of " << original << ":\n"
          << text << "\nerror: " << *error;
    }
    // The mutations are meant to break things: most are refused.
    EXPECT_GT(refused, kMutantsPerFile / 3);
  }

  std::filesystem::path directory_;
};

const task::SocketEnvironment kUser{nullptr, "/run/user/1000", false};

// As the daemon reads it: the file, then the checks across options, each located.
std::optional<std::string> daemon_error(const std::filesystem::path& file) {
  CLI::App daemon{"daemon"};
  DaemonOptions options;
  add_daemon_options(daemon, options);
  daemon.parse(std::vector<std::string>{});
  const auto origins = apply_config_file(daemon, file);
  if (!origins) return origins.error().message;
  const auto settings = resolve_daemon_options(options, kUser);
  if (!settings) return origins->locate(settings.error()).message;
  const store::LocationEnvironment location{.home = "/home/ada"};
  const auto history =
      resolve_history_options(options.history, location, settings->interval, settings->horizon);
  if (!history) return origins->locate(history.error()).message;
  return std::nullopt;
}

TEST_F(ConfigMutants, TheDaemonsConfig) {
  mutate(example("gpumeter.toml"), 20261126, daemon_error);
}

TEST_F(ConfigMutants, TheMastersConfig) {
  mutate(example("master.toml"), 20261127,
         [](const std::filesystem::path& file) -> std::optional<std::string> {
           const auto config = read_master_config(file, "self");
           if (config) return std::nullopt;
           return config.error().message;
         });
}

TEST_F(ConfigMutants, TheQuotaFile) {
  mutate(example("quota-demo.txt"), 20261128,
         [](const std::filesystem::path& file) -> std::optional<std::string> {
           const auto quotas = view::read_quota_file(file);
           if (quotas) return std::nullopt;
           return quotas.error().message;
         });
}

}  // namespace gpumeter::cli::config_mutation_test

// SPDX-License-Identifier: MIT
#include "cli/master_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>

#include "cli/config_tables.h"
#include "cli/nvgpu_config.h"
#include "core/duration.h"

namespace gpumeter::cli {
namespace {

using std::chrono::milliseconds;

// What a key's value must be, when it is not: "a duration such as 5s".
using Problem = std::optional<std::string>;

constexpr milliseconds kShortest{100};

struct Where {
  std::string file;
  std::filesystem::path directory;  // relative paths start here

  std::unexpected<Error> error(std::size_t line, std::string_view what) const {
    const std::string place = line == 0 ? file : fmt::format("{}:{}", file, line);
    return std::unexpected(Error{ErrorCode::invalid_input, fmt::format("{}: {}", place, what)});
  }
  std::filesystem::path path(std::string_view value) const {
    const std::filesystem::path path(value);
    return path.is_absolute() ? path : directory / path;
  }
};

Problem set_duration(milliseconds& out, std::string_view value) {
  const auto duration = parse_duration(value);
  if (!duration || *duration < kShortest) {
    return "a duration of at least 100ms, such as 500ms, 5s or 1m";
  }
  out = *duration;
  return std::nullopt;
}

template <class T>
Problem set_count(T& out, std::string_view value, T low, T high) {
  T count{};
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), count);
  if (error != std::errc{} || end != value.data() + value.size() || count < low || count > high) {
    return fmt::format("a whole number from {} to {}", low, high);
  }
  out = count;
  return std::nullopt;
}

Problem set_bool(std::optional<bool>& out, std::string_view value) {
  if (value != "true" && value != "false") return "true or false";
  out = value == "true";
  return std::nullopt;
}

Problem set_text(std::optional<std::string>& out, std::string_view value) {
  if (value.empty()) return "a value";
  out = std::string(value);
  return std::nullopt;
}

struct TopKey {
  std::string_view key;
  std::function<Problem(MasterConfig&, const Where&, std::string_view)> apply;
};

const std::array<TopKey, 11>& top_keys() {
  static const std::array<TopKey, 11> keys{{
      {"interval", [](auto& c, auto&, auto v) { return set_duration(c.interval, v); }},
      {"stale-after",
       [](auto& c, auto&, auto v) { return set_count<std::uint32_t>(c.stale_after, v, 1, 1000); }},
      {"timeout", [](auto& c, auto&, auto v) { return set_duration(c.timeout, v); }},
      {"max-backoff", [](auto& c, auto&, auto v) { return set_duration(c.max_backoff, v); }},
      {"connections",
       [](auto& c, auto&, auto v) { return set_count<std::size_t>(c.connections, v, 1, 16384); }},
      {"listen", [](auto& c, auto&, auto v) { return set_text(c.options.listen, v); }},
      {"token-file",
       [](auto& c, auto& w, auto v) { return c.options.token_file = w.path(v), Problem{}; }},
      {"insecure", [](auto& c, auto&, auto v) { return set_bool(c.options.insecure, v); }},
      {"tls-cert",
       [](auto& c, auto& w, auto v) { return c.options.tls_cert = w.path(v), Problem{}; }},
      {"tls-key",
       [](auto& c, auto& w, auto v) { return c.options.tls_key = w.path(v), Problem{}; }},
      {"prometheus", [](auto& c, auto&, auto v) { return set_text(c.options.prometheus, v); }},
  }};
  return keys;
}

struct AgentKey {
  std::string_view key;
  std::function<Problem(MasterAgentConfig&, const Where&, std::string_view)> apply;
};

Problem set_url(MasterAgentConfig& agent, std::string_view value) {
  agent.url = std::string(value);
  if (value == "self") return std::nullopt;
  auto url = master::parse_agent_url(value);
  if (!url) return fmt::format("\"self\" or an agent's URL; {}", url.error().message);
  agent.endpoint = std::move(*url);
  return std::nullopt;
}

const std::array<AgentKey, 5>& agent_keys() {
  static const std::array<AgentKey, 5> keys{{
      {"url", [](auto& a, auto&, auto v) { return set_url(a, v); }},
      {"name",
       [](auto& a, auto&, auto v) {
         if (v.empty() || v == "self") return Problem("a name other than \"\" and \"self\"");
         a.name = std::string(v);
         return Problem{};
       }},
      {"token-file", [](auto& a, auto& w, auto v) { return a.token_file = w.path(v), Problem{}; }},
      {"ca-file", [](auto& a, auto& w, auto v) { return a.ca_file = w.path(v), Problem{}; }},
      {"timeout", [](auto& a, auto&, auto v) { return set_duration(a.timeout, v); }},
  }};
  return keys;
}

template <class Keys>
std::string key_list(const Keys& keys) {
  std::string list;
  for (const auto& key : keys) list += fmt::format("{}{}", list.empty() ? "" : ", ", key.key);
  return list;
}

// Gives each entry of a table to its key's rule.
template <class Keys, class Target>
std::expected<void, Error> apply_entries(const ConfigTable& table, const Keys& keys, Target& target,
                                         const Where& where, std::string_view table_name) {
  for (const ConfigEntry& entry : table.entries) {
    const auto rule = std::ranges::find(keys, entry.key, [](const auto& k) { return k.key; });
    if (rule == keys.end()) {
      return where.error(entry.line, fmt::format("unknown key \"{}\"{} (expected one of {})",
                                                 entry.key, table_name, key_list(keys)));
    }
    if (const Problem problem = rule->apply(target, where, entry.value)) {
      return where.error(entry.line,
                         fmt::format("{} = \"{}\": expected {}", entry.key, entry.value, *problem));
    }
  }
  return {};
}

std::expected<MasterAgentConfig, Error> read_agent(const ConfigTable& table, const Where& where,
                                                   std::string_view self_name) {
  // A timeout of 0 stands for "the default", settled once every table is read.
  MasterAgentConfig agent{.timeout = milliseconds(0), .line = table.line};
  if (auto applied = apply_entries(table, agent_keys(), agent, where, " in [[agent]]"); !applied) {
    return std::unexpected(std::move(applied.error()));
  }
  if (agent.url.empty()) {
    return where.error(table.line, "[[agent]] without url (expected url = \"self\" or a URL)");
  }
  if (agent.name.empty())
    agent.name = agent.endpoint ? agent.endpoint->host : std::string(self_name);
  return agent;
}

// Names unique (a host polled twice, on two ports, needs names), and one "self" at most.
std::expected<void, Error> check_agents(const MasterConfig& config, const Where& where) {
  const MasterAgentConfig* self = nullptr;
  for (std::size_t i = 0; i < config.agents.size(); ++i) {
    const MasterAgentConfig& agent = config.agents[i];
    if (!agent.endpoint && self != nullptr) {
      return where.error(agent.line, fmt::format("a second \"self\" agent (the first is on line "
                                                 "{}; expected one at most)",
                                                 self->line));
    }
    if (!agent.endpoint) self = &agent;
    for (std::size_t j = 0; j < i; ++j) {
      if (config.agents[j].name == agent.name) {
        return where.error(agent.line,
                           fmt::format("the name \"{}\" is taken by the agent on line {} "
                                       "(expected a unique name = \"...\")",
                                       agent.name, config.agents[j].line));
      }
    }
  }
  return {};
}

// The line that sets `key` in the master's own tables, else the one that sets `other` (the
// key it was weighed against), else 1: a mistake across keys is named where one of them is.
std::size_t line_of(const std::vector<ConfigTable>& tables, std::string_view key,
                    std::string_view other) {
  for (const std::string_view wanted : {key, other}) {
    for (const ConfigTable& table : tables) {
      if (!table.name.empty() && (table.name != "master" || table.array_item)) continue;
      const auto found = std::ranges::find(table.entries, wanted, &ConfigEntry::key);
      if (found != table.entries.end()) return found->line;
    }
  }
  return 1;
}

// Timeouts within the interval, so that a round ends before the next one is due.
std::expected<void, Error> settle_timing(MasterConfig& config, const Where& where,
                                         const std::vector<ConfigTable>& tables) {
  if (config.timeout == milliseconds(0)) {
    config.timeout = std::min(MasterConfig{}.timeout, config.interval);
  } else if (config.timeout > config.interval) {
    return where.error(line_of(tables, "timeout", "interval"),
                       "timeout is longer than the interval (expected at most the interval)");
  }
  if (config.max_backoff < config.interval) {
    return where.error(line_of(tables, "max-backoff", "interval"),
                       "max-backoff is shorter than the interval (expected at least it)");
  }
  for (MasterAgentConfig& agent : config.agents) {
    if (agent.timeout == milliseconds(0)) agent.timeout = config.timeout;
    if (agent.timeout > config.interval) {
      return where.error(agent.line,
                         "the agent's timeout is longer than the interval (expected "
                         "at most the interval)");
    }
  }
  return {};
}

}  // namespace

std::expected<MasterConfig, Error> parse_master_config(std::string_view text,
                                                       const std::filesystem::path& file,
                                                       std::string_view self_name) {
  const Where where{file.string(), file.parent_path()};
  // nvgpu's cluster config (AGENTS = [...]) becomes the [[agent]] tables it stands for.
  auto tables = is_nvgpu_config(text) ? nvgpu_config_tables(text, where.file)
                                      : parse_config_tables(text, where.file);
  if (!tables) return std::unexpected(std::move(tables.error()));
  MasterConfig config;
  config.timeout = milliseconds(0);  // "the default", settled once the interval is known
  for (const ConfigTable& table : *tables) {
    if (table.name.empty() || (table.name == "master" && !table.array_item)) {
      if (auto applied = apply_entries(table, top_keys(), config, where, ""); !applied) {
        return std::unexpected(std::move(applied.error()));
      }
    } else if (table.name == "agent" && table.array_item) {
      auto agent = read_agent(table, where, self_name);
      if (!agent) return std::unexpected(std::move(agent.error()));
      config.agents.push_back(std::move(*agent));
    } else {
      return where.error(table.line, fmt::format("unknown table \"{}\" (expected [[agent]] or "
                                                 "[master])",
                                                 table.name));
    }
  }
  if (auto settled = settle_timing(config, where, *tables); !settled) {
    return std::unexpected(std::move(settled.error()));
  }
  if (auto checked = check_agents(config, where); !checked) {
    return std::unexpected(std::move(checked.error()));
  }
  return config;
}

std::expected<MasterConfig, Error> read_master_config(const std::filesystem::path& file,
                                                      std::string_view self_name) {
  auto text = read_config_text(file);
  if (!text) return std::unexpected(std::move(text.error()));
  return parse_master_config(*text, file, self_name);
}

}  // namespace gpumeter::cli

// SPDX-License-Identifier: MIT
// A reader of the Prometheus text format for tests: it checks the structure a scraper relies on
// (HELP and TYPE before a family's samples, each family in one block, no sample twice, label
// values with valid escapes) and gives the samples back for assertions.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <expected>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpumeter::exposition::testing {

using LabelMap = std::map<std::string, std::string>;

struct Sample {
  std::string name;
  LabelMap labels;
  double value = 0;
};

struct Exposition {
  std::vector<Sample> samples;
  std::map<std::string, std::string> types;  // family -> "gauge" | "counter"
  std::map<std::string, std::string> helps;  // family -> HELP text, unescaped

  // The samples of `name` whose labels include every pair of `subset`.
  std::vector<Sample> find(std::string_view name, const LabelMap& subset = {}) const {
    std::vector<Sample> found;
    for (const Sample& s : samples) {
      if (s.name != name) continue;
      bool matches = true;
      for (const auto& [key, value] : subset) {
        const auto it = s.labels.find(key);
        matches = matches && it != s.labels.end() && it->second == value;
      }
      if (matches) found.push_back(s);
    }
    return found;
  }
  bool has_family(std::string_view name) const { return types.contains(std::string(name)); }
};

namespace detail {

inline std::expected<std::string, std::string> unescape(std::string_view text, bool quote) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size()) return std::unexpected("a trailing backslash");
    const char c = text[i];
    if (c == '\\')
      out += '\\';
    else if (c == 'n')
      out += '\n';
    else if (c == '"' && quote)
      out += '"';
    else
      return std::unexpected(std::string("an unknown escape \\") + c);
  }
  return out;
}

// `a="x",b="y"` (the text between the braces) into a map.
inline std::expected<LabelMap, std::string> parse_labels(std::string_view text) {
  LabelMap labels;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t eq = text.find("=\"", at);
    if (eq == std::string_view::npos) return std::unexpected("a label without =\"");
    std::size_t end = eq + 2;
    while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2U : 1U;
    if (end >= text.size()) return std::unexpected("an unterminated label value");
    auto value = unescape(text.substr(eq + 2, end - eq - 2), true);
    if (!value) return std::unexpected(value.error());
    if (!labels.emplace(std::string(text.substr(at, eq - at)), *value).second) {
      return std::unexpected("a label given twice");
    }
    at = end + 1;
    if (at < text.size() && text[at++] != ',') return std::unexpected("labels not split by ,");
  }
  return labels;
}

inline std::expected<double, std::string> parse_value(std::string_view text) {
  if (text == "NaN") return std::nan("");
  if (text == "+Inf") return HUGE_VAL;
  if (text == "-Inf") return -HUGE_VAL;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) {
    return std::unexpected("a bad value '" + std::string(text) + "'");
  }
  return value;
}

inline std::expected<Sample, std::string> parse_sample(std::string_view line) {
  Sample sample;
  const std::size_t space = line.rfind(' ');
  if (space == std::string_view::npos) return std::unexpected("a sample without a value");
  auto value = parse_value(line.substr(space + 1));
  if (!value) return std::unexpected(value.error());
  sample.value = *value;
  std::string_view series = line.substr(0, space);
  if (const std::size_t brace = series.find('{'); brace != std::string_view::npos) {
    if (!series.ends_with('}')) return std::unexpected("labels without a closing brace");
    auto labels = parse_labels(series.substr(brace + 1, series.size() - brace - 2));
    if (!labels) return std::unexpected(labels.error());
    sample.labels = std::move(*labels);
    series = series.substr(0, brace);
  }
  sample.name = std::string(series);
  return sample;
}

}  // namespace detail

// Errors: "line N: what is wrong".
inline std::expected<Exposition, std::string> parse_exposition(std::string_view text) {
  Exposition out;
  std::set<std::string> closed;   // families whose block has ended
  std::set<std::string> written;  // name and labels of every sample
  std::string current;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size(); ++number) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) return std::unexpected("the text does not end in a newline");
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const auto fail = [&](const std::string& what) {
      return std::unexpected("line " + std::to_string(number + 1) + ": " + what);
    };
    if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
      const std::string_view rest = line.substr(7);
      const std::string name(rest.substr(0, rest.find(' ')));
      const std::string_view tail = rest.substr(std::min(rest.size(), name.size() + 1));
      if (name != current) {
        if (!current.empty()) closed.insert(current);
        if (closed.contains(name)) return fail(name + " appears in two blocks");
        current = name;
      }
      if (line[2] == 'H') {
        auto help = detail::unescape(tail, false);
        if (!help) return fail(help.error());
        out.helps[name] = *help;
      } else {
        out.types[name] = std::string(tail);
      }
      continue;
    }
    auto sample = detail::parse_sample(line);
    if (!sample) return fail(sample.error());
    if (sample->name != current) return fail(sample->name + " has no HELP and TYPE before it");
    if (!out.types.contains(current) || !out.helps.contains(current)) {
      return fail(current + " lacks HELP or TYPE");
    }
    if (!written.insert(std::string(line.substr(0, line.rfind(' ')))).second) {
      return fail("a sample written twice");
    }
    out.samples.push_back(std::move(*sample));
  }
  return out;
}

}  // namespace gpumeter::exposition::testing

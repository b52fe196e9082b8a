// SPDX-License-Identifier: MIT
#include "exposition/prometheus_text.h"

#include <cmath>
#include <iterator>

namespace gpumeter::exposition {
namespace {

// Doubles hold every integer up to 2^53 exactly; past it a whole-number look would be a lie.
constexpr double kLargestExactInteger = 9007199254740992.0;

void append(fmt::memory_buffer& out, std::string_view text) {
  out.append(text.data(), text.data() + text.size());
}

// Escapes backslash, line feed and, for label values, the double quote.
void append_escaped(fmt::memory_buffer& out, std::string_view text, bool quote) {
  std::size_t clean_from = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '\\' && c != '\n' && !(quote && c == '"')) continue;
    append(out, text.substr(clean_from, i - clean_from));
    append(out, c == '\\' ? "\\\\" : c == '\n' ? "\\n" : "\\\"");
    clean_from = i + 1;
  }
  append(out, text.substr(clean_from));
}

std::string_view type_name(MetricType type) {
  return type == MetricType::counter ? "counter" : "gauge";
}

}  // namespace

void append_label_value(fmt::memory_buffer& out, std::string_view value) {
  append_escaped(out, value, true);
}

void append_help_text(fmt::memory_buffer& out, std::string_view text) {
  append_escaped(out, text, false);
}

void append_value(fmt::memory_buffer& out, double value) {
  if (std::isnan(value)) return append(out, "NaN");
  if (std::isinf(value)) return append(out, value > 0 ? "+Inf" : "-Inf");
  if (std::trunc(value) == value && std::fabs(value) <= kLargestExactInteger) {
    fmt::format_to(std::back_inserter(out), "{}", static_cast<std::int64_t>(value));
    return;
  }
  fmt::format_to(std::back_inserter(out), "{}", value);
}

Labels& Labels::add(std::string_view name, std::string_view value) {
  fmt::memory_buffer escaped;
  append_label_value(escaped, value);
  if (!text_.empty()) text_ += ',';
  text_.append(name).append("=\"").append(escaped.data(), escaped.size()).append("\"");
  return *this;
}

Labels Labels::with(std::string_view name, std::string_view value) const {
  Labels copy = *this;
  copy.add(name, value);
  return copy;
}

void Family::start_sample() {
  if (!started_) {
    fmt::format_to(std::back_inserter(out_), "# HELP {} ", name_);
    append_help_text(out_, help_);
    fmt::format_to(std::back_inserter(out_), "\n# TYPE {} {}\n", name_, type_name(type_));
    started_ = true;
  }
  append(out_, name_);
}

void Family::sample(const Labels& labels, double value) {
  start_sample();
  if (!labels.text().empty()) {
    out_.push_back('{');
    append(out_, labels.text());
    out_.push_back('}');
  }
  out_.push_back(' ');
  append_value(out_, value);
  out_.push_back('\n');
}

void Family::sample(double value) {
  sample(Labels{}, value);
}

}  // namespace gpumeter::exposition

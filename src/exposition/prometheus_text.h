// SPDX-License-Identifier: MIT
// Writing the Prometheus text exposition format, version 0.0.4: HELP and TYPE lines, label
// sets, escaping and sample values. Knows nothing of GPUs; docs/metrics.md lists what gpumeter
// writes with it.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "core/metrics.h"

namespace gpumeter::exposition {

// The core metric table says which kind each metric is; the exposition writes that kind.
using MetricType = MetricKind;

// The content type of the format, for an HTTP response.
inline constexpr const char* kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

// Appends `value` as a label value: backslash, double quote and line feed are escaped (\\, \",
// \n); everything else, UTF-8 included, is kept as it is.
void append_label_value(fmt::memory_buffer& out, std::string_view value);

// Appends `text` as HELP text: backslash and line feed are escaped.
void append_help_text(fmt::memory_buffer& out, std::string_view text);

// Appends a sample value: a whole number below 2^53 without a fraction ("16945512448"),
// "NaN", "+Inf", "-Inf", else the shortest text that reads back as the same double ("0.99").
void append_value(fmt::memory_buffer& out, double value);

// A set of labels, escaped once and shared by many samples: `a="x",b="y"`, without braces.
// Names must be valid label names ([a-zA-Z_][a-zA-Z0-9_]*); the caller's constants are.
class Labels {
 public:
  Labels& add(std::string_view name, std::string_view value);
  // A copy with one more label.
  Labels with(std::string_view name, std::string_view value) const;
  std::string_view text() const noexcept { return text_; }

 private:
  std::string text_;
};

// One metric family: its HELP and TYPE lines come before its first sample, so a family without
// samples writes nothing. All samples of a family are written before the next family begins.
// `name` and `help` must outlive the Family; `name` must be a valid metric name.
class Family {
 public:
  Family(fmt::memory_buffer& out, std::string_view name, MetricType type,
         std::string_view help) noexcept
      : out_(out), name_(name), type_(type), help_(help) {}

  void sample(const Labels& labels, double value);
  void sample(double value);  // a sample without labels

 private:
  void start_sample();

  fmt::memory_buffer& out_;
  std::string_view name_;
  MetricType type_;
  std::string_view help_;
  bool started_ = false;
};

}  // namespace gpumeter::exposition

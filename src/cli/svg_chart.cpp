// SPDX-License-Identifier: MIT
#include "cli/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

namespace gpumeter::cli {
namespace {

constexpr double kWidth = 960;
constexpr double kHeight = 560;
constexpr double kLeft = 78;     // y tick labels and the y title
constexpr double kRight = 200;   // the legend
constexpr double kTop = 64;      // title and subtitle
constexpr double kBottom = 104;  // rotated x labels and the x title
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;
constexpr std::size_t kMaxXLabels = 32;
constexpr double kTotalCharWidth = 6.2;  // of a digit at font-size 10, for fitting totals
constexpr std::size_t kLegendNameWidth = 24;

// Tableau 10, ordered so that neighbours in a stack contrast; the last, grey, is "others".
constexpr std::array<std::string_view, 10> kPalette{"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                                    "#b07aa1", "#76b7b2", "#edc948", "#ff9da7",
                                                    "#9c755f", "#bab0ac"};

// Bytes a valid UTF-8 sequence starting at `at` takes, or 0 when it is invalid (overlong
// forms, surrogates and code points past U+10FFFF included).
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
  if (length == 0 || at + length > text.size()) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

std::string escape_ascii(char c) {
  switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&apos;";
    default: break;
  }
  // XML 1.0 allows no control characters but tab and line breaks.
  const auto code = static_cast<unsigned char>(c);
  if (code < 0x20 || code == 0x7F) return "\uFFFD";
  return std::string(1, c);
}

std::string number(double value) {
  return fmt::format("{:.2f}", value);
}

std::string tick_text(double value) {
  return fmt::format("{:g}", value);
}

struct Scale {
  double top = 1;  // the value at the top of the plot
  double step = 1;
  double y(double value) const { return kTop + kPlotHeight * (1 - value / top); }
  double height(double value) const { return kPlotHeight * value / top; }
};

Scale scale_for(const StackedBars& chart) {
  double largest = 0;
  for (std::size_t i = 0; i < chart.categories.size(); ++i) {
    double stack = 0;
    for (const StackedSeries& series : chart.series) stack += series.values[i];
    largest = std::max(largest, stack);
  }
  if (largest <= 0) return Scale{};
  const double step = tick_step(largest, 5);
  return Scale{std::ceil(largest / step - 1e-9) * step, step};
}

std::string header(const StackedBars& chart) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" "
      "font-size=\"12\" fill=\"#222222\">\n"
      "<title>{2}</title>\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text x=\"{3}\" y=\"26\" text-anchor=\"middle\" font-size=\"18\" "
      "font-weight=\"bold\">{2}</text>\n"
      "<text x=\"{3}\" y=\"46\" text-anchor=\"middle\" fill=\"#555555\">{4}</text>\n",
      kWidth, kHeight, xml_text(chart.title), number(kLeft + kPlotWidth / 2),
      xml_text(chart.subtitle));
}

std::string y_axis(const StackedBars& chart, const Scale& scale) {
  std::string out = "<g class=\"y-axis\">\n";
  const auto ticks = static_cast<int>(std::lround(scale.top / scale.step));
  for (int k = 0; k <= ticks; ++k) {
    const double tick = k * scale.step;
    const std::string y = number(scale.y(tick));
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#dddddd\"/>"
        "<text x=\"{3}\" y=\"{2}\" dy=\"4\" text-anchor=\"end\">{4}</text>\n",
        kLeft, kLeft + kPlotWidth, y, kLeft - 8, tick_text(tick));
  }
  const double middle = kTop + kPlotHeight / 2;
  out += fmt::format(
      "<text transform=\"translate(20 {0}) rotate(-90)\" text-anchor=\"middle\" "
      "font-size=\"13\">{1}</text>\n</g>\n",
      number(middle), xml_text(chart.y_title));
  return out;
}

// One category's stack, bottom-up. Segments of wide bars get a thin white outline so that
// neighbours of similar colour stay apart; narrow ones would lose too much to it.
std::string stack(const StackedBars& chart, const Scale& scale, std::size_t i, double band,
                  double width) {
  const double x = kLeft + band * static_cast<double>(i) + (band - width) / 2;
  const std::string outline = width >= 4 ? " stroke=\"#ffffff\" stroke-width=\"0.6\"" : "";
  std::string out;
  double base = 0;
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const double value = chart.series[s].values[i];
    if (value <= 0) continue;
    const std::string name = xml_text(chart.series[s].name);
    out += fmt::format(
        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{} "
        "data-series=\"{}\" data-category=\"{}\" data-value=\"{}\">"
        "<title>{}, {}: {:.2f} {}</title></rect>\n",
        number(x), number(scale.y(base + value)), number(width), number(scale.height(value)),
        kPalette[std::min(s, kPalette.size() - 1)], outline, name, xml_text(chart.categories[i]),
        value, name, xml_text(chart.labels[i]), value, xml_text(chart.unit));
    base += value;
  }
  // The column's total above it, when the column is wide enough to hold the number.
  const std::string total = base >= 100 ? fmt::format("{:.0f}", base) : fmt::format("{:.1f}", base);
  if (base > 0 && band >= kTotalCharWidth * static_cast<double>(total.size()) + 2) {
    out += fmt::format(
        "<text class=\"total\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\" "
        "fill=\"#555555\">{}</text>\n",
        number(x + width / 2), number(scale.y(base) - 4), total);
  }
  return out;
}

std::string bars(const StackedBars& chart, const Scale& scale) {
  const double band =
      kPlotWidth / static_cast<double>(std::max<std::size_t>(1, chart.categories.size()));
  const double width = std::max(band * 0.8, 0.5);
  std::string out = "<g class=\"bars\">\n";
  for (std::size_t i = 0; i < chart.categories.size(); ++i)
    out += stack(chart, scale, i, band, width);
  return out + "</g>\n";
}

std::string x_axis(const StackedBars& chart) {
  const std::size_t count = chart.categories.size();
  const double band = kPlotWidth / static_cast<double>(std::max<std::size_t>(1, count));
  const std::size_t every = (count + kMaxXLabels - 1) / kMaxXLabels;
  const double bottom = kTop + kPlotHeight;
  std::string out = fmt::format(
      "<g class=\"x-axis\">\n<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" "
      "stroke=\"#444444\"/>\n",
      kLeft, kLeft + kPlotWidth, bottom);
  for (std::size_t i = 0; i < count; i += std::max<std::size_t>(every, 1)) {
    const std::string x = number(kLeft + band * (static_cast<double>(i) + 0.5));
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#444444\"/>"
        "<text transform=\"translate({0} {3}) rotate(-45)\" text-anchor=\"end\" "
        "font-size=\"11\">{4}</text>\n",
        x, bottom, bottom + 5, bottom + 14, xml_text(chart.labels[i]));
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\">{}</text>\n</g>\n",
      number(kLeft + kPlotWidth / 2), kHeight - 10, xml_text(chart.x_title));
  return out;
}

std::string short_name(const std::string& name) {
  std::string out;
  std::size_t points = 0;
  for (const char c : name) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U && ++points > kLegendNameWidth) {
      return out + "…";
    }
    out += c;
  }
  return out;
}

std::string legend(const StackedBars& chart) {
  std::string out = "<g class=\"legend\">\n";
  const double x = kLeft + kPlotWidth + 24;
  // Top-down, as the stacks read from the top.
  for (std::size_t shown = 0; shown < chart.series.size(); ++shown) {
    const std::size_t s = chart.series.size() - 1 - shown;
    const double y = kTop + 20.0 * static_cast<double>(shown);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>\n",
        number(x), number(y), kPalette[std::min(s, kPalette.size() - 1)], number(x + 18),
        number(y + 10), xml_text(short_name(chart.series[s].name)));
  }
  return out + "</g>\n";
}

}  // namespace

double tick_step(double largest, int target) {
  if (largest <= 0 || target <= 0) return 1;
  const double raw = largest / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double multiple : {1.0, 2.0, 2.5, 5.0}) {
    if (multiple * magnitude >= raw) return multiple * magnitude;
  }
  return 10 * magnitude;
}

std::string xml_text(std::string_view text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    if (static_cast<unsigned char>(text[at]) < 0x80) {
      out += escape_ascii(text[at++]);
      continue;
    }
    const std::size_t length = utf8_length(text, at);
    out += length == 0 ? "\uFFFD" : std::string(text.substr(at, length));
    at += std::max<std::size_t>(length, 1);
  }
  return out;
}

std::string render_stacked_svg(const StackedBars& chart) {
  const Scale scale = scale_for(chart);
  std::string out =
      header(chart) + y_axis(chart, scale) + bars(chart, scale) + x_axis(chart) + legend(chart);
  const bool empty = std::ranges::all_of(chart.series, [](const StackedSeries& series) {
    return std::ranges::all_of(series.values, [](double value) { return value <= 0; });
  });
  if (empty && !chart.empty_message.empty()) {
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"16\" "
        "fill=\"#777777\">{}</text>\n",
        number(kLeft + kPlotWidth / 2), number(kTop + kPlotHeight / 2),
        xml_text(chart.empty_message));
  }
  return out + "</svg>\n";
}

}  // namespace gpumeter::cli

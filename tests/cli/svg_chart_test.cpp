// SPDX-License-Identifier: MIT
#include "cli/svg_chart.h"

#include <gtest/gtest.h>

namespace gpumeter::cli::svg_chart_test {

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(XmlText, EscapesMarkupAndReplacesWhatXmlCannotHold) {
  EXPECT_EQ(xml_text("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xml_text("tab\there"), "tab\uFFFDhere");
  EXPECT_EQ(xml_text("\x01"), "\uFFFD");
  EXPECT_EQ(xml_text("zoë 日本"), "zoë 日本");
  EXPECT_EQ(xml_text("bad\xff\xfe"), "bad\uFFFD\uFFFD");
  EXPECT_EQ(xml_text("cut\xe6\x97"), "cut\uFFFD\uFFFD");
  EXPECT_EQ(xml_text("\xc0\xaf"), "\uFFFD\uFFFD");            // an overlong '/'
  EXPECT_EQ(xml_text("\xed\xa0\x80"), "\uFFFD\uFFFD\uFFFD");  // a surrogate
}

TEST(TickStep, RoundSteps) {
  EXPECT_DOUBLE_EQ(tick_step(24, 5), 5);
  EXPECT_DOUBLE_EQ(tick_step(10, 5), 2);
  EXPECT_DOUBLE_EQ(tick_step(12, 5), 2.5);
  EXPECT_DOUBLE_EQ(tick_step(0.3, 5), 0.1);
  EXPECT_DOUBLE_EQ(tick_step(4500, 5), 1000);
  EXPECT_DOUBLE_EQ(tick_step(0, 5), 1);
}

StackedBars two_by_three() {
  return StackedBars{.title = "GPU-hours by user, per day",
                     .subtitle = "from a to b",
                     .x_title = "day",
                     .y_title = "GPU-hours",
                     .unit = "GPU-hours",
                     .categories = {"2026-11-01", "2026-11-02", "2026-11-03"},
                     .labels = {"2026-11-01", "2026-11-02", "2026-11-03"},
                     .series = {{"ada", {2, 0, 4}}, {"<bob>", {1, 3, 0}}},
                     .empty_message = "no usage recorded"};
}

TEST(StackedSvg, ABarPerNonZeroValueWithItsData) {
  const std::string svg = render_stacked_svg(two_by_three());
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 0), 0U);
  EXPECT_EQ(count(svg, "<rect class=\"bar\""), 4U);
  EXPECT_NE(svg.find("data-series=\"&lt;bob&gt;\" data-category=\"2026-11-02\" data-value=\"3\""),
            std::string::npos);
  EXPECT_NE(svg.find("<title>&lt;bob&gt;, 2026-11-02: 3.00 GPU-hours</title>"), std::string::npos);
  EXPECT_EQ(svg.find("no usage recorded"), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

TEST(StackedSvg, SaysWhenThereIsNothing) {
  StackedBars chart = two_by_three();
  chart.series.clear();
  const std::string svg = render_stacked_svg(chart);
  EXPECT_EQ(count(svg, "<rect class=\"bar\""), 0U);
  EXPECT_NE(svg.find(">no usage recorded</text>"), std::string::npos);
}

}  // namespace gpumeter::cli::svg_chart_test

// SPDX-License-Identifier: MIT
// The text format's escaping, values and family blocks, read back with an independent reader.
#include "exposition/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/text_reader.h"

namespace gpumeter::exposition::prometheus_text_test {

std::string label_value(std::string_view value) {
  fmt::memory_buffer out;
  append_label_value(out, value);
  return fmt::to_string(out);
}

std::string help_text(std::string_view text) {
  fmt::memory_buffer out;
  append_help_text(out, text);
  return fmt::to_string(out);
}

std::string value_text(double value) {
  fmt::memory_buffer out;
  append_value(out, value);
  return fmt::to_string(out);
}

TEST(LabelValue, EscapesBackslashQuoteAndNewline) {
  EXPECT_EQ(label_value(R"(C:\dir)"), R"(C:\\dir)");
  EXPECT_EQ(label_value(R"(say "hi")"), R"(say \"hi\")");
  EXPECT_EQ(label_value("two\nlines"), R"(two\nlines)");
  EXPECT_EQ(label_value("\\\"\n"), R"(\\\"\n)");
}

TEST(LabelValue, KeepsEverythingElse) {
  EXPECT_EQ(label_value(""), "");
  EXPECT_EQ(label_value("tab\there {braces}=,'"), "tab\there {braces}=,'");
  EXPECT_EQ(label_value("Jürgen…"), "Jürgen…");
}

TEST(HelpText, EscapesBackslashAndNewlineButNotQuotes) {
  EXPECT_EQ(help_text(R"(a "quoted" \ word)"
                      "\nnext"),
            R"(a "quoted" \\ word\nnext)");
}

TEST(Value, WholeNumbersHaveNoFraction) {
  EXPECT_EQ(value_text(0), "0");
  EXPECT_EQ(value_text(16945512448), "16945512448");
  EXPECT_EQ(value_text(-3), "-3");
  EXPECT_EQ(value_text(9007199254740992.0), "9007199254740992");
}

TEST(Value, FractionsReadBackExactly) {
  for (const double value : {0.99, 297.42, 1e-9, 0.1 + 0.2, 81234609.993, 1e300}) {
    const std::string text = value_text(value);
    EXPECT_EQ(std::stod(text), value) << text;
  }
  EXPECT_EQ(value_text(0.99), "0.99");
}

TEST(Value, SpecialValuesUseTheFormatsSpelling) {
  EXPECT_EQ(value_text(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(value_text(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(value_text(-std::numeric_limits<double>::infinity()), "-Inf");
}

TEST(Labels, JoinsEscapedPairs) {
  Labels labels;
  labels.add("host", "node\"1").add("gpu", "0");
  EXPECT_EQ(labels.text(), R"(host="node\"1",gpu="0")");
  const Labels more = labels.with("user", "a\\b");
  EXPECT_EQ(more.text(), R"(host="node\"1",gpu="0",user="a\\b")");
  EXPECT_EQ(labels.text(), R"(host="node\"1",gpu="0")");
}

TEST(Family, WritesHelpAndTypeBeforeTheFirstSampleOnly) {
  fmt::memory_buffer out;
  Family family(out, "x_bytes", MetricType::gauge, "Bytes\nwith a \\ in its help");
  family.sample(Labels{}.add("a", "1"), 5);
  family.sample(Labels{}.add("a", "2"), 0.5);
  Family(out, "y_total", MetricType::counter, "Things").sample(7);
  EXPECT_EQ(fmt::to_string(out),
            "# HELP x_bytes Bytes\\nwith a \\\\ in its help\n# TYPE x_bytes gauge\n"
            "x_bytes{a=\"1\"} 5\nx_bytes{a=\"2\"} 0.5\n"
            "# HELP y_total Things\n# TYPE y_total counter\ny_total 7\n");
}

TEST(Family, WithoutSamplesWritesNothing) {
  fmt::memory_buffer out;
  {
    Family unused(out, "x", MetricType::gauge, "X");
  }
  EXPECT_EQ(out.size(), 0U);
}

TEST(Family, ReadsBackThroughAnIndependentReader) {
  fmt::memory_buffer out;
  Family family(out, "odd_labels", MetricType::gauge, "Odd labels");
  const std::string nasty = "a\\b \"c\"\nd}{,=";
  family.sample(Labels{}.add("v", nasty).add("w", ""), 1);
  const auto parsed = testing::parse_exposition(fmt::to_string(out));
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  ASSERT_EQ(parsed->samples.size(), 1U);
  EXPECT_EQ(parsed->samples[0].labels.at("v"), nasty);
  EXPECT_EQ(parsed->samples[0].labels.at("w"), "");
  EXPECT_EQ(parsed->helps.at("odd_labels"), "Odd labels");
}

}  // namespace gpumeter::exposition::prometheus_text_test

// The SVG charts are well-formed XML, carry their labels and legend, and
// every drawn datum carries the value it was given.
#include "report/svg_chart.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "report/xml_test_util.h"

namespace occam::report_internal {
namespace {

std::unique_ptr<xml_test::Node> Parse(const std::string& svg) {
  xml_test::Reader reader(svg);
  auto root = reader.Parse();
  EXPECT_NE(root, nullptr) << reader.error() << "\n" << svg.substr(0, 400);
  return root;
}

StackedBarChart Bars() {
  StackedBarChart c;
  c.id = "bars";
  c.title = "Memory <per> chip & more";
  c.x_label = "pipeline device";
  c.y_label = "memory per chip (GB)";
  c.categories = {"0", "1", "2"};
  c.series = {"weights", "gradients", "activations"};
  c.values = {{1.5, 2, 10}, {1.5, 2, 70}, {0.1, 0.2, 0.3}};
  c.limit = 76;
  c.limit_label = "usable HBM 76 GB";
  return c;
}

TEST(SvgChart, StackedBarsCarryEveryValueAndTheLimit) {
  const StackedBarChart c = Bars();
  auto root = Parse(RenderStackedBars(c));
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->name, "svg");
  std::vector<const xml_test::Node*> values;
  for (const auto* r : xml_test::FindAll(*root, "rect")) {
    if (r->attrs.count("data-value")) values.push_back(r);
  }
  ASSERT_EQ(values.size(), 9u);
  for (size_t k = 0; k < 3; ++k) {
    for (size_t i = 0; i < 3; ++i) {
      const auto* r = values[k * 3 + i];
      EXPECT_EQ(r->attrs.at("data-series"), c.series[i]);
      EXPECT_EQ(std::stod(r->attrs.at("data-value")), c.values[k][i]);
    }
  }
  const std::string text = xml_test::AllText(*root);
  for (const char* s : {"Memory <per> chip & more", "pipeline device", "memory per chip (GB)",
                        "usable HBM 76 GB", "weights", "gradients", "activations"}) {
    EXPECT_NE(text.find(s), std::string::npos) << s;
  }
  // Every device fits (the fullest holds 1.5 + 2 + 70 = 73.5 <= 76).
  EXPECT_EQ(text.find("over by"), std::string::npos);
}

TEST(SvgChart, StackedBarsMarkOverflow) {
  StackedBarChart c = Bars();
  c.values[1][2] = 80;  // 1.5 + 2 + 80 = 83.5 > 76
  auto root = Parse(RenderStackedBars(c));
  ASSERT_NE(root, nullptr);
  int overflow = 0;
  for (const auto* t : xml_test::FindAll(*root, "text")) {
    if (t->attrs.count("class") && t->attrs.at("class") == "overflow") {
      ++overflow;
      EXPECT_NE(t->text.find("7.5"), std::string::npos) << t->text;
    }
  }
  EXPECT_EQ(overflow, 1);
}

TEST(SvgChart, PatternsDifferBeyondHue) {
  const std::string svg = RenderStackedBars(Bars());
  // Series 1 is hatched, series 2 dotted: patterns defined for this chart.
  EXPECT_NE(svg.find("id=\"bars-p1\""), std::string::npos);
  EXPECT_NE(svg.find("id=\"bars-p2\""), std::string::npos);
  EXPECT_EQ(svg.find("http"), std::string::npos);
}

TEST(SvgChart, ScatterLogAxesCoverDecadesAndMarks) {
  ScatterChart c;
  c.id = "sc";
  c.title = "t";
  c.x_label = "measured";
  c.y_label = "predicted";
  c.log_axes = true;
  c.diagonal = true;
  c.series = {{"a100", {{2.0, 3.0, "r1"}, {150.0, 120.0, "r2"}}}, {"tpu", {{0.5, 0.6, "r3"}}}};
  auto root = Parse(RenderScatter(c));
  ASSERT_NE(root, nullptr);
  std::vector<std::pair<double, double>> points;
  std::vector<const xml_test::Node*> all;
  for (const char* tag : {"circle", "rect", "path"}) {
    for (const auto* n : xml_test::FindAll(*root, tag)) {
      if (n->attrs.count("data-x")) {
        points.emplace_back(std::stod(n->attrs.at("data-x")), std::stod(n->attrs.at("data-y")));
      }
    }
  }
  ASSERT_EQ(points.size(), 3u);
  // Ticks: decades from 0.1 (below 0.5) to 1000 (above 150).
  const std::string text = xml_test::AllText(*root);
  for (const char* tick : {"0.1", "1", "10", "100", "1000"}) {
    EXPECT_NE(text.find(tick), std::string::npos) << tick;
  }
  EXPECT_NE(text.find("a100"), std::string::npos);
  EXPECT_NE(text.find("tpu"), std::string::npos);
}

TEST(SvgChart, LinesLeaveGapsForMissingValues) {
  LineChart c;
  c.id = "ln";
  c.title = "MFU";
  c.x_label = "fast-domain size (chips)";
  c.y_label = "MFU (%)";
  c.x = {"8", "16", "72"};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  c.series = {{"best", {30, 35, 40}}, {"without PP", {20, nan, 39}}};
  auto root = Parse(RenderLines(c));
  ASSERT_NE(root, nullptr);
  int marks = 0;
  for (const char* tag : {"circle", "rect", "path"}) {
    for (const auto* n : xml_test::FindAll(*root, tag)) marks += n->attrs.count("data-value");
  }
  EXPECT_EQ(marks, 5);  // 3 + 2: the missing point is not drawn
}

TEST(SvgChart, TimelineHasOneBarPerEventAndALanePerStream) {
  TimelineChart c;
  c.id = "tl";
  c.title = "timeline";
  c.x_label = "time (ms)";
  c.lanes = {"dev 0 compute", "dev 1 compute"};
  c.kinds = {"F", "B"};
  c.bars = {{0, 0, 1, 0, "F0"}, {1, 1, 2, 0, "F0"}, {1, 2, 4, 1, "B0"}, {0, 4, 6, 1, "B0"}};
  auto root = Parse(RenderTimeline(c));
  ASSERT_NE(root, nullptr);
  const xml_test::Node* events = nullptr;
  for (const auto* g : xml_test::FindAll(*root, "g")) {
    if (g->attrs.count("class") && g->attrs.at("class") == "events") events = g;
  }
  ASSERT_NE(events, nullptr);
  EXPECT_EQ(events->children.size(), 4u);
}

TEST(SvgChart, EscapesAndExactNumbers) {
  EXPECT_EQ(XmlEscape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
  EXPECT_EQ(std::stod(ExactNumber(0.1 + 0.2)), 0.1 + 0.2);
  EXPECT_EQ(ExactNumber(76), "76");
}

}  // namespace
}  // namespace occam::report_internal

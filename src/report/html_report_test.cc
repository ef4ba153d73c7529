// The HTML reports: each page is well-formed XML with no external reference,
// states its inputs and occam's version, holds every chart with its labels,
// and the numbers in the charts are the result structs' values.
#include <gtest/gtest.h>

#include <cmath>

#include "occam/report.h"
#include "occam/step.h"
#include "report/html_charts.h"
#include "report/xml_test_util.h"

namespace occam {
namespace {

using xml_test::Node;

std::unique_ptr<Node> ParsePage(const std::string& html) {
  // External references would appear as URLs or src/href attributes.
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  xml_test::Reader reader(html);
  auto root = reader.Parse();
  EXPECT_NE(root, nullptr) << reader.error();
  return root;
}

// The data-value of each rect of series `series` in chart `id`, in order.
std::vector<double> SeriesValues(const Node& root, const std::string& id,
                                 const std::string& series) {
  const Node* svg = xml_test::FindId(root, id);
  EXPECT_NE(svg, nullptr) << id;
  std::vector<double> out;
  if (svg == nullptr) return out;
  for (const Node* r : xml_test::FindAll(*svg, "rect")) {
    const auto s = r->attrs.find("data-series");
    if (s != r->attrs.end() && s->second == series)
      out.push_back(std::stod(r->attrs.at("data-value")));
  }
  return out;
}

HtmlInputs Inputs() { return {"occam estimate --model gpt2-xl --cluster h100 --chips 64"}; }

// GPT-2 XL (25 heads: tp = 1) on 64 H100 with four pipeline stages: every stage holds a
// different share (embedding on the first, head on the last, in-flight
// activations falling along the pipeline).
struct Fixture {
  ModelSpec model = *CatalogModel("gpt2-xl");
  ClusterSpec cluster = *CatalogCluster("h100", 64);
  JobSpec job;
  Estimate e;
  Fixture() {
    job.seq_len = 1024;
    job.global_batch_seqs = 256;
    const auto step = StepModel::Create(model, cluster, job);
    EXPECT_TRUE(step.ok()) << step.status().message();
    auto r = step->Evaluate(*ParsePlan("tp=1,pp=4,dp=16,mbs=1,schedule=1f1b"));
    EXPECT_TRUE(r.ok()) << r.status().message();
    e = *r;
  }
};

TEST(HtmlReport, EstimateMemoryPerDeviceEqualsTheEstimate) {
  const Fixture f;
  ASSERT_EQ(f.e.memory_per_device.size(), 4u);
  // The estimate's `memory` is the fullest device.
  double fullest = 0;
  for (const MemoryBreakdown& m : f.e.memory_per_device)
    fullest = std::max(fullest, m.total().value());
  EXPECT_EQ(fullest, f.e.memory.total().value());

  const std::string html = EstimateHtml(f.e, f.model, f.cluster, f.job, Inputs());
  auto root = ParsePage(html);
  ASSERT_NE(root, nullptr);
  const std::vector<double> weights = SeriesValues(*root, "memory-0", "weights");
  const std::vector<double> acts = SeriesValues(*root, "memory-0", "activations");
  ASSERT_EQ(weights.size(), 4u);
  ASSERT_EQ(acts.size(), 4u);
  for (size_t d = 0; d < 4; ++d) {
    EXPECT_EQ(weights[d], f.e.memory_per_device[d].weights.value() / 1e9);
    EXPECT_EQ(acts[d], f.e.memory_per_device[d].activations.value() / 1e9);
  }
  // The usable-HBM line is the estimate's capacity.
  const Node* svg = xml_test::FindId(*root, "memory-0");
  bool limit = false;
  for (const Node* g : xml_test::FindAll(*svg, "g")) {
    if (g->attrs.count("class") && g->attrs.at("class") == "limit") {
      limit = true;
      EXPECT_EQ(std::stod(g->attrs.at("data-value")), f.e.memory_capacity.value() / 1e9);
    }
  }
  EXPECT_TRUE(limit);
  // Inputs and version stated.
  EXPECT_NE(html.find(Inputs().command_line), std::string::npos);
  EXPECT_NE(html.find("occam " + OccamVersion()), std::string::npos);
}

TEST(HtmlReport, StepSplitAddsUpToTheStepTime) {
  const Fixture f;
  const auto chart = report_internal::StepSplitChart({{"this layout", &f.e}}, "s");
  ASSERT_EQ(chart.values.size(), 1u);
  double sum = 0, compute = 0, bubble = 0;
  for (size_t i = 0; i < chart.series.size(); ++i) sum += chart.values[0][i];
  for (const TimeItem& t : f.e.breakdown) {
    if (t.what == "compute") compute += t.exposed.value();
    if (t.what == "pipeline bubble") bubble += t.exposed.value();
  }
  EXPECT_NEAR(sum, f.e.step_time.value(), 1e-9 * f.e.step_time.value());
  EXPECT_EQ(chart.series.front(), "compute");
  EXPECT_EQ(chart.values[0][0], compute);
  EXPECT_GT(bubble, 0);  // pp = 4 has a bubble
  const auto it = std::find(chart.series.begin(), chart.series.end(), "pipeline bubble");
  ASSERT_NE(it, chart.series.end());
  EXPECT_EQ(chart.values[0][it - chart.series.begin()], bubble);
}

LayoutResult Layout(const char* plan, double step, double mfu, double gb) {
  LayoutResult l;
  l.plan = *ParsePlan(plan);
  l.step_time = Seconds(step);
  l.mfu = mfu;
  l.memory_per_chip = GB(gb);
  return l;
}

TEST(HtmlReport, PlanHasEveryChartAndMarksBestAndSimplest) {
  const Fixture f;
  SearchResult r;
  r.top = {Layout("tp=2,pp=4,dp=8,schedule=1f1b", 1.0, 0.45, 50),
           Layout("tp=1,pp=1,dp=64", 1.02, 0.44, 70), Layout("tp=8,pp=1,dp=8", 1.2, 0.38, 30)};
  r.best = r.best_with_pp = r.top[0];
  r.simplest = r.best_without_pp = r.top[1];
  r.pp_verdict = "pipeline parallelism is not needed here";
  PlanEstimates est;
  est.best = f.e;
  const std::string html = PlanHtml(r, est, f.model, f.cluster, f.job, 0.5, Inputs());
  auto root = ParsePage(html);
  ASSERT_NE(root, nullptr);
  // Every chart, with the unit in its axis label.
  for (const auto& [id, unit] :
       {std::pair{"memory-0", "memory per chip (GB)"}, std::pair{"step-split", "time per step (s)"},
        std::pair{"top-layouts", "MFU (%)"}}) {
    const Node* svg = xml_test::FindId(*root, id);
    ASSERT_NE(svg, nullptr) << id;
    EXPECT_NE(xml_test::AllText(*svg).find(unit), std::string::npos) << id;
  }
  const Node* top = xml_test::FindId(*root, "top-layouts");
  std::vector<std::string> marks;
  int points = 0;
  for (const Node* n : xml_test::FindAll(*top, "g")) {
    if (n->attrs.count("data-label")) {
      marks.push_back(n->attrs.at("data-label"));
      if (n->attrs.at("data-label") == "best = best with PP") {
        EXPECT_EQ(std::stod(n->attrs.at("data-y")), 100.0 * r.best->mfu);
        EXPECT_EQ(std::stod(n->attrs.at("data-x")), r.best->memory_per_chip.value() / 1e9);
      }
    }
  }
  for (const char* tag : {"circle", "rect", "path"}) {
    for (const Node* n : xml_test::FindAll(*top, tag)) points += n->attrs.count("data-x");
  }
  EXPECT_EQ(points, 3);
  // best_without_pp is top[1], which is also the simplest, and best_with_pp
  // is the best: one circle each.
  EXPECT_EQ(marks, (std::vector<std::string>{"best = best with PP", "simplest = best without PP"}));
  EXPECT_NE(html.find(r.pp_verdict), std::string::npos);
}

// The two sides of the PP verdict are both drawn: the best layout with PP
// joins the scatter when the top list holds none, and the named layouts.
TEST(HtmlReport, PlanShowsTheBestLayoutWithPp) {
  const Fixture f;
  SearchResult r;
  r.top = {Layout("tp=1,pp=1,dp=64", 1.0, 0.45, 50), Layout("tp=8,pp=1,dp=8", 1.1, 0.40, 30)};
  r.best = r.simplest = r.best_without_pp = r.top[0];
  r.best_with_pp = Layout("tp=2,pp=4,dp=8,schedule=1f1b", 1.3, 0.35, 60);
  const report_internal::ScatterChart c = report_internal::TopLayoutsChart(r, "top-layouts");
  ASSERT_EQ(c.series.size(), 2u);
  ASSERT_EQ(c.series[0].points.size(), 1u);  // "with PP": the best with PP alone
  EXPECT_EQ(c.series[0].points[0].y, 100.0 * 0.35);
  EXPECT_EQ(c.marks.back().label, "best with PP");
  PlanEstimates est;
  est.best = f.e;
  est.best->plan = *ParsePlan("tp=4,pp=1,dp=16,mbs=1");  // the fixture's layout has pp = 4
  est.best_with_pp = f.e;
  const auto layouts = report_internal::DistinctLayouts(est);
  ASSERT_EQ(layouts.size(), 2u);
  EXPECT_EQ(layouts[1].first, "best with PP");
}

TEST(HtmlReport, DistinctLayoutsNameSharedRoles) {
  const Fixture f;
  PlanEstimates est;
  est.best = f.e;
  est.simplest = f.e;
  const auto layouts = report_internal::DistinctLayouts(est);
  ASSERT_EQ(layouts.size(), 1u);
  EXPECT_EQ(layouts[0].first, "best = simplest");
}

TEST(HtmlReport, SweepChartHasBothLinesPerVariant) {
  std::vector<SweepRow> rows;
  for (const auto& [v, with, without] :
       {std::tuple{"scale-up-size=8", 0.30, 0.20}, std::tuple{"scale-up-size=72", 0.40, 0.39}}) {
    SweepRow row;
    row.cluster = "h800";
    row.variant = v;
    row.result = SearchResult{};
    row.result->best = Layout("tp=1,pp=8,dp=8", 1, with, 50);
    row.result->best_without_pp = Layout("tp=1,pp=1,dp=64", 1, without, 50);
    rows.push_back(row);
  }
  ModelSpec m;
  m.name = "m";
  const std::string html = SweepHtml(rows, m, 1.0, {"occam sweep ..."});
  auto root = ParsePage(html);
  ASSERT_NE(root, nullptr);
  const Node* svg = xml_test::FindId(*root, "sweep-mfu");
  ASSERT_NE(svg, nullptr);
  EXPECT_NE(xml_test::AllText(*svg).find("fast-domain (scale-up) size (chips)"), std::string::npos);
  std::vector<double> values;
  for (const char* tag : {"circle", "rect"}) {
    for (const Node* n : xml_test::FindAll(*svg, tag)) {
      if (n->attrs.count("data-value")) values.push_back(std::stod(n->attrs.at("data-value")));
    }
  }
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, (std::vector<double>{20, 30, 39, 40}));
}

TEST(HtmlReport, SimulateTimelineHasEveryEvent) {
  PipelineConfig c;
  c.schedule = Schedule::k1F1B;
  c.stages = 4;
  c.microbatches = 8;
  c.chunks = {
      ChunkCost{Seconds(1e-3), Seconds(1e-3), Seconds(1e-3), Bytes(1e9), Seconds(0), Seconds(0)}};
  c.p2p = Seconds(1e-4);
  c.record_timeline = true;
  const auto r = SimulatePipeline(c);
  ASSERT_TRUE(r.ok());
  SimulateReportInfo info;
  info.source = "uniform stages";
  const std::string html = SimulateHtml(c, *r, info, {"occam simulate --schedule 1f1b"});
  auto root = ParsePage(html);
  ASSERT_NE(root, nullptr);
  const Node* svg = xml_test::FindId(*root, "timeline");
  ASSERT_NE(svg, nullptr);
  size_t bars = 0;
  for (const Node* g : xml_test::FindAll(*svg, "g")) {
    if (g->attrs.count("class") && g->attrs.at("class") == "events") bars = g->children.size();
  }
  EXPECT_EQ(bars, r->timeline.size());
  // 4 devices with compute, sends and receives.
  EXPECT_NE(xml_test::AllText(*svg).find("dev 3 compute"), std::string::npos);
}

TEST(HtmlReport, ValidatePointsAreThePredictions) {
  ValidationReport rep;
  for (const auto& [id, fam, meas, pred] :
       {std::tuple{"a", "a100", 2.0, 2.2}, std::tuple{"b", "tpu-v5e", 40.0, 36.0}}) {
    RunValidation v;
    v.id = id;
    v.family = fam;
    v.measured = meas;
    v.predicted = pred;
    v.rel_error = (pred - meas) / meas;
    rep.runs.push_back(v);
  }
  RunValidation skipped;
  skipped.id = "c";
  skipped.skipped_reason = "no such chip";
  rep.runs.push_back(skipped);
  const std::string html = ValidateHtml(rep, {"occam validate"});
  auto root = ParsePage(html);
  ASSERT_NE(root, nullptr);
  const Node* svg = xml_test::FindId(*root, "validate");
  ASSERT_NE(svg, nullptr);
  std::vector<std::pair<double, double>> pts;
  for (const char* tag : {"circle", "rect", "path"}) {
    for (const Node* n : xml_test::FindAll(*svg, tag)) {
      if (n->attrs.count("data-x")) {
        pts.emplace_back(std::stod(n->attrs.at("data-x")), std::stod(n->attrs.at("data-y")));
      }
    }
  }
  EXPECT_EQ(pts, (std::vector<std::pair<double, double>>{{2.0, 2.2}, {40.0, 36.0}}));
  EXPECT_NE(html.find("no such chip"), std::string::npos);
}

}  // namespace
}  // namespace occam

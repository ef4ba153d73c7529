// HTML reports of `occam simulate` and `occam validate` (doc/html-report.md).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "occam/report.h"
#include "report/html_charts.h"
#include "report/html_page.h"
#include "report/percent.h"
#include "report/svg_chart.h"

namespace occam {
namespace {

using report_internal::HtmlPage;
using report_internal::HtmlSection;
using report_internal::HtmlTable;
using report_internal::XmlEscape;

using report_internal::Pct;

std::string StatsRow(const ErrorStats& s) {
  return fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                     XmlEscape(s.group), s.runs, Pct(s.median), Pct(s.p90), Pct(s.mean));
}

}  // namespace

std::string SimulateHtml(const PipelineConfig& c, const PipelineResult& r,
                         const SimulateReportInfo& info, const HtmlInputs& inputs) {
  std::string body = fmt::format(
      "<p>{}: {} stages{}, {} micro-batches ({}). Makespan {}, bubble {:.2f}% of the makespan "
      "on the busiest device.</p>\n",
      XmlEscape(std::string(ScheduleName(c.schedule))), c.stages,
      c.vpp > 1 ? fmt::format(" x {} chunks", c.vpp) : "", c.microbatches, XmlEscape(info.source),
      FormatSeconds(r.makespan), 100.0 * r.bubble_fraction);
  body += HtmlSection(
      "Timeline",
      "Each lane is one device's compute, send or receive stream; bars are forward (F), "
      "input-gradient (B) and weight-gradient (W) passes of one micro-batch through one chunk, "
      "and activation transfers. Gaps on a compute lane are the bubble.",
      report_internal::RenderTimeline(report_internal::PipelineTimelineChart(r, "timeline")));
  std::vector<std::vector<std::string>> rows;
  for (size_t d = 0; d < r.busy.size(); ++d) {
    rows.push_back({std::to_string(d), FormatSeconds(r.busy[d]),
                    FormatSeconds(r.makespan - r.busy[d]),
                    std::to_string(r.peak_inflight_microbatches[d]),
                    info.activation_known ? FormatBytes(r.peak_activation[d]) : "-"});
  }
  body +=
      HtmlSection("Devices", "Busy and idle time, peak in-flight micro-batches and activations.",
                  HtmlTable({"device", "busy", "idle", "peak in-flight", "peak activation"}, rows));
  std::string notes;
  for (const std::string& a : info.assumptions) notes += "<li>" + XmlEscape(a) + "</li>";
  if (!notes.empty()) body += HtmlSection("Assumptions", "", "<ul>" + notes + "</ul>\n");
  return HtmlPage("occam simulate: " + std::string(ScheduleName(c.schedule)), inputs, body);
}

std::string ValidateHtml(const ValidationReport& report, const HtmlInputs& inputs) {
  std::string body =
      fmt::format("<p>{} runs predicted, {} skipped.</p>\n", report.all.runs, report.skipped);
  body += HtmlSection(
      "Predicted against measured",
      "One point per published run in the source's own metric (step time, TFLOP/s per chip, "
      "MFU, tokens/s per chip, ...), one series per chip family; the dashed diagonal is a "
      "perfect prediction.",
      report_internal::RenderScatter(report_internal::ValidateChart(report, "validate")));
  std::string stats =
      "<table>\n<tr><th>group</th><th>runs</th><th>median |error|</th><th>p90 "
      "</th><th>mean</th></tr>\n";
  stats += StatsRow(report.all);
  for (const ErrorStats& f : report.families) stats += StatsRow(f);
  body += HtmlSection("Absolute relative error", "", stats + "</table>\n");
  std::vector<std::vector<std::string>> rows;
  for (const RunValidation& v : report.runs) {
    rows.push_back({v.id, std::string(MetricKindName(v.kind)), fmt::format("{:.4g}", v.measured),
                    v.predicted ? fmt::format("{:.4g}", *v.predicted) : "-",
                    v.rel_error ? fmt::format("{:+.1f}%", 100.0 * *v.rel_error)
                                : "skipped: " + v.skipped_reason});
  }
  body +=
      HtmlSection("Runs", "", HtmlTable({"run", "metric", "measured", "predicted", "error"}, rows));
  return HtmlPage("occam validate", inputs, body);
}

}  // namespace occam

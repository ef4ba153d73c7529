// HTML reports of `occam estimate`, `plan` and `sweep` (doc/html-report.md):
// the same result structs as the text and JSON reports, drawn as charts.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <utility>
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

using report_internal::Pct;

std::string Heading(const ModelSpec& model, const ClusterSpec& cluster, const JobSpec& job) {
  return fmt::format("{} on {} x {}, seq {}, {} seqs/step ({:.2f}M tokens), {}", model.name,
                     cluster.name, cluster.num_chips, job.seq_len, job.global_batch_seqs,
                     static_cast<double>(job.global_batch_tokens()) / 1e6,
                     PrecisionName(job.precision));
}

std::vector<std::string> LayoutRow(const std::string& name, const std::optional<LayoutResult>& l) {
  if (!l) return {name, "none", "", "", "", ""};
  return {name,
          FormatPlan(l->plan),
          FormatSeconds(l->step_time),
          Pct(l->mfu),
          FormatBytes(l->memory_per_chip),
          std::to_string(l->complexity)};
}

std::string MemorySections(const std::vector<report_internal::NamedEstimate>& layouts) {
  std::string s;
  for (size_t i = 0; i < layouts.size(); ++i) {
    const auto& [name, e] = layouts[i];
    s += "<p><strong>" + report_internal::XmlEscape(name) + "</strong>: <code>" +
         report_internal::XmlEscape(FormatPlan(e->plan)) + "</code></p>\n";
    s += report_internal::RenderStackedBars(
        report_internal::MemoryChart(*e, fmt::format("memory-{}", i), name));
  }
  return HtmlSection("Memory per chip on each pipeline device",
                     "Per chip, stacked: weights, gradients, optimizer state, activations at the "
                     "device's peak and buffers (communication, workspace). The dashed line is "
                     "the usable HBM (capacity less the headroom); a bar above it is marked with "
                     "the overflow.",
                     s);
}

std::string StepSplitSection(const std::vector<report_internal::NamedEstimate>& layouts) {
  return HtmlSection(
      "Where the step time goes",
      "Exposed time per step on the slowest pipeline device: compute, communication left on "
      "the critical path per axis and network tier, the pipeline bubble and other work "
      "(optimizer step).",
      report_internal::RenderStackedBars(report_internal::StepSplitChart(layouts, "step-split")));
}

}  // namespace

std::string EstimateHtml(const Estimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                         const JobSpec& job, const HtmlInputs& inputs) {
  std::string body = "<p>" + report_internal::XmlEscape(Heading(model, cluster, job)) + "</p>\n";
  body += HtmlTable(
      {"plan", "step time", "tokens/s", "MFU", "HFU", "memory per chip", "fits"},
      {{FormatPlan(e.plan), FormatSeconds(e.step_time), fmt::format("{:.0f}", e.tokens_per_s),
        Pct(e.mfu), Pct(e.hfu), FormatBytes(e.memory.total()), e.fits ? "yes" : "no"}});
  body += "<p>Bottleneck: " + report_internal::XmlEscape(e.bottleneck) + "</p>\n";
  const std::vector<report_internal::NamedEstimate> one = {{"this layout", &e}};
  body += MemorySections(one);
  body += StepSplitSection(one);
  std::vector<std::vector<std::string>> rows;
  for (const TimeItem& i : e.breakdown) {
    rows.push_back({i.what, i.axis, i.tier, FormatSeconds(i.total), FormatSeconds(i.exposed)});
  }
  body += HtmlSection("Time breakdown", "Every item, total and exposed.",
                      HtmlTable({"what", "axis", "tier", "total", "exposed"}, rows));
  std::string notes;
  for (const std::string& a : e.assumptions)
    notes += "<li>" + report_internal::XmlEscape(a) + "</li>";
  body += HtmlSection("Assumptions", "Defaults filled in and policies applied.",
                      "<ul>" + notes + "</ul>\n");
  return HtmlPage("occam estimate: " + model.name + " on " + cluster.name, inputs, body);
}

std::string PlanHtml(const SearchResult& r, const PlanEstimates& estimates, const ModelSpec& model,
                     const ClusterSpec& cluster, const JobSpec& job, double search_seconds,
                     const HtmlInputs& inputs) {
  std::string body = "<p>" + report_internal::XmlEscape(Heading(model, cluster, job)) + "</p>\n";
  body += "<p><strong>Verdict:</strong> " + report_internal::XmlEscape(r.pp_verdict) + "</p>\n";
  body += HtmlTable(
      {"", "layout", "step time", "MFU", "memory per chip", "complexity"},
      {LayoutRow("best", r.best), LayoutRow("simplest within", r.simplest),
       LayoutRow("best without PP", r.best_without_pp), LayoutRow("best with PP", r.best_with_pp)});
  body += fmt::format(
      "<p>Search: {} candidates, {} pruned by the memory bound, {} by the step-time bound, {} "
      "invalid; {} evaluated, {} fit; {:.3f} s.</p>\n",
      r.layouts_candidates, r.layouts_pruned_memory, r.layouts_pruned_bound, r.layouts_invalid,
      r.layouts_evaluated, r.layouts_feasible, search_seconds);
  const auto layouts = report_internal::DistinctLayouts(estimates);
  if (!layouts.empty()) {
    body += MemorySections(layouts);
    body += StepSplitSection(layouts);
  }
  body += HtmlSection(
      "Top layouts: MFU against memory per chip",
      "Each point is one of the fastest layouts that fit (and the best layout without PP, or "
      "with PP, when none of them is one); circles name the best, the simplest within the "
      "threshold, the best without PP and the best with PP.",
      report_internal::RenderScatter(report_internal::TopLayoutsChart(r, "top-layouts")));
  return HtmlPage("occam plan: " + model.name + " on " + cluster.name, inputs, body);
}

std::string SweepHtml(const std::vector<SweepRow>& rows, const ModelSpec& model,
                      double search_seconds, const HtmlInputs& inputs) {
  std::string body =
      fmt::format("<p>{}, {} variants, {:.3f} s.</p>\n", report_internal::XmlEscape(model.name),
                  rows.size(), search_seconds);
  body += HtmlSection(
      "MFU with and without pipeline parallelism",
      "MFU of the best layout (PP allowed) and of the best layout without PP at each swept "
      "value: where the two lines meet, PP stops paying.",
      report_internal::RenderLines(report_internal::SweepChart(rows, "sweep-mfu")));
  std::vector<std::vector<std::string>> table;
  for (const SweepRow& row : rows) {
    if (!row.result) {
      table.push_back({row.cluster, row.variant, std::to_string(row.chips), "-", "-", "-",
                       "no answer: " + row.error});
      continue;
    }
    const SearchResult& r = *row.result;
    table.push_back({row.cluster, row.variant, std::to_string(row.chips),
                     r.best ? Pct(r.best->mfu) : "-",
                     r.best_without_pp ? Pct(r.best_without_pp->mfu) : "-",
                     r.pp_needed ? "needed" : "no", r.best ? FormatPlan(r.best->plan) : ""});
  }
  body += HtmlSection(
      "Rows", "One search per cluster and variant.",
      HtmlTable({"cluster", "variant", "chips", "best MFU", "no-PP MFU", "PP", "best layout"},
                table));
  return HtmlPage("occam sweep: " + model.name, inputs, body);
}

}  // namespace occam

// The charts of the HTML reports built from the result structs (the data
// only; svg_chart.h draws them). Separate from the page code so tests can
// check each chart's numbers against the structs.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "occam/report.h"
#include "report/svg_chart.h"

namespace occam::report_internal {

// A layout's role ("best", "simplest within 3%") and its estimate.
using NamedEstimate = std::pair<std::string, const Estimate*>;

// best, simplest and best without PP, each once: a layout that is more than
// one of them is named "best = simplest", ...
std::vector<NamedEstimate> DistinctLayouts(const PlanEstimates& estimates);

// Memory per chip (GB, 1e9 bytes) on each pipeline device, stacked by kind,
// with the usable HBM as the limit.
StackedBarChart MemoryChart(const Estimate& e, const std::string& id, const std::string& name);

// Exposed seconds per step, one bar per layout: "compute", "<axis> comm
// (<tier>)" per axis and tier, "pipeline bubble", "other" (the remaining
// items and any step time not covered by them).
StackedBarChart StepSplitChart(const std::vector<NamedEstimate>& layouts, const std::string& id);

// The top layouts as MFU (%) against memory per chip (GB), with and without
// PP as two series (plus the best without PP when the top has none); best,
// simplest and best without PP marked.
ScatterChart TopLayoutsChart(const SearchResult& r, const std::string& id);

// MFU (%) of the best layout and of the best without PP per swept value
// (per cluster when several), or per cluster when nothing varies.
LineChart SweepChart(const std::vector<SweepRow>& rows, const std::string& id);

// Predicted against measured per run, log-log, one series per chip family.
ScatterChart ValidateChart(const ValidationReport& report, const std::string& id);

// The recorded timeline: one lane per device and stream that has events.
TimelineChart PipelineTimelineChart(const PipelineResult& result, const std::string& id);

}  // namespace occam::report_internal

#include "report/html_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace occam::report_internal {
namespace {

constexpr double kGB = 1e9;  // decimal, as HBM capacities are quoted

std::vector<double> MemoryRow(const MemoryBreakdown& m) {
  return {m.weights.value() / kGB, m.grads.value() / kGB, m.optimizer.value() / kGB,
          m.activations.value() / kGB, m.other.value() / kGB};
}

std::string SplitName(const TimeItem& i) {
  if (i.what == "compute") return "compute";
  if (i.what == "pipeline bubble") return "pipeline bubble";
  if (i.axis.empty()) return "other";
  return i.tier.empty() ? i.axis + " comm" : i.axis + " comm (" + i.tier + ")";
}

int IndexOf(std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<int>(it - names.begin());
  names.push_back(name);
  return static_cast<int>(names.size()) - 1;
}

}  // namespace

std::vector<NamedEstimate> DistinctLayouts(const PlanEstimates& estimates) {
  const std::pair<const char*, const std::optional<Estimate>*> roles[] = {
      {"best", &estimates.best},
      {"simplest", &estimates.simplest},
      {"best without PP", &estimates.best_without_pp},
      {"best with PP", &estimates.best_with_pp}};
  std::vector<NamedEstimate> out;
  for (const auto& [role, e] : roles) {
    if (!e->has_value()) continue;
    const std::string plan = FormatPlan((*e)->plan);
    auto same = std::find_if(out.begin(), out.end(), [&](const NamedEstimate& n) {
      return FormatPlan(n.second->plan) == plan;
    });
    if (same != out.end()) {
      same->first += std::string(" = ") + role;
    } else {
      out.emplace_back(role, &**e);
    }
  }
  return out;
}

StackedBarChart MemoryChart(const Estimate& e, const std::string& id, const std::string& name) {
  StackedBarChart c;
  c.id = id;
  c.title = name + ": memory per chip by pipeline device";
  c.x_label = "pipeline device (stage)";
  c.y_label = "memory per chip (GB)";
  c.series = {"weights", "gradients", "optimizer state", "activations", "buffers"};
  const std::vector<MemoryBreakdown> devices =
      e.memory_per_device.empty() ? std::vector<MemoryBreakdown>{e.memory} : e.memory_per_device;
  for (size_t d = 0; d < devices.size(); ++d) {
    c.categories.push_back(std::to_string(d));
    c.values.push_back(MemoryRow(devices[d]));
  }
  c.limit = e.memory_capacity.value() / kGB;
  c.limit_label = fmt::format("usable HBM {:.1f} GB", *c.limit);
  return c;
}

StackedBarChart StepSplitChart(const std::vector<NamedEstimate>& layouts, const std::string& id) {
  StackedBarChart c;
  c.id = id;
  c.title = "Step time split (exposed time per step)";
  c.x_label = "layout";
  c.y_label = "time per step (s)";
  // Order: compute, communication in order of appearance, bubble, other.
  std::vector<std::string> comm;
  for (const auto& [name, e] : layouts) {
    for (const TimeItem& i : e->breakdown) {
      const std::string n = SplitName(i);
      if (n != "compute" && n != "pipeline bubble" && n != "other") IndexOf(comm, n);
    }
  }
  c.series = {"compute"};
  c.series.insert(c.series.end(), comm.begin(), comm.end());
  c.series.push_back("pipeline bubble");
  c.series.push_back("other");
  for (const auto& [name, e] : layouts) {
    std::vector<double> row(c.series.size(), 0.0);
    double covered = 0;
    for (const TimeItem& i : e->breakdown) {
      row[IndexOf(c.series, SplitName(i))] += i.exposed.value();
      covered += i.exposed.value();
    }
    row.back() += std::max(0.0, e->step_time.value() - covered);
    c.categories.push_back(name);
    c.values.push_back(row);
  }
  return c;
}

ScatterChart TopLayoutsChart(const SearchResult& r, const std::string& id) {
  ScatterChart c;
  c.id = id;
  c.title = fmt::format("Top {} layouts", r.top.size());
  c.x_label = "memory per chip (GB)";
  c.y_label = "MFU (%)";
  c.series = {{"with PP", {}}, {"without PP", {}}};
  auto point = [&](const LayoutResult& l) {
    c.series[l.plan.pp > 1 ? 0 : 1].points.push_back(
        {l.memory_per_chip.value() / kGB, 100.0 * l.mfu, FormatPlan(l.plan)});
  };
  for (const LayoutResult& l : r.top) point(l);
  // The best layout without PP (with PP), when the top list has none: the
  // trade-off the PP verdict weighs.
  auto listed = [&](bool pp) {
    return std::any_of(r.top.begin(), r.top.end(),
                       [&](const LayoutResult& l) { return (l.plan.pp > 1) == pp; });
  };
  if (r.best_without_pp && !listed(false)) point(*r.best_without_pp);
  if (r.best_with_pp && !listed(true)) point(*r.best_with_pp);
  auto mark = [&](const std::optional<LayoutResult>& l, const std::string& name) {
    if (!l) return;
    for (ScatterMark& m : c.marks) {
      if (m.x == l->memory_per_chip.value() / kGB && m.y == 100.0 * l->mfu) {
        m.label += " = " + name;
        return;
      }
    }
    c.marks.push_back({l->memory_per_chip.value() / kGB, 100.0 * l->mfu, name});
  };
  mark(r.best, "best");
  mark(r.simplest, "simplest");
  mark(r.best_without_pp, "best without PP");
  mark(r.best_with_pp, "best with PP");
  return c;
}

namespace {

// "scale-up-size=72" -> {"scale-up-size", "72"}.
std::pair<std::string, std::string> SplitVariant(const std::string& v) {
  const size_t eq = v.find('=');
  if (eq == std::string::npos) return {"", v};
  return {v.substr(0, eq), v.substr(eq + 1)};
}

std::string VaryAxisLabel(const std::string& name) {
  if (name == "scale-up-size") return "fast-domain (scale-up) size (chips)";
  if (name == "scale-out-gbps") return "scale-out bandwidth (GB/s per chip)";
  if (name == "global-batch-tokens") return "global batch (tokens)";
  if (name == "seq-len") return "sequence length (tokens)";
  return name.empty() ? "cluster" : name;
}

}  // namespace

LineChart SweepChart(const std::vector<SweepRow>& rows, const std::string& id) {
  LineChart c;
  c.id = id;
  c.title = "Best MFU with and without PP";
  c.y_label = "MFU (%)";
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool varies =
      std::any_of(rows.begin(), rows.end(), [](const SweepRow& r) { return !r.variant.empty(); });
  std::vector<std::string> clusters;
  for (const SweepRow& row : rows) {
    IndexOf(varies ? c.x : clusters, varies ? SplitVariant(row.variant).second : row.cluster);
    if (varies) IndexOf(clusters, row.cluster);
    if (varies && c.x_label.empty()) c.x_label = VaryAxisLabel(SplitVariant(row.variant).first);
  }
  if (!varies) {
    c.x = clusters;
    c.x_label = "cluster";
    clusters = {""};
  }
  for (const std::string& cl : clusters) {
    const std::string prefix = cl.empty() ? "" : cl + ": ";
    LineSeries with{prefix + "best (PP allowed)", std::vector<double>(c.x.size(), nan)};
    LineSeries without{prefix + "best without PP", std::vector<double>(c.x.size(), nan)};
    for (const SweepRow& row : rows) {
      if (varies && row.cluster != cl) continue;
      if (!row.result) continue;
      const std::string key = varies ? SplitVariant(row.variant).second : row.cluster;
      const size_t k = std::find(c.x.begin(), c.x.end(), key) - c.x.begin();
      if (row.result->best) with.values[k] = 100.0 * row.result->best->mfu;
      if (row.result->best_without_pp) without.values[k] = 100.0 * row.result->best_without_pp->mfu;
    }
    c.series.push_back(std::move(with));
    c.series.push_back(std::move(without));
  }
  return c;
}

ScatterChart ValidateChart(const ValidationReport& report, const std::string& id) {
  ScatterChart c;
  c.id = id;
  c.title = "Predicted against measured, by chip family";
  c.x_label = "measured (the source's metric and unit, log scale)";
  c.y_label = "predicted (same metric, log scale)";
  c.log_axes = true;
  c.diagonal = true;
  std::vector<std::string> families;
  for (const RunValidation& v : report.runs) {
    if (!v.predicted || !(v.measured > 0) || !(*v.predicted > 0)) continue;
    const int k = IndexOf(families, v.family);
    if (k == static_cast<int>(c.series.size())) c.series.push_back({v.family, {}});
    c.series[k].points.push_back(
        {v.measured, *v.predicted,
         fmt::format("{} ({}): {:+.1f}%", v.id, MetricKindName(v.kind), 100.0 * *v.rel_error)});
  }
  return c;
}

TimelineChart PipelineTimelineChart(const PipelineResult& result, const std::string& id) {
  TimelineChart c;
  c.id = id;
  c.title = "Pipeline timeline per device and stream";
  c.x_label = "time (ms)";
  c.kinds = {"forward (F)", "backward, input grad (B)", "backward, weight grad (W)", "send / recv",
             "other"};
  constexpr const char* kStreams[] = {"compute", "send", "recv"};
  std::vector<std::string> lane_keys;
  for (const TimelineEvent& ev : result.timeline) {
    const int stream = std::clamp(ev.stream, 0, 2);
    const std::string key = fmt::format("{:06d}-{}", ev.device, stream);
    if (std::find(lane_keys.begin(), lane_keys.end(), key) == lane_keys.end()) {
      lane_keys.push_back(key);
    }
  }
  std::sort(lane_keys.begin(), lane_keys.end());
  for (const std::string& k : lane_keys) {
    c.lanes.push_back(fmt::format("dev {} {}", std::stoi(k.substr(0, 6)), kStreams[k[7] - '0']));
  }
  for (const TimelineEvent& ev : result.timeline) {
    const int stream = std::clamp(ev.stream, 0, 2);
    const std::string key = fmt::format("{:06d}-{}", ev.device, stream);
    const int lane = static_cast<int>(std::lower_bound(lane_keys.begin(), lane_keys.end(), key) -
                                      lane_keys.begin());
    int kind = 4;
    if (stream > 0)
      kind = 3;
    else if (ev.name.starts_with("F"))
      kind = 0;
    else if (ev.name.starts_with("B"))
      kind = 1;
    else if (ev.name.starts_with("W"))
      kind = 2;
    c.bars.push_back({lane, ev.start.value() * 1e3, ev.end.value() * 1e3, kind, ev.name});
  }
  return c;
}

}  // namespace occam::report_internal

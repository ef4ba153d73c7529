// `occam simulate` output: the schedule's makespan and bubble, a per-device
// table (busy, idle, peak in-flight micro-batches and chunks, peak
// activation), and the Chrome/Perfetto trace of its timeline.
// JSON schema: doc/json-output.md § simulate. Trace format: the Trace Event
// Format ("X" complete events, "M" metadata events; ts/dur in µs).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "occam/report.h"

namespace occam {
namespace {

std::string Shape(const PipelineConfig& c) {
  std::string s =
      fmt::format("{}, {} stage{}", ScheduleName(c.schedule), c.stages, c.stages == 1 ? "" : "s");
  if (c.vpp > 1) s += fmt::format(" x {} chunks", c.vpp);
  return s + fmt::format(", {} micro-batches", c.microbatches);
}

nlohmann::json ChunkJson(const ChunkCost& k) {
  return {{"forward_s", k.forward.value()},
          {"backward_input_s", k.backward_input.value()},
          {"backward_weight_s", k.backward_weight.value()},
          {"forward_comm_s", k.forward_comm.value()},
          {"backward_comm_s", k.backward_comm.value()},
          {"activation_bytes", k.activation.value()}};
}

constexpr const char* kStreamNames[] = {"compute", "send", "recv"};

}  // namespace

std::string SimulateText(const PipelineConfig& c, const PipelineResult& r,
                         const SimulateReportInfo& info) {
  std::string out = fmt::format("pipeline: {} ({})\n", Shape(c), info.source);
  out += fmt::format("makespan          {}\n", FormatSeconds(r.makespan));
  out +=
      fmt::format("bubble            {:.2f}% of the makespan (idle time of the busiest device)\n",
                  100.0 * r.bubble_fraction);
  out += fmt::format("parameter copies  {}\n\n", r.parameter_copies);
  out += fmt::format("{:>6}  {:>10}  {:>10}  {:>14}  {:>11}", "device", "busy", "idle",
                     "peak in-flight", "peak chunks");
  const bool units = info.stage_activation.value() > 0;
  if (info.activation_known) out += fmt::format("  {:>15}", "peak activation");
  if (units) out += fmt::format("  {:>11}", "peak act/A");
  out += "\n";
  for (size_t d = 0; d < r.busy.size(); ++d) {
    out += fmt::format("{:>6}  {:>10}  {:>10}  {:>14}  {:>11}", d, FormatSeconds(r.busy[d]),
                       FormatSeconds(r.makespan - r.busy[d]), r.peak_inflight_microbatches[d],
                       r.peak_inflight_chunks[d]);
    if (info.activation_known) out += fmt::format("  {:>15}", FormatBytes(r.peak_activation[d]));
    if (units) out += fmt::format("  {:>11.3f}", r.peak_activation[d] / info.stage_activation);
    out += "\n";
  }
  out +=
      "\npeak in-flight: micro-batches with activations stashed on the device;\n"
      "peak chunks: (micro-batch, chunk) activation sets held at once.\n";
  if (units) out += "A: activations of one micro-batch through one stage (L/p layers).\n";
  for (const std::string& a : info.assumptions) out += "assumed: " + a + "\n";
  return out;
}

std::string SimulateJson(const PipelineConfig& c, const PipelineResult& r,
                         const SimulateReportInfo& info) {
  nlohmann::json j;
  j["schedule"] = std::string(ScheduleName(c.schedule));
  j["stages"] = c.stages;
  j["vpp"] = c.vpp;
  j["microbatches"] = c.microbatches;
  j["source"] = info.source;
  j["makespan_s"] = r.makespan.value();
  j["bubble_fraction"] = r.bubble_fraction;
  j["parameter_copies"] = r.parameter_copies;
  j["peak_inflight_microbatches"] = r.peak_inflight_microbatches;
  j["peak_inflight_chunks"] = r.peak_inflight_chunks;
  std::vector<double> busy, act;
  for (Seconds s : r.busy) busy.push_back(s.value());
  for (Bytes b : r.peak_activation) act.push_back(b.value());
  j["busy_s"] = busy;
  if (info.activation_known) j["peak_activation_bytes"] = act;
  if (info.stage_activation.value() > 0) {
    std::vector<double> units;
    for (Bytes b : r.peak_activation) units.push_back(b / info.stage_activation);
    j["peak_activation_stage_units"] = units;
  }
  j["p2p_s"] = c.p2p.value();
  j["require_all_forward_first"] = c.require_all_forward_first;
  nlohmann::json chunks = nlohmann::json::array();
  for (const ChunkCost& k : c.chunks) chunks.push_back(ChunkJson(k));
  j["chunks"] = chunks;
  j["assumptions"] = info.assumptions;
  return j.dump(2) + "\n";
}

std::string PipelineTraceJson(const PipelineConfig& c, const PipelineResult& r) {
  nlohmann::json events = nlohmann::json::array();
  for (int64_t d = 0; d < int64_t(r.busy.size()); ++d) {
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", d},
                      {"tid", 0},
                      {"args", {{"name", fmt::format("pp rank {}", d)}}}});
    events.push_back({{"name", "process_sort_index"},
                      {"ph", "M"},
                      {"pid", d},
                      {"tid", 0},
                      {"args", {{"sort_index", d}}}});
    for (int t = 0; t < 3; ++t) {
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", d},
                        {"tid", t},
                        {"args", {{"name", kStreamNames[t]}}}});
    }
  }
  for (const TimelineEvent& e : r.timeline) {
    events.push_back({{"name", e.name},
                      {"cat", e.stream == 0 ? "compute" : "p2p"},
                      {"ph", "X"},
                      {"pid", e.device},
                      {"tid", e.stream},
                      {"ts", e.start.value() * 1e6},
                      {"dur", (e.end - e.start).value() * 1e6}});
  }
  nlohmann::json j;
  j["traceEvents"] = events;
  j["displayTimeUnit"] = "ms";
  j["otherData"] = {{"schedule", std::string(ScheduleName(c.schedule))},
                    {"stages", c.stages},
                    {"vpp", c.vpp},
                    {"microbatches", c.microbatches}};
  return j.dump() + "\n";
}

}  // namespace occam

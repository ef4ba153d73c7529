#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "occam/report.h"

namespace occam {
namespace {

PipelineConfig Small() {
  PipelineConfig c;
  c.schedule = Schedule::k1F1B;
  c.stages = 3;
  c.microbatches = 4;
  ChunkCost k;
  k.forward = Milliseconds(1);
  k.backward_input = Milliseconds(1);
  k.backward_weight = Milliseconds(1);
  k.activation = Bytes(1e9);
  c.chunks = {k};
  c.p2p = Milliseconds(0.1);
  c.record_timeline = true;
  return c;
}

TEST(SimulateReport, TraceHasOneProcessPerDeviceAndNamedStreams) {
  const PipelineConfig c = Small();
  const auto r = SimulatePipeline(c);
  ASSERT_TRUE(r.ok());
  const auto j = nlohmann::json::parse(PipelineTraceJson(c, *r));
  std::set<int64_t> x_pids;
  std::set<std::pair<int64_t, int64_t>> named_threads;
  size_t complete = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "X") {
      ++complete;
      x_pids.insert(e.at("pid").get<int64_t>());
      EXPECT_GE(e.at("dur").get<double>(), 0);
    } else if (e.at("name") == "thread_name") {
      named_threads.insert({e.at("pid").get<int64_t>(), e.at("tid").get<int64_t>()});
    }
  }
  EXPECT_EQ(complete, r->timeline.size());
  EXPECT_EQ(x_pids, (std::set<int64_t>{0, 1, 2}));
  EXPECT_EQ(named_threads.size(), 9u);  // 3 devices x (compute, send, recv)
}

TEST(SimulateReport, JsonCarriesPerStageArrays) {
  const PipelineConfig c = Small();
  const auto r = SimulatePipeline(c);
  ASSERT_TRUE(r.ok());
  SimulateReportInfo info{"uniform stages", true, {}, {}};
  const auto j = nlohmann::json::parse(SimulateJson(c, *r, info));
  EXPECT_DOUBLE_EQ(j.at("makespan_s").get<double>(), r->makespan.value());
  EXPECT_EQ(j.at("peak_inflight_microbatches").size(), 3u);
  EXPECT_EQ(j.at("peak_activation_bytes").size(), 3u);
  info.activation_known = false;
  EXPECT_FALSE(nlohmann::json::parse(SimulateJson(c, *r, info)).contains("peak_activation_bytes"));
  EXPECT_NE(SimulateText(c, *r, info).find("makespan"), std::string::npos);
}

}  // namespace
}  // namespace occam

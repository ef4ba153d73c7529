// Memory runs: the counter a definition names, the allocator conversion,
// the bundled measured-memory set, and the accuracy gate on it. Gate
// thresholds are the achieved values rounded up (they may only ratchet
// down); results: doc/validation.md "Memory per chip".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "occam/memory_error.h"
#include "occam/validate.h"
#include "validate/validate_internal.h"

namespace occam {
namespace {

using validate::CounterOf;
using validate::InCounter;
using validate::MemoryCounter;

TEST(MemoryCounter, ReadOffTheDefinition) {
  EXPECT_EQ(CounterOf("torch.cuda.memory_stats()['reserved_bytes.all.peak'] (max reserved)"),
            MemoryCounter::kMaxReserved);
  EXPECT_EQ(CounterOf("PyTorch max_memory_allocated on rank 0"), MemoryCounter::kMaxAllocated);
  EXPECT_EQ(CounterOf("memory/max_active(GiB)"), MemoryCounter::kMaxAllocated);
  EXPECT_FALSE(CounterOf("nvidia-smi memory used").has_value());
}

TEST(MemoryCounter, ReservedAddsTheAllocatorOverheadAllocatedDoesNot) {
  EXPECT_DOUBLE_EQ(InCounter(100.0, MemoryCounter::kMaxAllocated, 0.1, 1000.0), 100.0);
  EXPECT_DOUBLE_EQ(InCounter(100.0, MemoryCounter::kMaxReserved, 0.1, 1000.0), 110.0);
}

// The allocator frees its cache and retries rather than reserve beyond the
// device: the overhead stops at the capacity, and bytes in use above the
// capacity (a layout that does not fit) are never lowered to it.
TEST(MemoryCounter, ReservedStopsAtTheCapacity) {
  EXPECT_DOUBLE_EQ(InCounter(100.0, MemoryCounter::kMaxReserved, 0.1, 105.0), 105.0);
  EXPECT_DOUBLE_EQ(InCounter(120.0, MemoryCounter::kMaxReserved, 0.1, 100.0), 120.0);
}

RunValidation MemoryRun(double in_use, double measured, double capacity,
                        const char* counter = "max reserved") {
  RunValidation r;
  r.kind = MetricKind::kMemoryPerChipBytes;
  r.memory_terms = {{"weights", in_use / 4}, {"activations", 3 * in_use / 4}};
  r.memory_definition = counter;
  r.memory_capacity_bytes = capacity;
  r.measured = measured;
  r.predicted = in_use;
  return r;
}

// Runs measured 10% above their bytes in use give 0.10; a max-allocated run
// and a run whose reserved figure sits at the capacity do not pull the fit
// (the second is met by any overhead that reaches the capacity).
TEST(ReservedOverheadFit, RecoversTheOverheadOfTheRuns) {
  const RunValidation a = MemoryRun(100, 110, 200), b = MemoryRun(50, 55, 200),
                      c = MemoryRun(80, 88, 200),
                      allocated = MemoryRun(100, 300, 400, "max allocated"),
                      full = MemoryRun(95, 100, 100);
  EXPECT_NEAR(validate::FitReservedOverhead({&a, &b, &c, &allocated, &full}), 0.10, 1e-12);
  EXPECT_DOUBLE_EQ(validate::FitReservedOverhead({&allocated}), 0.0);
  EXPECT_DOUBLE_EQ(validate::FitReservedOverhead({}), 0.0);
}

// Every bundled memory run is of the memory kind, names its counter, quotes
// its source and has a distinct id; the set covers FSDP, TP, PP (both
// schedules), CP, EP, full and operator-level recompute, FP8 and MoE models.
// Counts of data/runs/memory.json (42 runs, 18 of them MoE); issue 20 asks
// for at least 30 with at least five MoE.
constexpr size_t kBundledMemoryRuns = 42;
constexpr int kBundledMoeMemoryRuns = 18;
TEST(BundledMemoryRuns, EveryRunQuotesItsSourceAndNamesItsCounter) {
  auto runs = BundledMemoryRuns();
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), kBundledMemoryRuns);
  std::set<std::string> ids;
  bool tp = false, pp_1f1b = false, pp_interleaved = false, cp = false, ep = false;
  int moe = 0;
  for (const PublishedRun& r : *runs) {
    EXPECT_TRUE(r.unreadable.empty()) << r.id << ": " << r.unreadable;
    EXPECT_EQ(r.measured.kind, MetricKind::kMemoryPerChipBytes) << r.id;
    EXPECT_TRUE(CounterOf(r.measured.definition).has_value()) << r.id;
    EXPECT_FALSE(r.measured.quote.empty()) << r.id;
    EXPECT_FALSE(r.url.empty()) << r.id;
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    tp = tp || r.parallel.tp.value_or(1) > 1;
    pp_1f1b = pp_1f1b || r.parallel.schedule.value_or("") == "1F1B";
    pp_interleaved = pp_interleaved || r.parallel.vpp.value_or(1) > 1;
    cp = cp || r.parallel.cp.value_or(1) > 1;
    ep = ep || r.parallel.ep.value_or(1) > 1;
    if (r.arch.moe.has_value()) ++moe;
  }
  EXPECT_TRUE(tp && pp_1f1b && pp_interleaved && cp && ep);
  EXPECT_EQ(moe, kBundledMoeMemoryRuns);
}

// The throughput statistics leave memory runs out, and memory runs get
// their own.
TEST(MemoryValidation, ScoredApartFromThroughput) {
  auto runs = BundledMemoryRuns();
  ASSERT_TRUE(runs.ok());
  std::vector<PublishedRun> two(runs->begin(), runs->begin() + 2);
  const ValidationReport rep = ValidateRuns(two);
  EXPECT_EQ(rep.all.runs, 0);
  ASSERT_FALSE(rep.memory.empty());
  EXPECT_EQ(rep.memory.front().group, "memory all");
  EXPECT_EQ(rep.memory.front().runs, 2);
  for (const RunValidation& v : rep.runs) {
    ASSERT_TRUE(v.predicted) << v.skipped_reason;
    double sum = 0;
    for (const auto& [name, bytes] : v.memory_terms) sum += bytes;
    // Max reserved: the sum of the breakdown plus the allocator's
    // overhead, at most the capacity.
    const double expected =
        std::max(sum, std::min(sum * (1 + kMemoryReservedOverhead), v.memory_capacity_bytes));
    EXPECT_NEAR(*v.predicted, expected, 1e-6 * sum) << v.id;
  }
}

// kMemoryReservedOverhead is the fit on the bundled runs: a run added to
// data/runs/memory.json must refit it (and doc/validation.md's figures).
TEST(MemoryValidation, ReservedOverheadIsTheFitOnTheBundledRuns) {
  auto runs = BundledMemoryRuns();
  ASSERT_TRUE(runs.ok());
  const ValidationReport rep = ValidateRuns(*runs);
  std::vector<const RunValidation*> scored;
  for (const RunValidation& v : rep.runs) scored.push_back(&v);
  EXPECT_DOUBLE_EQ(validate::FitReservedOverhead(scored), kMemoryReservedOverhead);
}

// The gate on the bundled measured-memory runs, in sample (the out-of-sample
// gate, leave one document out, is in validate_cv_test.cc): 3.2% / 16.8%
// with the fitted allocator overhead. The largest errors: issue 1789's
// DeepSeek-V3 16B (-22%) and the four TorchAO B200 runs (+16% to +19%).
constexpr double kMaxMemoryMedian = 0.033;
constexpr double kMaxMemoryP90 = 0.17;
// Runs judged not to fit though their source ran them (each listed in
// doc/validation.md): may only go down. None since the B200's capacity is
// what PyTorch reports (178.35 GiB).
constexpr size_t kMaxNotFit = 0;

TEST(MemoryValidation, GateOnTheBundledRuns) {
  auto runs = BundledMemoryRuns();
  ASSERT_TRUE(runs.ok());
  const ValidationReport rep = ValidateRuns(*runs);
  ASSERT_FALSE(rep.memory.empty());
  const ErrorStats& all = rep.memory.front();
  EXPECT_EQ(all.runs, static_cast<int64_t>(runs->size()));
  EXPECT_LE(all.median, kMaxMemoryMedian);
  EXPECT_LE(all.p90, kMaxMemoryP90);
  EXPECT_LE(rep.memory_not_fit.size(), kMaxNotFit);
  for (const std::string& id : rep.memory_not_fit)
    std::printf("judged not to fit: %s\n", id.c_str());
  std::printf("memory: %lld runs, median %.3f, p90 %.3f\n", static_cast<long long>(all.runs),
              all.median, all.p90);
}

}  // namespace
}  // namespace occam

// Memory runs (measured.kind memory_per_chip_bytes): occam's peak memory per
// chip for the run's stated layout, converted into the counter the source
// measured, against the measured bytes. Policies: doc/validation.md
// ("Memory per chip").
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "occam/step.h"
#include "validate/run_text.h"
#include "validate/validate_internal.h"

namespace occam::validate {

std::optional<MemoryCounter> CounterOf(std::string_view definition) {
  const std::string t = Lower(std::string(definition));
  // PyTorch's caching allocator counters (torch.cuda.memory_stats):
  // reserved_bytes.all.peak (max_memory_reserved) and
  // allocated_bytes.all.peak / active_bytes.all.peak (max_memory_allocated).
  if (Has(t, "reserved")) return MemoryCounter::kMaxReserved;
  if (Has(t, "allocated") || Has(t, "max active") || Has(t, "max_active")) {
    return MemoryCounter::kMaxAllocated;
  }
  return std::nullopt;
}

std::string_view CounterName(MemoryCounter c) {
  return c == MemoryCounter::kMaxReserved ? "max reserved" : "max allocated";
}

double InCounter(double in_use, MemoryCounter c, double reserved_overhead, double capacity) {
  if (c != MemoryCounter::kMaxReserved) return in_use;
  // PyTorch's caching allocator keeps freed blocks reserved for reuse; when
  // a cudaMalloc fails it releases its cached blocks and retries
  // (torch.cuda.memory_stats "num_alloc_retries"; c10/cuda/
  // CUDACachingAllocator.cpp), so the reserved peak stops at the capacity.
  return std::max(in_use, std::min(in_use * (1.0 + reserved_overhead), capacity));
}

namespace {

// A validated run's bytes in use (the sum of its breakdown) as counter c
// reads them at the given reserved overhead.
double RunInCounter(const RunValidation& r, MemoryCounter c, double reserved_overhead) {
  double in_use = 0;
  for (const auto& [name, bytes] : r.memory_terms) in_use += bytes;
  return InCounter(in_use, c, reserved_overhead, r.memory_capacity_bytes);
}

// Sets r's prediction in its counter at the given reserved overhead.
void Convert(RunValidation& r, double reserved_overhead) {
  const std::optional<MemoryCounter> counter = CounterOf(r.memory_definition);
  if (!counter || !r.predicted) return;
  r.predicted = RunInCounter(r, *counter, reserved_overhead);
  r.rel_error = (*r.predicted - r.measured) / r.measured;
}

}  // namespace

double FitReservedOverhead(const std::vector<const RunValidation*>& runs) {
  std::vector<const RunValidation*> reserved;
  for (const RunValidation* r : runs) {
    if (r->predicted && r->measured > 0 &&
        CounterOf(r->memory_definition) == MemoryCounter::kMaxReserved) {
      reserved.push_back(r);
    }
  }
  if (reserved.empty()) return 0;
  double best = 0, best_median = 0;
  for (int i = 0; i <= 60; ++i) {
    const double o = 0.005 * i;
    std::vector<double> err;
    err.reserve(reserved.size());
    for (const RunValidation* r : reserved) {
      const double p = RunInCounter(*r, MemoryCounter::kMaxReserved, o);
      err.push_back(std::fabs(p - r->measured) / r->measured);
    }
    const double median = Percentile(std::move(err), 0.5);
    if (i == 0 || median < best_median) {
      best = o;
      best_median = median;
    }
  }
  return best;
}

RunValidation ValidateMemoryOne(const PublishedRun& run, const ValidateOptions& options) {
  RunValidation out = RunHeader(run);
  out.source_document = run.url;
  if (!run.unreadable.empty()) {
    out.skipped_reason = run.unreadable;
    return out;
  }
  const std::optional<MemoryCounter> counter = CounterOf(run.measured.definition);
  if (!counter) {
    out.skipped_reason =
        "measured.definition names no counter occam converts to (PyTorch max reserved or max "
        "allocated)";
    return out;
  }
  out.memory_definition = std::string(CounterName(*counter));
  Result<PreparedRun> prep = PrepareRun(run, options, &out);
  if (!prep.ok()) {
    out.skipped_reason = prep.status().message();
    return out;
  }
  Result<Estimate> est = prep->model->Evaluate(prep->plan);
  if (!est.ok()) {
    out.skipped_reason = est.status().message();
    return out;
  }
  const MemoryBreakdown& m = est->memory;
  out.memory_terms = {{"weights", m.weights.value()},     {"grads", m.grads.value()},
                      {"optimizer", m.optimizer.value()}, {"activations", m.activations.value()},
                      {"logits", m.logits.value()},       {"other", m.other.value()}};
  out.memory_capacity_bytes = prep->setup.cluster.chip.hbm.value();
  out.memory_fits = m.total().value() <= out.memory_capacity_bytes;
  out.plan = FormatPlan(prep->plan);
  out.predicted_step_time_s = est->step_time.value();
  out.predicted = InCounter(m.total().value(), *counter, options.memory_reserved_overhead,
                            out.memory_capacity_bytes);
  out.rel_error = (*out.predicted - run.measured.value) / run.measured.value;
  return out;
}

}  // namespace occam::validate

namespace occam::validate {

void SummarizeMemory(ValidationReport* report) {
  std::vector<const RunValidation*> all;
  std::vector<std::string> families, counters;
  for (const RunValidation& r : report->runs) {
    if (r.kind != MetricKind::kMemoryPerChipBytes || !r.rel_error) continue;
    all.push_back(&r);
    if (!r.memory_fits) report->memory_not_fit.push_back(r.id);
    for (auto [list, v] : {std::pair{&families, &r.family}, {&counters, &r.memory_definition}}) {
      if (std::find(list->begin(), list->end(), *v) == list->end()) list->push_back(*v);
    }
  }
  if (all.empty()) return;
  report->memory.push_back(SummarizeErrors("memory all", all));
  auto group = [&](const std::string& name, auto pred) {
    std::vector<const RunValidation*> g;
    for (const RunValidation* r : all) {
      if (pred(*r)) g.push_back(r);
    }
    if (!g.empty()) report->memory.push_back(SummarizeErrors(name, g));
  };
  for (const std::string& f : families) {
    group("memory chip " + f, [&](const RunValidation& r) { return r.family == f; });
  }
  group("memory dense", [](const RunValidation& r) { return !r.is_moe; });
  group("memory moe", [](const RunValidation& r) { return r.is_moe; });
  for (const std::string& c : counters) {
    group("memory " + c, [&](const RunValidation& r) { return r.memory_definition == c; });
  }
}

}  // namespace occam::validate

namespace occam::validate {

void CrossValidateMemory(const std::vector<PublishedRun>& runs, const ValidateOptions& options,
                         std::vector<RunValidation>* oof) {
  // One term is fitted, the allocator's reserved overhead: each document's
  // runs are converted with the value fitted on the other documents' runs.
  // The bytes in use do not depend on it, so every run is evaluated once.
  std::vector<size_t> memory;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!IsMemoryRun(runs[i])) continue;
    (*oof)[i] = ValidateMemoryOne(runs[i], options);
    memory.push_back(i);
  }
  for (size_t i : memory) {
    std::vector<const RunValidation*> train;
    for (size_t j : memory) {
      if (runs[j].url != runs[i].url) train.push_back(&(*oof)[j]);
    }
    const double overhead = FitReservedOverhead(train);
    // The fold's value only: the runs of the training documents keep theirs.
    Convert((*oof)[i], overhead);
  }
}

}  // namespace occam::validate

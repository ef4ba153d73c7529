// The planner's engine; see search_core.h and doc/search.md.
#include "search/search_core.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "search/bounds.h"
#include "search/enumerate.h"
#include "search/ranking.h"
#include "search/verdict.h"

namespace occam::search {
namespace {

// Everything one chunk of shapes needs, shared read-only by all threads.
struct Context {
  const ModelSpec& model;
  const ClusterSpec& cluster;
  const JobSpec& job;
  const SearchOptions& options;
  const Constraints& constraints;
  const LayoutEvaluator& evaluator;
  const Bounds& bounds;
  const Tuning& tuning;
};

struct ChunkResult {
  Ranking ranking;
  Tally tally;
};

constexpr double kInf = std::numeric_limits<double>::infinity();

// The lower bounds of one (micro-batch size, recompute) pair of a shape:
// step time (the larger of Bounds' FLOP bound and the evaluator's own) and
// the evaluator's memory bound per ZeRO stage.
struct PairBound {
  int64_t mbs = 0;
  Recompute recompute = Recompute::kNone;
  unsigned modules = 0;
  double seconds = 0;
  std::array<double, 4> memory{};
};

// The evaluator's link bound of one (micro-batch size, rank order, torus
// mapping, sharding, pairing) variant of a shape: ZeRO stages 0 and 1,
// recompute and the all-to-all overlap methods that pair no passes share it.
struct LinkBound {
  int64_t mbs = 0;
  std::vector<Axis> order;
  TorusMapping mesh = TorusMapping::kLinear;
  int64_t sharding = 0;  // ShardingKey
  bool paired = false;   // PairsPasses
  double seconds = 0;
};

// 0 for ZeRO-0/1, -2 for ZeRO-2; ZeRO-3: its HSDP group, -1 without one.
int64_t ShardingKey(const PlanSpec& p) {
  if (p.zero < 2) return 0;
  if (p.zero == 2) return -2;
  return p.hsdp > 0 ? p.hsdp : -1;
}

// What the search knows of a shape before evaluating any of its layouts.
// `pairs` holds only the pairs without recompute until the shape is entered
// (AddPairs; most shapes are skipped on `bound` alone), `links` only those
// a candidate has needed (LinkOf).
struct ShapeInfo {
  int64_t candidates = 0;
  double bound = kInf;  // Prepare's: the least pair bound without recompute
  std::vector<PairBound> pairs;
  std::vector<LinkBound> links;

  const PairBound* Find(const PlanSpec& p) const {
    for (const PairBound& b : pairs) {
      if (b.mbs == p.mbs && b.recompute == p.recompute && b.modules == p.recompute_modules) {
        return &b;
      }
    }
    return nullptr;
  }
  const LinkBound* FindLink(const PlanSpec& p, int64_t sharding, bool paired) const {
    for (const LinkBound& b : links) {
      if (b.mbs == p.mbs && b.mesh == p.mesh && b.sharding == sharding && b.paired == paired &&
          b.order == p.order) {
        return &b;
      }
    }
    return nullptr;
  }
  double PairSeconds(const PlanSpec& p) const {
    const PairBound* b = Find(p);
    return b != nullptr ? b->seconds : 0.0;
  }
};

// Memory lower bound of `plan`: the larger of Bounds' and the evaluator's.
Bytes MemoryBound(const Context& ctx, const ShapeInfo& info, const PlanSpec& plan) {
  const PairBound* b = info.Find(plan);
  const double own = b != nullptr && plan.zero >= 0 && plan.zero < 4
                         ? b->memory[static_cast<size_t>(plan.zero)]
                         : 0.0;
  return Max(ctx.bounds.MemoryLowerBound(plan), Bytes(own));
}

// The pair bound of `plan`'s (shape, mbs, recompute): the larger of Bounds'
// FLOP bound and the evaluator's own, with its memory bound per ZeRO stage.
PairBound PairOf(const Context& ctx, const PlanSpec& plan) {
  const LayoutEvaluator::PlanBounds b = ctx.evaluator.LowerBounds(plan);
  return PairBound{plan.mbs, plan.recompute, plan.recompute_modules,
                   std::max(ctx.bounds.StepTimeLowerBound(plan).value(), b.step_seconds),
                   b.memory_bytes};
}

// What the search knows of a shape before entering it: its candidate count
// and, once the count has passed the cap, `bound`, the least pair bound
// without recompute over its micro-batch sizes. Recompute only adds
// compute, so this is below the step bound of every variant of the shape
// (the memory bound is left to AddBounds); it costs one pair per
// micro-batch size instead of one per (micro-batch size, recompute).
ShapeInfo Prepare(const Context& ctx, const Shape& shape, int64_t candidates) {
  ShapeInfo info;
  info.candidates = candidates;
  if (!ctx.tuning.prune) return info;
  std::vector<Inner> inners;
  EnumerateInner(ctx.model, shape, ctx.cluster, ctx.job, ctx.constraints, inners);
  PlanSpec plan;
  for (const Inner& inner : inners) {
    ApplyCandidate(shape, inner, ctx.constraints, plan);
    plan.recompute = Recompute::kNone;
    plan.recompute_modules = 0;
    if (info.Find(plan) != nullptr) continue;
    info.pairs.push_back(PairOf(ctx, plan));
    info.bound = std::min(info.bound, info.pairs.back().seconds);
  }
  return info;
}

// Adds to `info` the pair bounds of the shape's `inners` and returns the
// least pair bound of the inners that pass the memory bound (>= Prepare's).
double AddPairs(const Context& ctx, const Shape& shape, const std::vector<Inner>& inners,
                PlanSpec& plan, ShapeInfo& info) {
  double bound = kInf;
  for (const Inner& inner : inners) {
    ApplyCandidate(shape, inner, ctx.constraints, plan);
    if (info.Find(plan) == nullptr) info.pairs.push_back(PairOf(ctx, plan));
    if (MemoryBound(ctx, info, plan) > ctx.bounds.capacity()) continue;
    bound = std::min(bound, info.PairSeconds(plan));
  }
  return bound;
}

// The link bound of `plan` for `sharding` (ShardingKey: ZeRO-0/1's is
// shared by every stage and is at most the others'), computed on first use.
// `scratch` holds the plan at ZeRO-1 for the shared one.
double LinkOf(const Context& ctx, const PlanSpec& plan, int64_t sharding, PlanSpec& scratch,
              ShapeInfo& info) {
  const bool paired = PairsPasses(plan);
  if (const LinkBound* l = info.FindLink(plan, sharding, paired)) return l->seconds;
  const PlanSpec* asked = &plan;
  if (sharding == 0 && plan.zero >= 2) {
    scratch = plan;
    scratch.zero = 1;
    asked = &scratch;
  }
  const double seconds = ctx.evaluator.LinkSeconds(*asked);
  info.links.push_back(LinkBound{plan.mbs, plan.order, plan.mesh, sharding, paired, seconds});
  return seconds;
}

// Whether `plan`'s step bound is above `above`: its pair bound, then the
// link bound shared by every ZeRO stage, then its stage's own. The link
// bounds of a candidate the pair bound prunes are never computed.
bool StepBoundAbove(const Context& ctx, const PlanSpec& plan, double above, PlanSpec& scratch,
                    ShapeInfo& info) {
  if (info.PairSeconds(plan) > above) return true;
  if (LinkOf(ctx, plan, 0, scratch, info) > above) return true;
  const int64_t own = ShardingKey(plan);
  return own != 0 && LinkOf(ctx, plan, own, scratch, info) > above;
}

// Evaluates one candidate already written into `plan`. `prune_above` is
// the search-wide pruning threshold of the plan's PP category.
void VisitCandidate(const Context& ctx, ShapeInfo& info, const PlanSpec& plan, double prune_above,
                    PlanSpec& scratch, ChunkResult& out) {
  Tally& t = out.tally;
  const int cat = PpCategory(plan);
  ++t.candidates;
  if (ctx.tuning.prune) {
    const Bytes mem = MemoryBound(ctx, info, plan);
    if (mem > ctx.bounds.capacity()) {
      ++t.pruned_memory;
      t.min_memory[cat] = std::min(t.min_memory[cat], mem.value());
      return;
    }
    if (StepBoundAbove(ctx, plan, std::min(prune_above, out.ranking.PruneAbove(cat)), scratch,
                       info)) {
      ++t.pruned_bound;
      return;
    }
  }
  const Status valid = ctx.evaluator.Validate(plan);
  if (!valid.ok()) {
    ++t.invalid;
    if (t.first_invalid.empty()) t.first_invalid = FormatPlan(plan) + ": " + valid.message();
    return;
  }
  QuickEstimate q = ctx.evaluator.Quick(plan);
  ++t.evaluated;
  // The closed form's in-flight memory (the mean chunk) can exceed what the
  // simulated schedule holds on uneven chunks: between its floor and it, the
  // simulated pipeline decides the fit of a layout that can still change
  // the answer, so none that Refine would keep is dropped here.
  if (!q.fits && q.memory_floor <= ctx.bounds.capacity() &&
      q.step_time.value() <= std::min(prune_above, out.ranking.PruneAbove(cat))) {
    q.fits = ctx.evaluator.SimulatedFits(plan);
  }
  if (!q.fits) {
    t.min_memory[cat] = std::min(t.min_memory[cat], q.memory_total.value());
    return;
  }
  ++t.feasible;
  out.ranking.Offer(Entry{plan, q, LayoutComplexity(plan, ctx.cluster)});
}

// Shapes order[begin, end). A shape whose bound already exceeds the
// threshold is skipped whole: none of its layouts can change the answer.
// Prepare's bound is checked first, then its pair bounds with the memory
// bound; link bounds are taken per candidate (StepBoundAbove).
void RunChunk(const Context& ctx, const std::vector<Shape>& shapes,
              const std::vector<ShapeInfo>& infos, const std::vector<int64_t>& order, int64_t begin,
              int64_t end, const std::array<double, 2>& prune_above, ChunkResult& out) {
  std::vector<Inner> inners;
  PlanSpec plan, scratch;
  plan.order.reserve(5);
  ShapeInfo info;
  for (int64_t i = begin; i < end; ++i) {
    const auto s = static_cast<size_t>(order[static_cast<size_t>(i)]);
    const Shape& shape = shapes[s];
    const int cat = shape.pp > 1 ? 1 : 0;
    const double above = std::min(prune_above[cat], out.ranking.PruneAbove(cat));
    const auto skip = [&] {
      out.tally.candidates += infos[s].candidates;
      out.tally.pruned_bound += infos[s].candidates;
    };
    if (ctx.tuning.prune && infos[s].bound > above) {
      skip();
      continue;
    }
    EnumerateInner(ctx.model, shape, ctx.cluster, ctx.job, ctx.constraints, inners);
    info = infos[s];
    if (ctx.tuning.prune && AddPairs(ctx, shape, inners, plan, info) > above) {
      skip();
      continue;
    }
    for (const Inner& inner : inners) {
      ApplyCandidate(shape, inner, ctx.constraints, plan);
      VisitCandidate(ctx, info, plan, prune_above[cat], scratch, out);
    }
  }
}

Status TooLarge(int64_t n, int64_t cap) {
  return InvalidInput("the search would cover " + std::to_string(n) +
                      " candidate layouts, more than the cap of " + std::to_string(cap) +
                      "; narrow it with --fix (e.g. --fix \"tp=8,mbs=1\"), --max-tp or --no-pp");
}

Status NoCandidates(const Context& ctx) {
  std::string fix = ctx.options.fix.empty() ? "" : ", --fix \"" + ctx.options.fix + "\"";
  return Infeasible(
      "no layout of " + std::to_string(ctx.cluster.num_chips) + " chips divides the model (" +
      std::to_string(ctx.model.attention.num_heads) + " heads, " +
      std::to_string(ctx.model.num_layers) + " layers) and the global batch of " +
      std::to_string(ctx.job.global_batch_seqs) + " sequences under the constraints" + fix +
      (ctx.options.max_tp > 0 ? ", --max-tp " + std::to_string(ctx.options.max_tp) : "") +
      "; hint: use a chip count and global batch with more factors of two, or relax the "
      "constraints");
}

Status NothingFits(const Context& ctx, const Tally& t) {
  if (t.evaluated == 0 && t.pruned_memory == 0) {
    return Infeasible("no candidate layout passes plan validation; first rejection: " +
                      t.first_invalid);
  }
  const double need = std::min(t.min_memory[0], t.min_memory[1]);
  return Infeasible("no layout fits in memory: the smallest needs at least " +
                    std::to_string(static_cast<int64_t>(need / 1e9)) + " GB per chip, " +
                    std::to_string(static_cast<int64_t>(ctx.bounds.capacity().value() / 1e9)) +
                    " GB usable; hint: more chips, a smaller --headroom, a shorter --seq-len or "
                    "fewer --fix constraints");
}

Result<LayoutResult> Describe(const Context& ctx, const Entry& e, Estimate* keep = nullptr) {
  auto est = ctx.evaluator.Full(e.plan);
  if (!est.ok()) {
    return Internal("layout " + FormatPlan(e.plan) +
                    " passed validation but its full estimate failed: " + est.status().message());
  }
  if (!est->fits) {
    return Internal("layout " + FormatPlan(e.plan) +
                    " fits by the quick estimate but not by the full one");
  }
  LayoutResult r{e.plan,       est->step_time, est->mfu, est->memory.total(),
                 e.complexity, est->bottleneck};
  if (keep != nullptr) *keep = *std::move(est);
  return r;
}

std::string ExcludedBy(const Constraints& c, bool pipeline) {
  if (pipeline) {
    if (c.no_pp) return "--no-pp";
    if (c.pp && *c.pp == 1) return "--fix pp=1";
    if (c.schedule && *c.schedule == Schedule::kNone) return "--fix schedule=none";
    return "";
  }
  if (c.pp && *c.pp > 1) return "--fix pp=" + std::to_string(*c.pp);
  if (c.schedule && *c.schedule != Schedule::kNone) {
    return "--fix schedule=" + std::string(ScheduleName(*c.schedule));
  }
  return "";
}

// Layouts the ranking pass keeps for the second pass: at least this many
// besides each PP category's fastest few and the simplest. Wide enough for
// the closed forms' error between schedules (16 missed DeepSeek-V3 on 256
// H800 by 1.05%: exhaustive_test.cc, doc/cost-model.md §6 "Planner policy").
constexpr int64_t kRefineAtLeast = 64;

// Second pass (doc/cost-model.md §6 "Planner policy"): the ranking pass
// used Quick (the pipeline's closed forms); every kept layout (the top
// list, each PP category's fastest few and the fastest of each schedule
// near them, the simplest) is evaluated again
// with Full (the simulated pipeline), ranked again, and dropped if it no
// longer fits: a category whose best no longer fits falls back on its next.
Result<Ranking> Refine(const Context& ctx, const Ranking& r) {
  std::vector<Entry> kept(r.top().begin(), r.top().end());
  for (int cat = 0; cat < 2; ++cat) {
    kept.insert(kept.end(), r.category(cat).begin(), r.category(cat).end());
    const std::vector<Entry> schedules = r.ScheduleBests(cat);
    kept.insert(kept.end(), schedules.begin(), schedules.end());
  }
  if (const std::optional<Entry> simplest = r.Simplest()) kept.push_back(*simplest);
  Ranking out(ctx.options.top, ctx.options.simplicity_threshold);
  std::vector<std::string> seen;
  for (const Entry& e : kept) {
    std::string name = FormatPlan(e.plan);
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(std::move(name));
    const Result<Estimate> est = ctx.evaluator.Full(e.plan);
    if (!est.ok()) {
      return Internal("layout " + FormatPlan(e.plan) +
                      " passed validation but its full estimate failed: " + est.status().message());
    }
    if (!est->fits) continue;
    const Bytes memory = est->memory.total();
    out.Offer(
        Entry{e.plan, QuickEstimate{est->step_time, est->mfu, memory, true, memory}, e.complexity});
  }
  return out;
}

Result<SearchResult> Assemble(const Context& ctx, const Ranking& ranked, const Tally& t) {
  OCCAM_ASSIGN_OR_RETURN(const Ranking r, Refine(ctx, ranked));
  SearchResult out;
  out.layouts_candidates = t.candidates;
  out.layouts_pruned_memory = t.pruned_memory;
  out.layouts_pruned_bound = t.pruned_bound;
  out.layouts_invalid = t.invalid;
  out.layouts_evaluated = t.evaluated;
  out.layouts_feasible = t.feasible;
  if (r.top().empty()) return NothingFits(ctx, t);
  for (const Entry& e : r.top()) {
    OCCAM_ASSIGN_OR_RETURN(LayoutResult lr, Describe(ctx, e));
    out.top.push_back(std::move(lr));
  }
  out.best = out.top.front();
  OCCAM_ASSIGN_OR_RETURN(out.simplest, Describe(ctx, *r.Simplest()));
  Estimate est[2];
  for (int cat = 0; cat < 2; ++cat) {
    if (!r.best(cat)) continue;
    OCCAM_ASSIGN_OR_RETURN(LayoutResult lr, Describe(ctx, *r.best(cat), &est[cat]));
    (cat == 0 ? out.best_without_pp : out.best_with_pp) = std::move(lr);
  }
  VerdictInput in;
  in.without_pp = out.best_without_pp ? &est[0] : nullptr;
  in.with_pp = out.best_with_pp ? &est[1] : nullptr;
  in.threshold = ctx.options.pp_threshold;
  in.without_pp_excluded_by = ExcludedBy(ctx.constraints, false);
  in.with_pp_excluded_by = ExcludedBy(ctx.constraints, true);
  in.min_memory_without_pp = Bytes(t.min_memory[0]);
  in.capacity = ctx.bounds.capacity();
  const Verdict v = PipelineVerdict(in);
  out.pp_needed = v.pp_needed;
  out.pp_verdict = v.sentence;
  out.pp_margin = v.margin;
  out.pp_error_band = ctx.options.pp_threshold;
  if (ctx.job.balance == BalanceMethod::kGlobalAuxLoss) {
    out.notes.push_back(
        "balance global-aux-loss: pipeline schedules restricted to gpipe (all forward passes "
        "before the first backward pass, the global-batch loss needs every micro-batch's routing)");
  }
  out.notes.push_back(
      "pipeline: layouts ranked with the schedules' closed-form bubble and in-flight counts; the "
      "kept ones (top " +
      std::to_string(std::max(ctx.options.top, kRefineAtLeast)) + ", the fastest " +
      std::to_string(Ranking::kCategoryKeep) + " with and " +
      std::to_string(Ranking::kCategoryKeep) +
      " without PP, simplest) re-evaluated and re-ranked with the "
      "simulated pipeline, whose values are shown; a layout that no longer fits is dropped");

  return out;
}

}  // namespace

Result<SearchResult> RunSearch(const ModelSpec& model, const ClusterSpec& cluster,
                               const JobSpec& job, const SearchOptions& options,
                               const LayoutEvaluator& evaluator, const Tuning& tuning) {
  if (options.simplicity_threshold < 0 || options.pp_threshold < 0) {
    return InvalidInput("--simplest-within and --pp-threshold must be >= 0 (e.g. 0.03)");
  }
  if (options.top < 1) return InvalidInput("--top must be >= 1");
  OCCAM_ASSIGN_OR_RETURN(Constraints constraints, ParseConstraints(options));
  const Bounds bounds(model, cluster, job);
  const Context ctx{model, cluster, job, options, constraints, evaluator, bounds, tuning};
  const std::vector<Shape> shapes = EnumerateShapes(model, cluster, job, constraints);
  // 0 = one thread per hardware thread; the answer never depends on it.
  ThreadPool pool(options.threads);
  const auto n_shapes = static_cast<int64_t>(shapes.size());
  std::vector<int64_t> counts(shapes.size());
  pool.ParallelFor(n_shapes, [&](int64_t i) {
    std::vector<Inner> inners;
    EnumerateInner(model, shapes[static_cast<size_t>(i)], cluster, job, constraints, inners);
    counts[static_cast<size_t>(i)] = static_cast<int64_t>(inners.size());
  });
  int64_t candidates = 0;
  for (int64_t n : counts) candidates += n;
  if (candidates == 0) return NoCandidates(ctx);
  if (candidates > tuning.max_candidates) return TooLarge(candidates, tuning.max_candidates);
  std::vector<ShapeInfo> infos(shapes.size());
  pool.ParallelFor(n_shapes, [&](int64_t i) {
    const auto s = static_cast<size_t>(i);
    infos[s] = Prepare(ctx, shapes[s], counts[s]);
  });

  // Most promising shapes first (least bound; ties by enumeration order), so
  // a good layout is known early and the bound skips most of the rest.
  std::vector<int64_t> order(shapes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return infos[static_cast<size_t>(a)].bound < infos[static_cast<size_t>(b)].bound;
  });
  // Chunks run in waves of 1, 2, 4, ... chunks. Within a wave every chunk
  // prunes against the ranking merged from all earlier waves (and its own):
  // fixed wave and chunk boundaries keep the answer and every count
  // independent of the thread count.
  const int64_t per = std::max<int64_t>(1, tuning.shapes_per_chunk);
  const int64_t chunks = (static_cast<int64_t>(shapes.size()) + per - 1) / per;
  const int64_t keep = std::max(options.top, kRefineAtLeast);
  Ranking merged(keep, options.simplicity_threshold);
  Tally tally;
  for (int64_t first = 0, wave = 1; first < chunks; first += wave, wave *= 2) {
    const int64_t n = std::min(wave, chunks - first);
    const std::array<double, 2> above = {merged.PruneAbove(0), merged.PruneAbove(1)};
    std::vector<ChunkResult> results(
        static_cast<size_t>(n), ChunkResult{Ranking(keep, options.simplicity_threshold), Tally{}});
    pool.ParallelFor(n, [&](int64_t i) {
      const int64_t begin = (first + i) * per;
      const int64_t end = std::min<int64_t>(static_cast<int64_t>(shapes.size()), begin + per);
      RunChunk(ctx, shapes, infos, order, begin, end, above, results[static_cast<size_t>(i)]);
    });
    for (const ChunkResult& c : results) {
      merged.Merge(c.ranking);
      tally.Merge(c.tally);
    }
  }
  return Assemble(ctx, merged, tally);
}

}  // namespace occam::search

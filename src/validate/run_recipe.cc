// Framework recipes (run_recipe.h). What each setting does physically is
// modelled where it happens (doc/cost-model.md §6): the recompute modules in
// the layer cost, the combined 1F1B EP overlap in the pipeline, the
// dispatcher's host sync in AddHostBound. This file only fills them.
#include "validate/run_recipe.h"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "spec/doc.h"
#include "spec/embedded.h"

namespace occam::validate {
namespace {

constexpr std::string_view kRecipeDir = "data/recipes/";

bool IsMegatronCoreRow(const RecipeRow& row) {
  return row.framework == "megatron-lm" || row.framework == "nemo" ||
         row.framework == "megatron-bridge";
}

// The recipe's recompute as one policy for the whole block, if it is one: a
// Megatron-Core / NeMo recompute_granularity (none, selective, full) on a
// Megatron-family row; none, full or a JAX dot-saving policy on a MaxText row.
std::optional<Recompute> BlockPolicy(const RecipeRow& row) {
  const std::optional<Recompute> r = ParseRecomputeName(row.recompute);
  if (!r) return std::nullopt;
  if (*r == Recompute::kNone || *r == Recompute::kFull) return r;
  if (IsMegatronCoreRow(row)) {
    return *r == Recompute::kSelective ? r : std::nullopt;
  }
  return SavesDots(*r) ? r : std::nullopt;
}

// One row through spec's document reader: every key required, no other key
// (a MaxText row has no Megatron-Core keys).
Result<RecipeRow> ParseRow(const spec::Node& row) {
  RecipeRow r;
  OCCAM_ASSIGN_OR_RETURN(r.framework, row.String("framework"));
  const bool megatron = IsMegatronCoreRow(r);
  if (!megatron && r.framework != "maxtext") {
    return row.Error("framework",
                     "must be megatron-lm, nemo, megatron-bridge or maxtext; see "
                     "doc/validation.md (Framework recipes)");
  }
  OCCAM_RETURN_IF_ERROR(
      megatron ? row.CheckKeys({"framework", "date", "model", "chip_key", "precision", "recompute",
                                "recipe", "pinned", "note", "dispatcher", "cuda_graph",
                                "a2a_overlap", "grad_reduce_in_fp32", "cross_entropy_loss_fusion"})
               : row.CheckKeys({"framework", "date", "model", "chip_key", "precision", "recompute",
                                "recipe", "pinned", "note"}));
  OCCAM_ASSIGN_OR_RETURN(r.date, row.String("date"));
  OCCAM_ASSIGN_OR_RETURN(r.model, row.String("model"));
  OCCAM_ASSIGN_OR_RETURN(r.chip_key, row.String("chip_key"));
  OCCAM_ASSIGN_OR_RETURN(r.precision, row.String("precision"));
  OCCAM_ASSIGN_OR_RETURN(r.recompute, row.String("recompute"));
  OCCAM_ASSIGN_OR_RETURN(r.recipe, row.String("recipe"));
  OCCAM_ASSIGN_OR_RETURN(r.pinned, row.Bool("pinned"));
  OCCAM_ASSIGN_OR_RETURN(r.note, row.String("note"));
  if (megatron) {
    OCCAM_ASSIGN_OR_RETURN(r.dispatcher, row.String("dispatcher"));
    OCCAM_ASSIGN_OR_RETURN(r.cuda_graph, row.String("cuda_graph"));
    OCCAM_ASSIGN_OR_RETURN(r.a2a_overlap, row.Bool("a2a_overlap"));
    OCCAM_ASSIGN_OR_RETURN(r.grad_reduce_in_fp32, row.Bool("grad_reduce_in_fp32"));
    OCCAM_ASSIGN_OR_RETURN(r.cross_entropy_loss_fusion, row.Bool("cross_entropy_loss_fusion"));
  }
  if (BlockPolicy(r)) return r;
  if (megatron && ParseRecomputeModules(r.recompute)) return r;
  return row.Error("recompute", megatron
                                    ? "must be none, selective, full or a '+'-joined list of " +
                                          RecomputeModuleNames() +
                                          "; see doc/validation.md (Framework recipes)"
                                    : std::string("must be none, full, dots, dots_except_mlpwi or "
                                                  "dots_except_mlp (MaxText's remat policies); see "
                                                  "doc/validation.md (Framework recipes)"));
}

std::string Citation(const RecipeRow& row) {
  return (row.pinned ? "the framework's recipe, " : "the framework's closest documented recipe, ") +
         row.recipe + "; " + row.note;
}

}  // namespace

Result<std::vector<RecipeRow>> ParseRecipes(std::string_view text, std::string_view origin) {
  OCCAM_ASSIGN_OR_RETURN(const nlohmann::json root, spec::ParseDocument(text, origin));
  if (!spec::IsJsonText(text) || !root.is_array()) {
    return InvalidInput(std::string(origin) +
                        ": not a JSON array of recipe rows; see doc/validation.md (Framework "
                        "recipes)");
  }
  const spec::Node top(root, std::string(origin), "");
  std::vector<RecipeRow> rows;
  for (size_t i = 0; i < root.size(); ++i) {
    OCCAM_ASSIGN_OR_RETURN(RecipeRow r, ParseRow(top.Element(root[i], "", i)));
    rows.push_back(std::move(r));
  }
  return rows;
}

Result<std::vector<RecipeRow>> BundledRecipes() {
  std::vector<RecipeRow> all;
  for (const EmbeddedFile& f : EmbeddedFiles()) {
    if (f.path.substr(0, kRecipeDir.size()) != kRecipeDir) continue;
    OCCAM_ASSIGN_OR_RETURN(std::vector<RecipeRow> rows, ParseRecipes(f.content, f.path));
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

std::optional<RecipeRow> RecipeFor(const std::vector<RecipeRow>& rows, const PublishedRun& run) {
  if (!run.framework || !run.date) return std::nullopt;
  for (const RecipeRow& r : rows) {
    if (r.framework == *run.framework && r.date == *run.date && r.model == run.model &&
        r.chip_key == run.chip_key && run.precision && r.precision == *run.precision) {
      return r;
    }
  }
  return std::nullopt;
}

// Megatron-Core's dropless dispatchers wait on the host for the received
// token counts: the alltoall dispatcher copies tokens_per_expert to the host
// for the all-to-all split sizes, HybridEP's dispatch blocks unless given an
// output bound (num_permuted_tokens, "None means no up-bound, will cause a
// CPU sync"; set only with drop-and-pad), DeepEP's normal dispatch busy-waits
// on the host for the received count (NVIDIA/Megatron-LM
// megatron/core/transformer/moe/token_dispatcher.py; deepseek-ai/DeepEP
// csrc/deep_ep.cpp). Transformer Engine's partial CUDA graphs (scopes attn,
// moe_router, moe_preprocess) end before the dispatch, so the sync remains;
// no source gives the share of the host's issue time they remove, so the host
// time is kept whole. A full-iteration CUDA graph replays the step with
// static shapes and no host round trip: no sync.
Status ApplyRecipe(const RecipeRow& row, RunSetup* s) {
  const std::string why = " (" + Citation(row) + ")";
  if (s->open.recompute) {
    if (const std::optional<Recompute> whole = BlockPolicy(row)) {
      s->plan.recompute = *whole;
      s->plan.recompute_modules = 0;
    } else {
      s->plan.recompute = Recompute::kModules;
      s->plan.recompute_modules = *ParseRecomputeModules(row.recompute);
    }
    s->order.recompute = {s->plan.recompute};
    // A closest recipe was written for another micro-batch or layout than
    // the row's: its policy comes first, and where the row's layout does
    // not fit with it, the framework's heavier policies follow (the rule
    // for any unstated knob, doc/validation.md "Unstated fields").
    if (!row.pinned) {
      for (Recompute r : HeavierRecompute(s->plan.recompute)) s->order.recompute.push_back(r);
    }
    s->open.recompute = false;
    Fill(&s->filled, "parallel.recompute", row.recompute + why);
  }
  if (!IsMegatronCoreRow(row)) return Status::Ok();
  if (!row.grad_reduce_in_fp32) {
    s->job.bf16_gradients = true;
    Fill(&s->filled, "job.gradients",
         "bf16 (grad_reduce_in_fp32 false: the main gradients kept and reduced in the 16-bit "
         "parameter dtype)" +
             why);
  }
  s->job.cross_entropy =
      row.cross_entropy_loss_fusion ? CrossEntropyImpl::kFused : CrossEntropyImpl::kVocabParallel;
  if (!row.cross_entropy_loss_fusion) {
    Fill(&s->filled, "job.cross_entropy",
         "vocab_parallel (cross_entropy_loss_fusion not set: Megatron-Core's default, "
         "VocabParallelCrossEntropy op by op)" +
             why);
  }
  if (row.a2a_overlap && s->model.moe) {
    s->plan.a2a_overlap = EpOverlap::kCombined1F1B;
    Fill(&s->filled, "plan.a2a_overlap",
         "1 (moe_a2a_overlap: Megatron-Core's combined 1F1B)" + why);
  }
  if (!s->model.moe) return Status::Ok();
  if (row.cuda_graph == "full_iteration") {
    s->job.moe_host_sync = false;
    Fill(&s->filled, "job.moe_host_sync",
         "false (full-iteration CUDA graph: no host round trip in the step)" + why);
  } else {
    Fill(&s->filled, "job.moe_host_sync",
         "true (dispatcher " + row.dispatcher + ", CUDA graph " + row.cuda_graph +
             ": the dropless dispatch still waits on the host for the token counts)" + why);
  }
  return Status::Ok();
}

}  // namespace occam::validate

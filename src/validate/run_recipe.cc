// Framework recipes (run_recipe.h). What each setting does physically is
// modelled where it happens (doc/cost-model.md §6): the recompute modules in
// the layer cost, the combined 1F1B EP overlap in the pipeline, the
// dispatcher's host sync in AddHostBound. This file only fills them.
#include "validate/run_recipe.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "spec/embedded.h"

namespace occam::validate {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kRecipeDir = "data/recipes/";

Status RowError(std::string_view origin, size_t i, const std::string& key,
                const std::string& what) {
  return InvalidInput(std::string(origin) + ": [" + std::to_string(i) + "]." + key + " " + what +
                      "; see doc/validation.md (Framework recipes)");
}

Status ReadString(const Json& row, std::string_view origin, size_t i, const std::string& key,
                  std::string* out) {
  if (!row.contains(key) || !row[key].is_string()) {
    return RowError(origin, i, key, "must be a string");
  }
  *out = row[key].get<std::string>();
  return Status::Ok();
}

Status ReadBool(const Json& row, std::string_view origin, size_t i, const std::string& key,
                bool* out) {
  if (!row.contains(key) || !row[key].is_boolean()) {
    return RowError(origin, i, key, "must be true or false");
  }
  *out = row[key].get<bool>();
  return Status::Ok();
}

Result<RecipeRow> ParseRow(const Json& row, std::string_view origin, size_t i) {
  static const std::set<std::string> kKeys = {
      "framework",  "date",        "model",     "chip_key", "precision", "dispatcher",
      "cuda_graph", "a2a_overlap", "recompute", "recipe",   "pinned",    "note"};
  if (!row.is_object()) return RowError(origin, i, "", "must be an object");
  for (const auto& [key, value] : row.items()) {
    if (kKeys.count(key) == 0) return RowError(origin, i, key, "is not a recipe key");
  }
  RecipeRow r;
  OCCAM_RETURN_IF_ERROR(ReadString(row, origin, i, "framework", &r.framework));
  OCCAM_RETURN_IF_ERROR(ReadString(row, origin, i, "date", &r.date));
  OCCAM_RETURN_IF_ERROR(ReadString(row, origin, i, "model", &r.model));
  OCCAM_RETURN_IF_ERROR(ReadString(row, origin, i, "chip_key", &r.chip_key));
  OCCAM_RETURN_IF_ERROR(ReadString(row, origin, i, "precision", &r.precision));
  OCCAM_RETURN_IF_ERROR(ReadString(row, origin, i, "dispatcher", &r.dispatcher));
  OCCAM_RETURN_IF_ERROR(ReadString(row, origin, i, "cuda_graph", &r.cuda_graph));
  OCCAM_RETURN_IF_ERROR(ReadBool(row, origin, i, "a2a_overlap", &r.a2a_overlap));
  OCCAM_RETURN_IF_ERROR(ReadString(row, origin, i, "recompute", &r.recompute));
  OCCAM_RETURN_IF_ERROR(ReadString(row, origin, i, "recipe", &r.recipe));
  OCCAM_RETURN_IF_ERROR(ReadBool(row, origin, i, "pinned", &r.pinned));
  OCCAM_RETURN_IF_ERROR(ReadString(row, origin, i, "note", &r.note));
  if (r.recompute != "none" && !ParseRecomputeModules(r.recompute)) {
    return RowError(origin, i, "recompute",
                    "must be none or a '+'-joined list of " + RecomputeModuleNames());
  }
  return r;
}

std::string Citation(const RecipeRow& row) {
  return (row.pinned ? "the framework's recipe, " : "the framework's closest documented recipe, ") +
         row.recipe + "; " + row.note;
}

}  // namespace

Result<std::vector<RecipeRow>> ParseRecipes(std::string_view text, std::string_view origin) {
  const Json root = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_array()) {
    return InvalidInput(std::string(origin) +
                        ": not a JSON array of recipe rows; see doc/validation.md (Framework "
                        "recipes)");
  }
  std::vector<RecipeRow> rows;
  for (size_t i = 0; i < root.size(); ++i) {
    OCCAM_ASSIGN_OR_RETURN(RecipeRow r, ParseRow(root[i], origin, i));
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
    if (row.recompute == "none") {
      s->plan.recompute = Recompute::kNone;
      s->plan.recompute_modules = 0;
    } else {
      s->plan.recompute = Recompute::kModules;
      s->plan.recompute_modules = *ParseRecomputeModules(row.recompute);
    }
    s->order.recompute = {s->plan.recompute};
    s->open.recompute = false;
    Fill(&s->filled, "parallel.recompute", row.recompute + why);
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

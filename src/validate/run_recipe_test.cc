// Framework recipes (run_recipe.cc): the bundled table parses, keys every
// Megatron-Bridge performance run, and fills only what a run leaves unstated.
#include "validate/run_recipe.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "occam/validate.h"
#include "validate/run_test_util.h"

namespace occam::validate {
namespace {

using testing::BundledRun;
using testing::HasFilled;

std::string Row(const std::string& recompute, const std::string& cuda_graph, bool a2a) {
  return R"([{"framework": "megatron-bridge", "date": "2026-04", "model": "m", "chip_key": "gb200",
    "precision": "MXFP8", "dispatcher": "hybridep", "cuda_graph": ")" +
         cuda_graph + R"(", "a2a_overlap": )" + (a2a ? "true" : "false") + R"(, "recompute": ")" +
         recompute + R"(", "grad_reduce_in_fp32": true, "cross_entropy_loss_fusion": true,
    "recipe": "r", "pinned": true, "note": "n"}])";
}

TEST(RunRecipe, BundledTablesKeyEveryMegatronBridgeAndNemoRun) {
  auto rows = BundledRecipes();
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  auto runs = BundledRuns();
  ASSERT_TRUE(runs.ok());
  int keyed = 0;
  for (const PublishedRun& run : *runs) {
    if (run.framework != "megatron-bridge" && run.framework != "nemo") continue;
    EXPECT_TRUE(RecipeFor(*rows, run).has_value()) << run.id;
    ++keyed;
  }
  EXPECT_GT(keyed, 0);
  // Each row cites its repository, tag and config file, and says how it was pinned.
  for (const RecipeRow& r : *rows) {
    EXPECT_NE(r.recipe.find("NVIDIA"), std::string::npos) << r.model;
    EXPECT_NE(r.recipe.find("tag "), std::string::npos) << r.model;
    EXPECT_FALSE(r.note.empty()) << r.model;
  }
}

// NeMo's recipes name a whole-block recompute granularity: selective or full
// parse beside none and the module lists; anything else is refused.
TEST(RunRecipe, WholeBlockGranularitiesParse) {
  EXPECT_TRUE(ParseRecipes(Row("selective", "none", false), "t.json").ok());
  EXPECT_TRUE(ParseRecipes(Row("full", "none", false), "t.json").ok());
  EXPECT_FALSE(ParseRecipes(Row("partial", "none", false), "t.json").ok());
}

// NeMo 24.07's Nemotron-4 340B row states its layout but not its recompute
// or gradient dtype: the launcher's training config for the model at that
// release sets selective recompute and grad_sync_dtype bf16.
TEST(RunRecipe, NemoLauncherConfigFillsNemotron) {
  const PublishedRun run = BundledRun("nemo2407_nemotron_340b_128gpu");
  auto s = BuildRunSetup(run);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->order.recompute.front(), Recompute::kSelective);
  EXPECT_TRUE(s->job.bf16_gradients);
  EXPECT_TRUE(HasFilled(s->filled, "job.gradients"));
  const ValidationReport r = ValidateRuns({run});
  ASSERT_EQ(r.runs.size(), 1u);
  ASSERT_TRUE(r.runs[0].predicted.has_value()) << r.runs[0].skipped_reason;
  EXPECT_NE(r.runs[0].plan.find("recompute=selective"), std::string::npos) << r.runs[0].plan;
}

TEST(RunRecipe, ParserRejectsUnknownKeysAndBadModules) {
  EXPECT_TRUE(ParseRecipes(Row("mla_up_proj+mlp", "none", false), "t.json").ok());
  auto bad = ParseRecipes(Row("attention", "none", false), "t.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.json: key '[0].recompute'"), std::string::npos);
  auto extra = ParseRecipes(R"([{"framework": "nemo", "colour": 1}])", "t.json");
  ASSERT_FALSE(extra.ok());
  EXPECT_NE(extra.status().message().find("colour"), std::string::npos);
  auto who = ParseRecipes(R"([{"framework": "x"}])", "t.json");
  ASSERT_FALSE(who.ok());
  EXPECT_NE(who.status().message().find("'[0].framework'"), std::string::npos);
  EXPECT_FALSE(ParseRecipes("{}", "t.json").ok());
}

std::string MaxTextRow(const std::string& recompute, const std::string& more = "") {
  return R"([{"framework": "maxtext", "date": "2024-11", "model": "m", "chip_key": "h100-sxm",
    "precision": "BF16", "recompute": ")" +
         recompute + R"(", "recipe": "r", "pinned": true, "note": "n")" + more + "}]";
}

// A MaxText row names a remat policy and has none of Megatron-Core's keys.
TEST(RunRecipe, MaxTextRowsNameARematPolicy) {
  for (const char* policy : {"none", "full", "dots", "dots_except_mlpwi", "dots_except_mlp"}) {
    auto rows = ParseRecipes(MaxTextRow(policy), "t.json");
    ASSERT_TRUE(rows.ok()) << policy << ": " << rows.status().message();
  }
  EXPECT_FALSE(ParseRecipes(MaxTextRow("selective"), "t.json").ok());
  EXPECT_FALSE(ParseRecipes(MaxTextRow("mlp"), "t.json").ok());
  auto megatron_key = ParseRecipes(MaxTextRow("full", R"(, "dispatcher": "alltoall")"), "t.json");
  ASSERT_FALSE(megatron_key.ok());
  EXPECT_NE(megatron_key.status().message().find("dispatcher"), std::string::npos);
  // A dot-saving policy is not a Megatron-Core recompute granularity.
  EXPECT_FALSE(ParseRecipes(Row("dots_except_mlp", "none", false), "t.json").ok());
}

// DGX Cloud's MaxText Llama 2 70B rows (dgxc-benchmarking v24.11.1) were run
// by its maxtext/configure.sh: remat_policy=custom keeping the attention
// projections and, in BF16, the MLP's output projection.
TEST(RunRecipe, DgxcMaxTextRowsTakeTheRecipesRematPolicy) {
  auto bf16 = BuildRunSetup(BundledRun("dgxc_maxtext_llama2_70b_bf16_64gpu"));
  ASSERT_TRUE(bf16.ok()) << bf16.status().message();
  EXPECT_FALSE(bf16->open.recompute);
  EXPECT_EQ(bf16->plan.recompute, Recompute::kDotsExceptMlpWi);
  EXPECT_TRUE(HasFilled(bf16->filled, "parallel.recompute"));
  auto fp8 = BuildRunSetup(BundledRun("dgxc_maxtext_llama2_70b_fp8_2048gpu"));
  ASSERT_TRUE(fp8.ok()) << fp8.status().message();
  EXPECT_EQ(fp8->plan.recompute, Recompute::kDotsExceptMlp);
  // Megatron-Core's settings stay untouched: MaxText's loss is XLA's.
  EXPECT_EQ(fp8->job.cross_entropy,
            BuildRunSetup(BundledRun("maxtext_v5e_16b_1x256"))->job.cross_entropy);
  EXPECT_FALSE(HasFilled(fp8->filled, "job.cross_entropy"));
}

// DeepSeek-V3 on GB200 (26.04): the recipe recomputes the dense MLPs only
// (recompute_modules [mlp]) where occam's own order would have filled a policy.
TEST(RunRecipe, FillsUnstatedRecomputeFromTheRecipe) {
  auto s = BuildRunSetup(BundledRun("mbridge_2604_gb200_dsv3_mxfp8_256gpu"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_FALSE(s->open.recompute);
  EXPECT_EQ(s->plan.recompute, Recompute::kModules);
  EXPECT_EQ(s->plan.recompute_modules, *ParseRecomputeModules("mlp"));
  EXPECT_TRUE(HasFilled(s->filled, "parallel.recompute"));
  // TE partial graphs end before the dispatch: the host sync remains.
  EXPECT_TRUE(s->job.moe_host_sync);
  EXPECT_TRUE(HasFilled(s->filled, "job.moe_host_sync"));
}

TEST(RunRecipe, A2aOverlapAndFullIterationGraph) {
  auto rows = ParseRecipes(Row("none", "full_iteration", true), "t.json");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  auto s = BuildRunSetup(BundledRun("mbridge_2604_gb200_gptoss_120b_bf16_64gpu"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  // The bundled recipe of this row sets moe_a2a_overlap.
  EXPECT_EQ(s->plan.a2a_overlap, EpOverlap::kCombined1F1B);
  RunSetup other = *s;
  ASSERT_TRUE(ApplyRecipe(rows->front(), &other).ok());
  EXPECT_FALSE(other.job.moe_host_sync);  // a full-iteration graph has no host round trip
}

// Every Megatron-Bridge performance recipe sets grad_reduce_in_fp32 False in
// its family's set_*_common_configs (scripts/performance/configs/*/
// *_llm_pretrain.py at v0.2.0 and v0.4.0): bf16 gradients, dense runs too.
TEST(RunRecipe, FillsTheGradientDtype) {
  for (const char* id :
       {"mbridge_2604_gb200_llama3_70b_64gpu", "mbridge_2511_b200_gptoss_120b_bf16_64gpu"}) {
    auto s = BuildRunSetup(BundledRun(id));
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_TRUE(s->job.bf16_gradients) << id;
    EXPECT_TRUE(HasFilled(s->filled, "job.gradients")) << id;
  }
  auto rows = ParseRecipes(Row("none", "none", false), "t.json");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  auto s = BuildRunSetup(BundledRun("mbridge_2604_gb200_gptoss_120b_bf16_64gpu"));
  ASSERT_TRUE(s.ok());
  RunSetup other = *s;
  other.job.bf16_gradients = false;
  ASSERT_TRUE(ApplyRecipe(rows->front(), &other).ok());
  EXPECT_FALSE(other.job.bf16_gradients);  // grad_reduce_in_fp32 true: fp32 gradients
}

// NeMo 24.07's launcher configs set cross_entropy_loss_fusion for Llama 3 and
// leave it unset for GPT-3 175B (Megatron-Core's default, unfused; NVIDIA/
// NeMo-Framework-Launcher tag 24.07, launcher_scripts/conf/training/); every
// Megatron-Bridge pretraining recipe fuses (GPTModelProvider's default True).
TEST(RunRecipe, FillsTheCrossEntropyFromTheLaunchConfig) {
  auto gpt3 = BuildRunSetup(BundledRun("nemo2407_gpt3_175b_128gpu"));
  ASSERT_TRUE(gpt3.ok()) << gpt3.status().message();
  EXPECT_EQ(gpt3->job.cross_entropy, CrossEntropyImpl::kVocabParallel);
  EXPECT_TRUE(HasFilled(gpt3->filled, "job.cross_entropy"));
  for (const char* id : {"nemo2407_llama3_8b_8gpu", "mbridge_2604_gb200_llama3_70b_64gpu"}) {
    auto s = BuildRunSetup(BundledRun(id));
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ(s->job.cross_entropy, CrossEntropyImpl::kFused) << id;
    EXPECT_FALSE(HasFilled(s->filled, "job.cross_entropy")) << id;
  }
}

// A closest recipe was written for another layout: its policy comes first,
// then the heavier ones. The 25.11 GPT-OSS H100 row runs micro-batch 4
// where its recipe runs 1 without recompute; occam's memory model puts that
// at 134.7 GB on an 80 GB chip, so the validation takes the lightest policy
// that fits, full recomputation (selective keeps the same activations under
// FlashAttention). A pinned recipe's policy is the only one.
TEST(RunRecipe, ClosestRecipesPolicyIsAFirstChoice) {
  const PublishedRun run = BundledRun("mbridge_2511_h100_gptoss_120b_bf16_64gpu");
  auto s = BuildRunSetup(run);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->order.recompute,
            (std::vector<Recompute>{Recompute::kNone, Recompute::kSelective, Recompute::kFull}));
  auto pinned = BuildRunSetup(BundledRun("mbridge_2604_gb200_dsv3_mxfp8_256gpu"));
  ASSERT_TRUE(pinned.ok()) << pinned.status().message();
  EXPECT_EQ(pinned->order.recompute, std::vector<Recompute>{Recompute::kModules});

  const ValidationReport r = ValidateRuns({run});
  ASSERT_EQ(r.runs.size(), 1u);
  ASSERT_TRUE(r.runs[0].predicted.has_value()) << r.runs[0].skipped_reason;
  EXPECT_NE(r.runs[0].plan.find("recompute=full"), std::string::npos) << r.runs[0].plan;
  bool noted = false;
  for (const auto& [field, how] : r.runs[0].filled) {
    noted |= field == "parallel.recompute" && how.find("does not fit") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

// A stated recompute is the run's, whatever the recipe says.
TEST(RunRecipe, StatedRecomputeWins) {
  PublishedRun run = BundledRun("mbridge_2604_gb200_dsv3_mxfp8_256gpu");
  run.parallel.recompute = "full";
  auto s = BuildRunSetup(run);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->plan.recompute, Recompute::kFull);
  EXPECT_FALSE(HasFilled(s->filled, "parallel.recompute"));
}

}  // namespace
}  // namespace occam::validate

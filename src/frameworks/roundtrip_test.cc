// Property: for the layouts the planner enumerates on a sample of models and
// clusters, every plan a framework can express comes back from its written
// configuration as the same plan (emit -> read -> same PlanSpec), and every
// plan it cannot express is named with at least one reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "occam/frameworks.h"
#include "search/enumerate.h"

namespace occam {
namespace {

struct Case {
  const char* model;
  const char* cluster;
  int64_t chips, seq, batch;
};

// Two plans that differ only where the framework has nothing to tell apart:
// with a single data-parallel rank (dp*cp = 1) the ZeRO stage shards nothing;
// sp has no meaning without tp.
PlanSpec Canonical(PlanSpec p) {
  if (p.dp * p.cp == 1) {
    p.zero = 1;
    p.hsdp = 0;
  }
  if (p.tp == 1) p.sp = true;
  return p;
}

// Every stride-th plan the planner enumerates that ValidatePlan accepts.
std::vector<PlanSpec> SampledPlans(const ModelSpec& m, const ClusterSpec& c, const JobSpec& j,
                                   size_t stride) {
  const auto cons = search::ParseConstraints(SearchOptions{});
  EXPECT_TRUE(cons.ok());
  std::vector<PlanSpec> out;
  std::vector<search::Inner> inner;
  size_t k = 0;
  for (const auto& shape : search::EnumerateShapes(m, c, j, *cons)) {
    search::EnumerateInner(m, shape, c, j, *cons, inner);
    for (const auto& in : inner) {
      if (k++ % stride != 0) continue;
      PlanSpec p;
      search::ApplyCandidate(shape, in, *cons, p);
      if (ValidatePlan(m, c, j, p).ok()) out.push_back(p);
    }
  }
  return out;
}

void RoundTrip(const Case& cs, size_t stride) {
  SCOPED_TRACE(std::string(cs.model) + " on " + cs.cluster);
  auto model = CatalogModel(cs.model);
  auto cluster = CatalogCluster(cs.cluster, cs.chips);
  ASSERT_TRUE(model.ok() && cluster.ok());
  JobSpec job;
  job.seq_len = cs.seq;
  job.global_batch_seqs = cs.batch;
  const auto plans = SampledPlans(*model, *cluster, job, stride);
  ASSERT_GT(plans.size(), 20u);
  for (Framework f : {Framework::kMegatron, Framework::kTorchtitan, Framework::kMaxText}) {
    int expressed = 0;
    for (const PlanSpec& p : plans) {
      SCOPED_TRACE(std::string(FrameworkName(f)) + " " + FormatPlan(p));
      if (!CheckFramework(f, *model, *cluster, job, p).empty()) continue;
      ++expressed;
      auto cfg = WriteFrameworkConfig(f, *model, *cluster, job, p);
      ASSERT_TRUE(cfg.ok()) << cfg.status().message();
      auto file = ParseFrameworkFile(f, cfg->text, "emitted");
      ASSERT_TRUE(file.ok()) << file.status().message() << "\n" << cfg->text;
      EXPECT_TRUE(file->warnings.empty()) << file->warnings.front();
      JobSpec base;  // the reader must take seq, batch and precision from the file
      base.seq_len = 1;
      auto back = ResolveFrameworkFile(*file, *model, *cluster, base);
      ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << cfg->text;
      EXPECT_EQ(FormatPlan(Canonical(back->plan)), FormatPlan(Canonical(p))) << cfg->text;
      EXPECT_EQ(back->job.seq_len, job.seq_len);
      EXPECT_EQ(back->job.global_batch_seqs, job.global_batch_seqs);
      EXPECT_EQ(back->job.precision, job.precision);
    }
    // Each framework expresses part of the space, and not all of it.
    EXPECT_GT(expressed, 0) << FrameworkName(f);
    EXPECT_LT(expressed, static_cast<int>(plans.size())) << FrameworkName(f);
  }
}

TEST(FrameworksRoundTrip, DenseLlamaOnH100Nodes) {
  RoundTrip({"llama-3.1-8b", "h100", 64, 4096, 256}, 7);
}

TEST(FrameworksRoundTrip, MlaMoeOnH800) {
  RoundTrip({"deepseek-v2-lite", "h800", 32, 4096, 128}, 11);
}

TEST(FrameworksRoundTrip, MoeOnTpuV5p) {
  RoundTrip({"mixtral-8x7b", "tpu-v5p", 128, 4096, 256}, 13);
}

TEST(FrameworksRoundTrip, BiasedGpt2OnA100) { RoundTrip({"gpt2-xl", "a100", 16, 1024, 64}, 5); }

// The Megatron-LM architecture arguments rebuild the model occam wrote them from.
TEST(FrameworksRoundTrip, MegatronModelArguments) {
  for (const char* name : {"llama-3.1-70b", "deepseek-v3", "mixtral-8x7b", "gpt2-xl"}) {
    SCOPED_TRACE(name);
    auto model = CatalogModel(name);
    auto cluster = CatalogCluster("h100", 64);
    ASSERT_TRUE(model.ok() && cluster.ok());
    JobSpec job;
    job.seq_len = 1024;
    job.global_batch_seqs = 64;
    PlanSpec p;
    p.dp = 64;
    auto cfg = WriteFrameworkConfig(Framework::kMegatron, *model, *cluster, job, p);
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    auto file = ParseFrameworkFile(Framework::kMegatron, cfg->text, "args");
    ASSERT_TRUE(file.ok());
    auto m = ModelFromFile(*file);
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_EQ(m->num_layers, model->num_layers);
    EXPECT_EQ(m->hidden, model->hidden);
    EXPECT_EQ(m->vocab, model->vocab);
    EXPECT_EQ(m->ffn_hidden, model->ffn_hidden);
    EXPECT_EQ(m->attention.num_heads, model->attention.num_heads);
    EXPECT_EQ(m->attention.num_kv_heads, model->attention.num_kv_heads);
    EXPECT_EQ(m->attention.head_dim, model->attention.head_dim);
    EXPECT_EQ(m->mtp_layers, model->mtp_layers);
    EXPECT_EQ(m->tied_embeddings, model->tied_embeddings);
    EXPECT_EQ(m->gated_mlp, model->gated_mlp);
    ASSERT_EQ(m->moe.has_value(), model->moe.has_value());
    if (model->moe) {
      EXPECT_EQ(m->moe->num_experts, model->moe->num_experts);
      EXPECT_EQ(m->moe->top_k, model->moe->top_k);
      EXPECT_EQ(m->moe->expert_ffn, model->moe->expert_ffn);
      EXPECT_EQ(m->moe->first_k_dense, model->moe->first_k_dense);
      EXPECT_EQ(m->moe->layer_freq, model->moe->layer_freq);
      EXPECT_EQ(m->moe->num_shared_experts * m->moe->shared_expert_ffn,
                model->moe->num_shared_experts * model->moe->shared_expert_ffn);
    }
  }
}

}  // namespace
}  // namespace occam

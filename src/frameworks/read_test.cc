// Reading the example configurations of testdata/frameworks/ (written for
// occam in each framework's format). Expected values follow from each
// file's keys and the framework's rules, as the comments derive them.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "occam/frameworks.h"

namespace occam {
namespace {

std::string Read(const std::string& rel) {
  std::ifstream in(std::string(OCCAM_SOURCE_DIR) + "/testdata/frameworks/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<FrameworkFile> Parse(Framework f, const std::string& rel) {
  return ParseFrameworkFile(f, Read(rel), rel);
}

// torchrun --nnodes 8 --nproc-per-node 8: 64 ranks. TP 8, PP 2, CP 1 -> DP =
// 64/16 = 4; 80 layers in 5-layer virtual stages -> VPP = 80/(2*5) = 8.
TEST(ReadMegatron, Llama70BLaunchScript) {
  auto f = Parse(Framework::kMegatron, "megatron-llama3.1-70b.sh");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f->warnings.empty());
  auto chips = FileChips(*f);
  ASSERT_TRUE(chips.ok() && chips->has_value());
  EXPECT_EQ(**chips, 8 * 8);
  auto model = ModelFromFile(*f);
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(model->num_layers, 80);
  EXPECT_EQ(model->attention.num_kv_heads, 8);
  auto cluster = CatalogCluster("h100", 64);
  auto l = ResolveFrameworkFile(*f, *model, *cluster, JobSpec{});
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->plan.tp, 8);
  EXPECT_EQ(l->plan.pp, 2);
  EXPECT_EQ(l->plan.dp, 4);
  EXPECT_EQ(l->plan.vpp, 8);
  EXPECT_EQ(l->plan.schedule, Schedule::kInterleaved);
  EXPECT_EQ(l->plan.zero, 1);
  EXPECT_EQ(l->plan.recompute, Recompute::kSelective);
  EXPECT_TRUE(l->plan.sp);
  EXPECT_EQ(l->job.seq_len, 8192);
  EXPECT_EQ(l->job.global_batch_seqs, 256);
  EXPECT_TRUE(l->job.overlap_grad_reduce);
}

// The same script with --fp8-format: FP8 training, the LM head 16-bit
// unless --fp8-output-proj (Megatron-Core TransformerConfig.fp8_output_proj,
// default false) asks for it in FP8 (with the MXFP8 recipe: Blackwell).
TEST(ReadMegatron, Fp8FlagsReachTheJob) {
  auto model = CatalogModel("llama-3.1-70b");
  auto h100 = CatalogCluster("h100", 64), b200 = CatalogCluster("b200", 64);
  ASSERT_TRUE(model.ok() && h100.ok() && b200.ok());
  auto job = [&](const std::string& extra, const ClusterSpec& cluster) {
    std::string text = Read("megatron-llama3.1-70b.sh");
    const size_t at = text.find("--log-interval");
    EXPECT_NE(at, std::string::npos);
    text.insert(at, extra);
    auto f = ParseFrameworkFile(Framework::kMegatron, text, "megatron-llama3.1-70b.sh");
    EXPECT_TRUE(f.ok()) << f.status().message();
    auto l = ResolveFrameworkFile(*f, *model, cluster, JobSpec{});
    EXPECT_TRUE(l.ok()) << l.status().message();
    return l.ok() ? l->job : JobSpec{};
  };
  const JobSpec fp8 = job("--fp8-format e4m3 ", *h100);
  EXPECT_EQ(fp8.precision, Precision::kFp8);
  EXPECT_FALSE(fp8.fp8_output_proj);
  const JobSpec head = job("--fp8-format e4m3 --fp8-recipe mxfp8 --fp8-output-proj ", *b200);
  EXPECT_TRUE(head.fp8_output_proj);
  // Megatron-Core refuses it without the MXFP8 recipe, which Hopper lacks.
  const std::string text = Read("megatron-llama3.1-70b.sh");
  std::string hopper = text;
  hopper.insert(hopper.find("--log-interval"), "--fp8-format e4m3 --fp8-output-proj ");
  auto f = ParseFrameworkFile(Framework::kMegatron, hopper, "megatron-llama3.1-70b.sh");
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(ResolveFrameworkFile(*f, *model, *h100, JobSpec{}).ok());
}

// The bundled Megatron-LM Llama 3.1 70B file on 64 H100s with `extra`
// flags inserted.
ImportedLayout ReadLlama70bWith(const std::string& extra) {
  auto model = CatalogModel("llama-3.1-70b");
  auto h100 = CatalogCluster("h100", 64);
  EXPECT_TRUE(model.ok() && h100.ok());
  if (!model.ok() || !h100.ok()) return ImportedLayout{};
  std::string text = Read("megatron-llama3.1-70b.sh");
  text.insert(text.find("--log-interval"), extra);
  auto f = ParseFrameworkFile(Framework::kMegatron, text, "megatron-llama3.1-70b.sh");
  EXPECT_TRUE(f.ok()) << f.status().message();
  if (!f.ok()) return ImportedLayout{};
  auto l = ResolveFrameworkFile(*f, *model, *h100, JobSpec{});
  EXPECT_TRUE(l.ok()) << l.status().message();
  return l.ok() ? *l : ImportedLayout{};
}

// Without --cross-entropy-loss-fusion (store-true, default off) Megatron-LM
// runs VocabParallelCrossEntropy op by op; with it, the fused loss.
TEST(ReadMegatron, CrossEntropyFusionFlag) {
  auto names_fusion = [](const ImportedLayout& l) {
    return std::any_of(l.notes.begin(), l.notes.end(), [](const std::string& n) {
      return n.find("--cross-entropy-loss-fusion") != std::string::npos;
    });
  };
  const ImportedLayout unfused = ReadLlama70bWith("");
  const ImportedLayout fused = ReadLlama70bWith("--cross-entropy-loss-fusion ");
  EXPECT_EQ(unfused.job.cross_entropy, CrossEntropyImpl::kVocabParallel);
  EXPECT_TRUE(names_fusion(unfused));  // the user is told what the flag would save
  EXPECT_EQ(fused.job.cross_entropy, CrossEntropyImpl::kFused);
  EXPECT_FALSE(names_fusion(fused));
}

// --gradient-accumulation-fusion is Megatron-LM's default; the file turns it
// off with --no-gradient-accumulation-fusion.
TEST(ReadMegatron, GradientAccumulationFusionFlag) {
  EXPECT_TRUE(ReadLlama70bWith("").job.grad_accumulation_fusion);
  EXPECT_FALSE(ReadLlama70bWith("--no-gradient-accumulation-fusion ").job.grad_accumulation_fusion);
}

// shard -1 fills 64/(1*8*1*1) = 8 FSDP ranks; no PP, so the micro-batch is
// local_batch_size 8 and accumulation 128/(8*8) = 2 steps.
TEST(ReadTorchtitan, Llama70BToml) {
  auto f = Parse(Framework::kTorchtitan, "torchtitan-llama3-70b.toml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  auto chips = FileChips(*f);
  ASSERT_TRUE(chips.ok());
  EXPECT_FALSE(chips->has_value());  // -1: the launcher decides
  auto model = ModelFromFile(*f);
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(model->name, "llama-3.1-70b");
  auto l = ResolveFrameworkFile(*f, *model, *CatalogCluster("h100", 64), JobSpec{});
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(FormatPlan(l->plan), "tp=8,pp=1,dp=8,zero=3,mbs=8,recompute=full,schedule=none");
  EXPECT_EQ(l->job.global_batch_seqs, 128);
  EXPECT_EQ(l->job.seq_len, 8192);
}

// [compile]: enable false runs the blocks and the loss eagerly; enable true
// compiles components ["model", "loss"] unless set (torchtitan
// config/job_config.py, class Compile); components ["loss"] leaves the
// blocks eager.
TEST(ReadTorchtitan, CompileSettingsReachTheJob) {
  const std::string text = Read("torchtitan-llama3-70b.toml");
  const std::string off = "[compile]\nenable = false";
  ASSERT_NE(text.find(off), std::string::npos);
  auto job_of = [&](const std::string& compile) {
    std::string t = text;
    t.replace(t.find(off), off.size(), compile);
    auto f = ParseFrameworkFile(Framework::kTorchtitan, t, "compile.toml");
    EXPECT_TRUE(f.ok()) << f.status().message();
    auto model = ModelFromFile(*f);
    auto l = ResolveFrameworkFile(*f, *model, *CatalogCluster("h100", 64), JobSpec{});
    EXPECT_TRUE(l.ok()) << l.status().message();
    return l->job;
  };
  const JobSpec eager = job_of(off);
  EXPECT_TRUE(eager.eager_autograd);
  // torchtitan's pipeline runtime is torch.distributed.pipelining.
  EXPECT_TRUE(eager.torch_pipelining);
  EXPECT_FALSE(eager.compiled_loss);
  const JobSpec both = job_of("[compile]\nenable = true");
  EXPECT_FALSE(both.eager_autograd);
  EXPECT_TRUE(both.compiled_loss);
  const JobSpec loss = job_of("[compile]\nenable = true\ncomponents = [\"loss\"]");
  EXPECT_TRUE(loss.eager_autograd);
  EXPECT_TRUE(loss.compiled_loss);
}

// One v5p slice of 2048 chips: ici_fsdp -1 fills 2048; batch 2048 * 8.
TEST(ReadMaxText, DeepSeekV3Yaml) {
  auto f = Parse(Framework::kMaxText, "maxtext-deepseek3-671b.yml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f->warnings.empty()) << f->warnings.front();
  auto model = ModelFromFile(*f);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->name, "deepseek-v3");
  auto l = ResolveFrameworkFile(*f, *model, *CatalogCluster("tpu-v5p", 2048), JobSpec{});
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(FormatPlan(l->plan), "tp=1,pp=1,dp=2048,zero=3,mbs=8,recompute=full,schedule=none");
  EXPECT_EQ(l->job.global_batch_seqs, 2048 * 8);
}

TEST(ReadErrors, UnknownLayoutKeysNameKeyAndFile) {
  const struct {
    Framework f;
    const char* file;
    const char* key;
  } cases[] = {
      {Framework::kMegatron, "bad/megatron-unknown-layout-flag.args",
       "--pipeline-model-parallel-split-rank"},
      {Framework::kTorchtitan, "bad/torchtitan-unknown-parallelism.toml",
       "parallelism.pipeline_parallel_split_points"},
      {Framework::kMaxText, "bad/maxtext-unmodelled-axis.yml", "ici_tensor_transpose_parallelism"},
  };
  for (const auto& c : cases) {
    auto f = Parse(c.f, c.file);
    ASSERT_FALSE(f.ok()) << c.file;
    EXPECT_EQ(f.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(f.status().message().find(c.key), std::string::npos) << f.status().message();
    EXPECT_NE(f.status().message().find(c.file), std::string::npos) << f.status().message();
  }
}

TEST(ReadErrors, HarmlessUnknownKeyWarns) {
  auto f = Parse(Framework::kTorchtitan, "torchtitan-warning.toml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->warnings.size(), 1u);
  EXPECT_NE(f->warnings[0].find("model.tokenizer_path"), std::string::npos);
}

TEST(ReadErrors, MegatronWithoutModelNamesWhatIsMissing) {
  auto f = Parse(Framework::kMegatron, "bad/megatron-unknown-layout-flag.args");
  ASSERT_FALSE(f.ok());
  auto g = ParseFrameworkFile(Framework::kMegatron,
                              "--tensor-model-parallel-size 2 --seq-length 4096", "x.args");
  ASSERT_TRUE(g.ok());
  auto m = ModelFromFile(*g);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("--num-layers"), std::string::npos);
  EXPECT_NE(m.status().message().find("--model"), std::string::npos);
}

TEST(ReadErrors, WorldSizeMustDivide) {
  auto f = ParseFrameworkFile(Framework::kMegatron,
                              "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 3 "
                              "--seq-length 4096",
                              "w.args");
  ASSERT_TRUE(f.ok());
  auto l = ResolveFrameworkFile(*f, *CatalogModel("llama-3.1-8b"), *CatalogCluster("h100", 64),
                                JobSpec{});
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("not divisible by TP*PP*CP = 24"), std::string::npos);
}

}  // namespace
}  // namespace occam

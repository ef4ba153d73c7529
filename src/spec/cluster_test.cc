// Chips, cluster templates (tier sizes, torus shapes, wraparound rule) and
// the cluster/job formats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "occam/ranges.h"
#include "occam/spec.h"
#include "spec/doc.h"
#include "spec/embedded.h"

namespace occam {
namespace {

ClusterSpec Template(const std::string& name, int64_t chips) {
  auto c = CatalogCluster(name, chips);
  EXPECT_TRUE(c.ok()) << name << " x" << chips << ": " << c.status().message();
  return c.ok() ? *c : ClusterSpec{};
}

std::string TemplateError(const std::string& name, int64_t chips) {
  auto c = CatalogCluster(name, chips);
  EXPECT_FALSE(c.ok()) << name << " x" << chips;
  return c.ok() ? "" : c.status().message();
}

TEST(ChipCatalog, RequiredKeysAndRunFileAliases) {
  for (const char* key :
       {"a100", "a100-40g", "h100", "h100-96g", "h800", "h200", "b200", "gb200", "gb300", "mi300x",
        "mi355x", "tpu-v3", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7",
        // chip_key values of the published-run file
        "a100-80g", "h100-sxm", "h100-sxm-96g"}) {
    auto chip = CatalogChip(key);
    ASSERT_TRUE(chip.ok()) << key << ": " << chip.status().message();
    EXPECT_GT(chip->peak_bf16.value(), 0) << key;
    EXPECT_GE(chip->peak_fp8.value(), chip->peak_bf16.value()) << key;
  }
  EXPECT_EQ(CatalogChip("h100-sxm")->key, "h100");
  EXPECT_EQ(CatalogChip("nope").status().code(), StatusCode::kNotFound);
}

TEST(ChipCatalog, PeaksAndCapacities) {
  const ChipSpec h100 = *CatalogChip("h100");
  EXPECT_DOUBLE_EQ(h100.peak_bf16.value(), 989.4e12);
  EXPECT_DOUBLE_EQ(h100.peak_fp8.value(), 1978.9e12);
  EXPECT_DOUBLE_EQ(h100.hbm.value(), 81559.0 * 1024 * 1024);  // nvidia-smi: 81559 MiB
  EXPECT_FALSE(h100.is_tpu);
  const ChipSpec v5p = *CatalogChip("tpu-v5p");
  EXPECT_TRUE(v5p.is_tpu);
  EXPECT_DOUBLE_EQ(v5p.hbm.value(), 95.0 * 1024 * 1024 * 1024);   // 95 GiB usable
  EXPECT_DOUBLE_EQ(v5p.peak_fp8.value(), v5p.peak_bf16.value());  // no FP8 speed-up
  const ChipSpec v3 = *CatalogChip("tpu-v3");
  EXPECT_DOUBLE_EQ(v3.peak_bf16.value(), 123e12);
}

// data/calibration.yaml: a chip with its own entry takes it, others take
// the default (expected values read from the file itself, which the
// calibration fit rewrites).
TEST(ChipCatalog, CalibrationIsLoaded) {
  const auto& files = EmbeddedFiles();
  auto it = std::find_if(files.begin(), files.end(),
                         [](const EmbeddedFile& f) { return f.path == "data/calibration.yaml"; });
  ASSERT_NE(it, files.end());
  auto doc = spec::ParseDocument(it->content, it->path);
  ASSERT_TRUE(doc.ok());
  const auto& gemm = (*doc)["gemm"];
  for (const auto& key : CatalogChipKeys()) {
    const auto& entry = gemm["chips"].contains(key) ? gemm["chips"][key] : gemm["default"];
    const auto& fallback = gemm["default"];
    const double eff = entry.value("efficiency", fallback["efficiency"].get<double>());
    const double half = entry.value("half_tokens", fallback["half_tokens"].get<double>());
    EXPECT_DOUBLE_EQ(CatalogChip(key)->gemm_efficiency, eff) << key;
    EXPECT_DOUBLE_EQ(CatalogChip(key)->gemm_half_tokens, half) << key;
    const double fp8 = entry.value("fp8_ratio", fallback["fp8_ratio"].get<double>());
    EXPECT_DOUBLE_EQ(CatalogChip(key)->gemm_fp8_ratio, fp8) << key;
  }
}

// A fitted plateau stands for the chip's measured matmul maximum and may not
// exceed it; the caps are the MAMF of doc/hardware.md § 4.1 over the peak of
// data/hardware/chips.yaml.
TEST(ChipCatalog, FittedPlateausStayAtOrBelowTheMeasuredOnes) {
  const std::pair<const char*, double> mamf_tflops[] = {
      {"a100", 271.2}, {"h100", 794.5}, {"b200", 1745}, {"gb200", 1822}};
  for (const auto& [key, tflops] : mamf_tflops) {
    const ChipSpec c = *CatalogChip(key);
    EXPECT_NEAR(c.gemm_measured_plateau, tflops * 1e12 / c.peak_bf16.value(), 5e-4) << key;
  }
  int capped = 0;
  for (const auto& key : CatalogChipKeys()) {
    const ChipSpec c = *CatalogChip(key);
    if (c.gemm_measured_plateau <= 0) continue;
    ++capped;
    EXPECT_LE(c.gemm_efficiency, c.gemm_measured_plateau) << key;
  }
  EXPECT_GE(capped, 4);
}

// Every calibration entry names a catalog chip by its key (not an alias),
// so no value is silently unused.
TEST(ChipCatalog, CalibrationKeysAreChipKeys) {
  const auto& files = EmbeddedFiles();
  auto it = std::find_if(files.begin(), files.end(),
                         [](const EmbeddedFile& f) { return f.path == "data/calibration.yaml"; });
  ASSERT_NE(it, files.end());
  auto doc = spec::ParseDocument(it->content, it->path);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const auto& chips = (*doc)["gemm"]["chips"];
  ASSERT_FALSE(chips.empty());
  for (auto c = chips.begin(); c != chips.end(); ++c) {
    auto chip = CatalogChip(c.key());
    ASSERT_TRUE(chip.ok()) << c.key();
    EXPECT_EQ(chip->key, c.key());
  }
}

TEST(ClusterCatalog, EveryTemplateLoadsAtItsOwnSize) {
  ASSERT_GE(CatalogClusterNames().size(), 15u);
  for (const auto& name : CatalogClusterNames()) {
    const ClusterSpec c = Template(name, 9216);  // 9 x 1024: fits every template
    EXPECT_TRUE(ValidateCluster(c, name).ok()) << name;
    EXPECT_EQ(c.num_chips, 9216) << name;
  }
}

TEST(ClusterCatalog, GpuTiersNest) {
  const ClusterSpec c = Template("h100", 2048);
  ASSERT_EQ(c.tiers.size(), 3u);
  EXPECT_EQ(c.tiers[0].size, 8);
  EXPECT_EQ(c.tiers[0].kind, TierKind::kSwitch);
  EXPECT_DOUBLE_EQ(c.tiers[0].bandwidth.value(), 450e9);
  EXPECT_TRUE(c.tiers[0].in_network_reduction);
  EXPECT_EQ(c.tiers[1].size, 1024);  // SuperPOD: 4 SUs x 32 nodes x 8 GPUs
  EXPECT_EQ(c.tiers[1].kind, TierKind::kFatTree);
  EXPECT_DOUBLE_EQ(c.tiers[1].bandwidth.value(), 50e9);
  EXPECT_EQ(c.tiers[2].size, 2048);
  // 1536 GPUs: the pod shrinks to the largest node multiple <= 1024 dividing 1536.
  const ClusterSpec odd = Template("h100", 1536);
  ASSERT_EQ(odd.tiers.size(), 3u);
  EXPECT_EQ(odd.tiers[1].size, 768);
  // One pod or less: node + fabric only.
  EXPECT_EQ(Template("h100", 64).tiers.size(), 2u);
  EXPECT_EQ(Template("h100", 64).tiers[1].size, 64);
  // Inside one node.
  EXPECT_EQ(Template("h100", 4).tiers.size(), 1u);
}

TEST(ClusterCatalog, H800NvlinkIsSlower) {
  const ClusterSpec c = Template("h800", 2048);
  EXPECT_DOUBLE_EQ(c.tiers[0].bandwidth.value(), 200e9);
  EXPECT_NEAR(c.tiers[0].efficiency * 200, 160, 1e-9);  // 160 GB/s measured
}

TEST(ClusterCatalog, Nvl72AndMesh) {
  const ClusterSpec gb = Template("gb200", 144);
  EXPECT_EQ(gb.tiers[0].size, 72);
  EXPECT_EQ(gb.tiers[1].size, 144);
  EXPECT_EQ(Template("mi300x", 16).tiers[0].kind, TierKind::kMesh);
  EXPECT_DOUBLE_EQ(Template("mi300x", 16).tiers[0].bandwidth.value(), 7 * 64e9);
}

// Issue 13: GB200 counts that do not fill whole NVL72 racks use the fewest
// equal partial racks of whole 4-GPU trays, each at least half full, and the
// rack tier says so: 2048 = 32 x 64 (29, 30, 31 racks do not divide 2048),
// 256 = 4 x 64, 1000 = 25 x 40 (14 .. 24 racks give no whole trays).
TEST(ClusterCatalog, PartialNvl72Racks) {
  for (auto [chips, share] : {std::pair<int64_t, int64_t>{2048, 64}, {256, 64}, {1000, 40}}) {
    const ClusterSpec c = Template("gb200", chips);
    EXPECT_EQ(c.tiers[0].size, share) << chips;
    EXPECT_NE(c.tiers[0].name.find("partial: " + std::to_string(share) + " of 72"),
              std::string::npos)
        << c.tiers[0].name;
    EXPECT_EQ(c.tiers.back().size, chips);
  }
  EXPECT_EQ(Template("gb200", 144).tiers[0].name, "nvl72");  // whole racks: no note
  EXPECT_EQ(Template("gb300", 2048).tiers[0].size, 64);
  // 100 = 2 x 50 (not whole trays) or 3 racks of 33.3: no sensible cluster.
  const std::string msg = TemplateError("gb200", 100);
  EXPECT_NE(msg.find("partial"), std::string::npos) << msg;
}

TEST(ClusterCatalog, GpuCountsThatDoNotFit) {
  const std::string msg = TemplateError("h100", 12);
  EXPECT_NE(msg.find("8 or 16"), std::string::npos) << msg;
  EXPECT_NE(TemplateError("gb200", 100).find("72 or 144"), std::string::npos);
  EXPECT_NE(TemplateError("h100", 3).find("2 or 4"), std::string::npos);
  EXPECT_NE(TemplateError("h100", 0).find(">= 1"), std::string::npos);
  EXPECT_EQ(CatalogCluster("h900", 8).status().code(), StatusCode::kNotFound);
}

// Whole 4x4x4 cubes: full 3D torus, most cubic shape.
TEST(ClusterCatalog, TpuV5pTorusShapes) {
  const ClusterSpec c = Template("tpu-v5p", 2048);
  ASSERT_EQ(c.tiers.size(), 1u);
  EXPECT_EQ(c.tiers[0].kind, TierKind::kTorus);
  EXPECT_EQ(c.tiers[0].torus_dims, (std::vector<int64_t>{8, 16, 16}));
  EXPECT_EQ(c.tiers[0].torus_wrap, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(Template("tpu-v5p", 6144).tiers[0].torus_dims, (std::vector<int64_t>{16, 16, 24}));
  // Sub-cube slices are open meshes.
  const ClusterSpec small = Template("tpu-v5p", 32);
  EXPECT_EQ(small.tiers[0].torus_dims, (std::vector<int64_t>{2, 4, 4}));
  EXPECT_EQ(small.tiers[0].torus_wrap, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(Template("tpu-v5p", 4).tiers[0].torus_dims, (std::vector<int64_t>{1, 2, 2}));
}

TEST(ClusterCatalog, TpuMultislice) {
  const ClusterSpec c = Template("tpu-v5p", 12288);
  ASSERT_EQ(c.tiers.size(), 2u);
  EXPECT_EQ(c.tiers[0].size, 6144);
  EXPECT_EQ(c.tiers[1].kind, TierKind::kDcn);
  EXPECT_EQ(c.tiers[1].size, 12288);
  EXPECT_DOUBLE_EQ(c.tiers[1].bandwidth.value(), 6.25e9);
  const ClusterSpec v5e = Template("tpu-v5e", 8192);  // 32 pods (MaxText v5e runs)
  EXPECT_EQ(v5e.tiers[0].size, 256);
  EXPECT_EQ(v5e.tiers[1].size, 8192);
}

// v5e/v6e: only axes of length 16 wrap.
TEST(ClusterCatalog, Tpu2dWrapOnlyOnFullAxes) {
  const ClusterSpec c = Template("tpu-v6e", 128);
  EXPECT_EQ(c.tiers[0].torus_dims, (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(c.tiers[0].torus_wrap, (std::vector<bool>{false, true}));
  EXPECT_EQ(Template("tpu-v6e", 256).tiers[0].torus_wrap, (std::vector<bool>{true, true}));
}

TEST(ClusterCatalog, TpuCountsThatDoNotFit) {
  EXPECT_NE(TemplateError("tpu-v5p", 100).find("64 or 128"), std::string::npos);
  EXPECT_NE(TemplateError("tpu-v5e", 48).find("32 or 64"), std::string::npos);
  EXPECT_NE(TemplateError("tpu-v5e", 300).find("256 or 512"), std::string::npos);
  EXPECT_FALSE(CatalogCluster("tpu-v5p", 6).ok());
}

constexpr const char* kClusterYaml = R"(
cluster:
  name: lab
  chip: h100
  num_chips: 16
  tiers:
    - {name: nvlink, kind: switch, size: 8, bandwidth_gbps: 450, latency_us: 2,
       efficiency: 0.8, half_bandwidth_mb: 16}
    - {name: ib, kind: fat_tree, size: 16, bandwidth_gbps: 50, latency_us: 5,
       efficiency: 0.9, half_bandwidth_mb: 128, oversubscription: 2}
)";

TEST(ClusterParse, ReadsTiers) {
  auto c = ParseCluster(kClusterYaml, "lab.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->name, "lab");
  EXPECT_EQ(c->chip.key, "h100");
  ASSERT_EQ(c->tiers.size(), 2u);
  EXPECT_DOUBLE_EQ(c->tiers[1].oversubscription, 2.0);
  EXPECT_DOUBLE_EQ(c->tiers[1].latency.value(), 5e-6);
  EXPECT_DOUBLE_EQ(c->tiers[1].half_bandwidth_bytes.value(), 128e6);
  EXPECT_FALSE(c->tiers[0].alltoall_all_peers);  // pairwise unless the file says so
}

std::string ClusterError(std::string text) {
  auto c = ParseCluster(text, "lab.yaml");
  EXPECT_FALSE(c.ok());
  return c.ok() ? "" : c.status().message();
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(ClusterParse, ReadsTheAllToAllKernel) {
  auto c = ParseCluster(Replace(kClusterYaml, "half_bandwidth_mb: 16}",
                                "half_bandwidth_mb: 16, alltoall_all_peers: true}"),
                        "lab.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->tiers[0].alltoall_all_peers);
  EXPECT_FALSE(c->tiers[1].alltoall_all_peers);
}

TEST(ClusterParse, ErrorsNameTheKeyPath) {
  const std::string neg =
      ClusterError(Replace(kClusterYaml, "bandwidth_gbps: 50", "bandwidth_gbps: -5"));
  EXPECT_NE(neg.find("cluster.tiers[1].bandwidth_gbps' must be > 0"), std::string::npos) << neg;
  const std::string unknown = ClusterError(Replace(kClusterYaml, "latency_us: 5", "latncy_us: 5"));
  EXPECT_NE(unknown.find("cluster.tiers[1].latncy_us"), std::string::npos) << unknown;
  const std::string nan =
      ClusterError(Replace(kClusterYaml, "efficiency: 0.9", "efficiency: .nan"));
  EXPECT_NE(nan.find("cluster.tiers[1].efficiency"), std::string::npos) << nan;
  const std::string nest = ClusterError(Replace(kClusterYaml, "size: 16", "size: 12"));
  EXPECT_NE(nest.find("must divide the next tier"), std::string::npos) << nest;
  const std::string zero = ClusterError(Replace(kClusterYaml, "num_chips: 16", "num_chips: 0"));
  EXPECT_NE(zero.find("cluster.num_chips' must be >= 1"), std::string::npos) << zero;
  const std::string chip = ClusterError(Replace(kClusterYaml, "chip: h100", "chip: h900"));
  EXPECT_NE(chip.find("no built-in chip 'h900'"), std::string::npos) << chip;
}

// Issue 19: absurd physical values are rejected with the key and the range
// (doc/input-formats.md § Ranges), so no estimate prints inf or nan.
TEST(ClusterParse, PhysicalValuesHaveRanges) {
  const std::pair<const char*, const char*> kCases[] = {
      {"bandwidth_gbps: 50", "bandwidth_gbps: 1e-300"},
      {"latency_us: 5", "latency_us: 1e300"},
      {"efficiency: 0.9", "efficiency: 1e-300"},
      {"oversubscription: 2", "oversubscription: 1e300"},
      {"half_bandwidth_mb: 128", "half_bandwidth_mb: 1e300"},
  };
  for (const auto& [from, to] : kCases) {
    const std::string key = std::string(to).substr(0, std::string(to).find(':'));
    const std::string msg = ClusterError(Replace(kClusterYaml, from, to));
    EXPECT_NE(msg.find("lab.yaml: cluster.tiers[1]." + key + " must be in ["), std::string::npos)
        << msg;
  }
  const std::string flops = ClusterError(
      Replace(kClusterYaml, "chip: h100", "chip: {bf16_tflops: 1e-300, hbm_gb: 80, hbm_tbps: 3}"));
  EXPECT_NE(flops.find("cluster.chip.bf16_tflops must be in [0.001, 1000000] (got 1e-300)"),
            std::string::npos)
      << flops;
}

TEST(InputRange, NamesTheGivenNameAndRejectsNan) {
  EXPECT_TRUE(CheckInputRange("job.seq_len", 4096, "--seq-len").ok());
  const Status zero = CheckInputRange("job.seq_len", 0, "--seq-len");
  EXPECT_EQ(zero.message().rfind("--seq-len must be in [1, 67108864] (got 0)", 0), 0u)
      << zero.message();
  EXPECT_FALSE(CheckInputRange("job.memory_headroom", std::nan(""), "--headroom").ok());
  EXPECT_TRUE(CheckInputRange("job.moe_imbalance", 0, "x").ok());  // 0 = derive it
  EXPECT_FALSE(CheckInputRange("job.moe_imbalance", 0.5, "x").ok());
  EXPECT_EQ(CheckInputRange("no.such.key", 1, "x").code(), StatusCode::kInternal);
}

TEST(ClusterParse, TorusDimsMustMultiplyToTheSize) {
  const std::string base = R"(
cluster:
  chip: tpu-v5p
  num_chips: 64
  tiers:
    - {name: ici, kind: torus, size: 64, bandwidth_gbps: 600, latency_us: 1, efficiency: 0.8,
       half_bandwidth_mb: 1, torus_dims: DIMS, torus_wrap: [true, true, true]}
)";
  EXPECT_TRUE(ParseCluster(Replace(base, "DIMS", "[4, 4, 4]"), "t.yaml").ok());
  const std::string msg = ClusterError(Replace(base, "DIMS", "[4, 4, 8]"));
  EXPECT_NE(msg.find("torus_dims must multiply to size (64)"), std::string::npos) << msg;
  // Products that would overflow are rejected, not computed.
  EXPECT_FALSE(
      ParseCluster(Replace(base, "DIMS", "[1099511627776, 1099511627776, 4]"), "t.yaml").ok());
}

TEST(ClusterParse, InlineChip) {
  auto c = ParseCluster(Replace(kClusterYaml, "chip: h100",
                                "chip: {name: X1, bf16_tflops: 100, hbm_gib: 64, hbm_tbps: 2}"),
                        "lab.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_DOUBLE_EQ(c->chip.peak_fp8.value(), 100e12);
  EXPECT_DOUBLE_EQ(c->chip.hbm.value(), 64.0 * (1 << 30));
}

TEST(JobParse, ReadsAndValidates) {
  auto j =
      ParseJob("job: {seq_len: 4096, global_batch_tokens: 16777216, precision: fp8}", "j.yaml");
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ(j->global_batch_seqs, 4096);
  EXPECT_EQ(j->precision, Precision::kFp8);
  EXPECT_EQ(j->balance, BalanceMethod::kAuxFree);
  auto bad = ParseJob("job: {seq_len: 4096, global_batch_seqs: 8, balance: magic}", "j.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("job.balance"), std::string::npos);
  auto frac = ParseJob("job: {seq_len: 4096, global_batch_tokens: 5000}", "j.yaml");
  ASSERT_FALSE(frac.ok());
  EXPECT_NE(frac.status().message().find("multiple of seq_len"), std::string::npos);
  JobSpec neg;
  neg.memory_headroom = -0.1;
  EXPECT_FALSE(ValidateJob(neg, "x").ok());
  EXPECT_TRUE(j->moe_host_sync);  // Megatron-Core's dropless dispatcher syncs by default
  auto quiet = ParseJob("job: {seq_len: 8, global_batch_seqs: 8, moe_host_sync: false}", "j.yaml");
  ASSERT_TRUE(quiet.ok()) << quiet.status().message();
  EXPECT_FALSE(quiet->moe_host_sync);
  auto odd = ParseJob("job: {seq_len: 8, global_batch_seqs: 8, moe_host_sync: 3}", "j.yaml");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("job.moe_host_sync"), std::string::npos);
  // ZeRO-3 collectives: per block and overlapped unless the job says otherwise.
  EXPECT_FALSE(j->fsdp_per_tensor);
  EXPECT_TRUE(j->fsdp_overlap);
  auto ds = ParseJob(
      "job: {seq_len: 8, global_batch_seqs: 8, fsdp_per_tensor: true, fsdp_overlap: false}",
      "j.yaml");
  ASSERT_TRUE(ds.ok()) << ds.status().message();
  EXPECT_TRUE(ds->fsdp_per_tensor);
  EXPECT_FALSE(ds->fsdp_overlap);
  auto two = ParseJob("job: {seq_len: 8, global_batch_seqs: 8, fsdp_overlap: 2}", "j.yaml");
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("job.fsdp_overlap"), std::string::npos);
}

TEST(JobParse, CrossEntropy) {
  auto fused = ParseJob("job: {seq_len: 8, global_batch_seqs: 8}", "j.yaml");
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  EXPECT_EQ(fused->cross_entropy, CrossEntropyImpl::kFused);
  for (const auto& [name, impl] : {std::pair{"vocab_parallel", CrossEntropyImpl::kVocabParallel},
                                   std::pair{"eager", CrossEntropyImpl::kEager}}) {
    auto j = ParseJob(
        std::string("job: {seq_len: 8, global_batch_seqs: 8, cross_entropy: ") + name + "}",
        "j.yaml");
    ASSERT_TRUE(j.ok()) << j.status().message();
    EXPECT_EQ(j->cross_entropy, impl);
  }
  auto bad = ParseJob("job: {seq_len: 8, global_batch_seqs: 8, cross_entropy: liger}", "j.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("job.cross_entropy"), std::string::npos);
  EXPECT_NE(bad.status().message().find("vocab_parallel"), std::string::npos);
}

TEST(JobParse, GradAccumulationFusion) {
  auto fused = ParseJob("job: {seq_len: 8, global_batch_seqs: 8}", "j.yaml");
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  EXPECT_TRUE(fused->grad_accumulation_fusion);
  auto unfused = ParseJob(
      "job: {seq_len: 8, global_batch_seqs: 8, grad_accumulation_fusion: false}", "j.yaml");
  ASSERT_TRUE(unfused.ok()) << unfused.status().message();
  EXPECT_FALSE(unfused->grad_accumulation_fusion);
  auto bad =
      ParseJob("job: {seq_len: 8, global_batch_seqs: 8, grad_accumulation_fusion: 3}", "j.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("job.grad_accumulation_fusion"), std::string::npos);
}

TEST(Document, NestingDepth) {
  EXPECT_EQ(spec::NestingDepth("{\"a\": [1, {\"b\": 2}]}"), 3);
  EXPECT_EQ(spec::NestingDepth("a:\n  b:\n    c: 1\n"), 3);
  EXPECT_EQ(spec::NestingDepth("[\"[[[[\"]"), 1);  // brackets inside strings do not count
}

}  // namespace
}  // namespace occam

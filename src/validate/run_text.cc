// Keyword rules for the free-text fields of published runs (precision,
// recompute, zero, schedule, slices): doc/validation.md, "Stated plan fields".
#include "validate/run_text.h"

#include <string>

#include "validate/run_setup.h"

namespace occam::validate {

std::optional<Precision> InterpretPrecision(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const std::string t = Lower(*text);
  if (Has(t, "fp8") || Has(t, "float8")) return Precision::kFp8;
  return Precision::kBf16;
}

std::optional<Recompute> InterpretRecompute(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const std::string t = Lower(*text);
  if (t.rfind("none", 0) == 0 || Has(t, "no recompute")) return Recompute::kNone;
  // torchtitan's operator-level SAC (selective_ac_option = 'op', "per-op SAC").
  if (Has(t, "op-level sac") || Has(t, "per-op sac") || Has(t, "op sac") ||
      Has(t, "selective_ac_option = 'op'")) {
    return Recompute::kSelectiveOp;
  }
  // MaxText remat policies by name: "minimal" keeps every projection's output
  // (JAX checkpoint_dots_with_no_batch_dims), "save_dot_except_mlpwi" all but
  // the MLP's input projections, "save_dot_except_mlp" the attention's only
  // (kinds.h); the longer name first.
  if (Has(t, "remat_policy=minimal")) return Recompute::kDots;
  if (Has(t, "remat_policy=save_dot_except_mlpwi")) return Recompute::kDotsExceptMlpWi;
  if (Has(t, "remat_policy=save_dot_except_mlp")) return Recompute::kDotsExceptMlp;
  if (Has(t, "selective") || Has(t, "minimal") || Has(t, "save_dot")) return Recompute::kSelective;
  if (Has(t, "full") || Has(t, "rematerializ")) return Recompute::kFull;
  return std::nullopt;
}

std::optional<ZeroSetting> InterpretZero(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const std::string t = Lower(*text);
  ZeroSetting z;
  if (Has(t, "fsdp=0") || Has(t, "distributed optim") || Has(t, "distributed_optim") ||
      Has(t, "distributed_fused_adam")) {
    z.stage = 1;
    return z;
  }
  // FSDP that keeps the gathered weights between forward and backward
  // (PyTorch FSDP reshard_after_forward=False, SHARD_GRAD_OP): ZeRO-2-like.
  const bool fsdp = Has(t, "fsdp") || Has(t, "fully sharded");
  if (fsdp && (Has(t, "no reshard") || Has(t, "reshard_after_forward=false") ||
               Has(t, "shard_grad_op") || Has(t, "zero-2"))) {
    z.stage = 2;
    return z;
  }
  if (Has(t, "zero-3") || fsdp) {
    z.stage = 3;
    z.shard_group = IntegerAfter(t, "fsdp=");
    if (z.shard_group == 0) z.shard_group = WayCount(t);
    return z;
  }
  if (Has(t, "zero-2"))
    z.stage = 2;
  else if (Has(t, "zero-1"))
    z.stage = 1;
  else
    return std::nullopt;
  return z;
}

std::optional<Schedule> InterpretSchedule(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const std::string t = Lower(*text);
  if (Has(t, "no pipeline")) return Schedule::kNone;
  if (Has(t, "not stated") || Has(t, "not given for")) return std::nullopt;
  if (Has(t, "interleav")) return Schedule::kInterleaved;
  if (Has(t, "1f1b")) return Schedule::k1F1B;
  if (Has(t, "gpipe") || Has(t, "afab")) return Schedule::kGpipe;
  return std::nullopt;
}

int64_t InterpretSlices(const PublishedRun& run) {
  const std::string zero = Lower(run.parallel.zero.value_or(""));
  const std::string other = Lower(run.parallel.other.value_or(""));
  const int64_t across = IntegerAfter(zero, "across");
  if (across > 0 && Has(zero, "slice")) return across;
  if (Has(other, "dp = number of slices") && run.parallel.dp) return *run.parallel.dp;
  return 1;
}

}  // namespace occam::validate

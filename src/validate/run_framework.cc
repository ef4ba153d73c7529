// Framework settings of a published run that its layout does not show: the
// defaults of the software generation it ran on (by the source's date) and
// the settings it states in free text. Rules and sources: doc/validation.md
// ("Unstated fields").
#include <cctype>
#include <string>

#include "validate/run_setup.h"
#include "validate/run_text.h"

namespace occam::validate {

int SourceYear(const std::string& text) {
  for (size_t i = 0; i + 4 <= text.size(); ++i) {
    const bool starts = i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]));
    const bool ends =
        i + 4 == text.size() || !std::isalnum(static_cast<unsigned char>(text[i + 4]));
    if (!starts || !ends || text[i] != '2' || text[i + 1] != '0') continue;
    if (!std::isdigit(static_cast<unsigned char>(text[i + 2])) ||
        !std::isdigit(static_cast<unsigned char>(text[i + 3]))) {
      continue;
    }
    return std::stoi(text.substr(i, 4));
  }
  return 0;
}

// FlashAttention (Dao et al. 2022, arXiv:2205.14135) appeared in May 2022 and
// reached the training frameworks from 2023, so a run published up to 2022
// wrote its score matrix to HBM (Korthikanti et al. 2022 Table 1 lists those
// tensors) and trained with Megatron-LM's default attention and hidden
// dropout of 0.1 (megatron/arguments.py, --attention-dropout /
// --hidden-dropout). Its data-parallel all-reduce ran once after the last
// backward (Megatron-LM's local DDP, allreduce_gradients() in train_step);
// bucketed overlap came with Megatron-Core's overlap_grad_reduce in 2023.
// Later and undated runs keep the JobSpec defaults.
void SetDatedDefaults(const PublishedRun& run, JobSpec* job,
                      std::vector<std::pair<std::string, std::string>>* filled) {
  const int year = SourceYear(run.source);
  if (year == 0 || year > 2022) return;
  job->attention = AttentionImpl::kMaterialized;
  job->dropout = true;
  job->overlap_grad_reduce = false;
  const std::string why = " (source dated " + std::to_string(year) + ", before FlashAttention";
  Fill(filled, "job.attention", "materialized" + why + " reached training frameworks)");
  Fill(filled, "job.dropout", "on, 0.1" + why + "; Megatron-LM's default)");
  Fill(filled, "job.overlap_grad_reduce",
       "false" + why + "; one all-reduce after the last backward)");
}

void SetStatedJobSettings(const PublishedRun& run, JobSpec* job) {
  const std::string text = Lower(run.notes + " " + run.parallel.other.value_or(std::string()));
  // Megatron-LM --tp-comm-overlap, NeMo recipes' tp_comm_overlap, XLA's async
  // collective fusion on TPU: collectives pipelined with their GEMMs.
  job->tp_comm_overlap = Has(text, "tp-comm-overlap") || Has(text, "tp comm overlap") ||
                         Has(text, "tp_comm_overlap") || Has(text, "async collective fusion");
  // Token dropping, stated as Megatron-Core's moe_expert_capacity_factor.
  job->capacity_factor = NumberAfter(text, "moe_expert_capacity_factor");
  // Benchmarks that force-balance the routing (Megatron-Core
  // --moe-router-force-load-balancing): every EP rank gets the mean load.
  if (Has(Lower(run.measured.definition), "force-balance") || Has(text, "force-balance") ||
      Has(text, "force_load_balancing")) {
    job->moe_imbalance = 1.0;
  }
  // torchtitan computes the loss with PyTorch's cross_entropy on the fp32
  // logits (components/loss.py), not a fused kernel.
  if (Has(Lower(run.source), "torchtitan")) job->fused_cross_entropy = false;
}

// Experts split over the attention's tp group: Megatron-Core's default when
// expert_tensor_parallel_size is unset (megatron/core/parallel_state.py),
// stated in parallel.other for runs that relied on it. Otherwise etp = 1:
// recipes with MoE parallel folding set it explicitly.
bool StatesExpertTpEqualsTp(const PublishedRun& run) {
  return Has(Lower(run.parallel.other.value_or(std::string())), "expert tensor parallel = tp");
}

}  // namespace occam::validate

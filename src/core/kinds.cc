#include "occam/kinds.h"

#include <array>
#include <utility>

#include "occam/schedule_traits.h"

namespace occam {
namespace {

template <class E, size_t N>
std::optional<E> Lookup(const std::array<std::pair<std::string_view, E>, N>& table,
                        std::string_view name) {
  for (const auto& [n, e] : table) {
    if (n == name) return e;
  }
  return std::nullopt;
}

template <class E, size_t N>
std::string_view NameOf(const std::array<std::pair<std::string_view, E>, N>& table, E e) {
  for (const auto& [n, v] : table) {
    if (v == e) return n;
  }
  return "?";
}

// Second names of schedules; the first names live in the schedule table
// (src/core/schedule_traits.cc).
constexpr std::array<std::pair<std::string_view, Schedule>, 1> kScheduleAliases = {{
    {"afab", Schedule::kGpipe},
}};

constexpr std::array<std::pair<std::string_view, BalanceMethod>, 5> kBalance = {{
    {"aux-free", BalanceMethod::kAuxFree},
    {"aux-loss", BalanceMethod::kAuxLoss},
    {"global-aux-loss", BalanceMethod::kGlobalAuxLoss},
    {"seq-aux", BalanceMethod::kSeqAux},
    {"none", BalanceMethod::kNone},
}};

constexpr std::array<std::pair<std::string_view, Recompute>, 8> kRecompute = {{
    {"none", Recompute::kNone},
    {"selective", Recompute::kSelective},
    {"full", Recompute::kFull},
    {"selective_op", Recompute::kSelectiveOp},
    {"modules", Recompute::kModules},
    {"dots", Recompute::kDots},
    {"dots_except_mlpwi", Recompute::kDotsExceptMlpWi},
    {"dots_except_mlp", Recompute::kDotsExceptMlp},
}};

constexpr std::array<std::pair<std::string_view, Precision>, 2> kPrecision = {{
    {"bf16", Precision::kBf16},
    {"fp8", Precision::kFp8},
}};

constexpr std::array<std::pair<std::string_view, EpOverlap>, 8> kEpOverlap = {{
    {"none", EpOverlap::kNone},
    {"1f1b", EpOverlap::kCombined1F1B},
    {"tbo", EpOverlap::kTwoBatch},
    {"shared", EpOverlap::kSharedExpert},
    {"0", EpOverlap::kNone},
    {"false", EpOverlap::kNone},
    {"1", EpOverlap::kCombined1F1B},
    {"true", EpOverlap::kCombined1F1B},
}};

constexpr std::array<std::pair<std::string_view, TorusMapping>, 2> kTorusMapping = {{
    {"linear", TorusMapping::kLinear},
    {"compact", TorusMapping::kCompact},
}};

constexpr std::array<std::pair<std::string_view, AttentionImpl>, 3> kAttention = {{
    {"flash", AttentionImpl::kFlash},
    {"flash2", AttentionImpl::kFlash2},
    {"materialized", AttentionImpl::kMaterialized},
}};
constexpr std::array<std::pair<std::string_view, CrossEntropyImpl>, 3> kCrossEntropy = {{
    {"fused", CrossEntropyImpl::kFused},
    {"vocab_parallel", CrossEntropyImpl::kVocabParallel},
    {"eager", CrossEntropyImpl::kEager},
}};

}  // namespace

std::string_view ScheduleName(Schedule s) {
  return static_cast<size_t>(s) < AllScheduleTraits().size() ? TraitsOf(s).name : "?";
}
std::string PipelineScheduleNames() {
  std::string out;
  for (const ScheduleTraits& t : AllScheduleTraits()) {
    if (t.schedule == Schedule::kNone) continue;
    out += (out.empty() ? "" : ", ") + std::string(t.name);
    for (const auto& [alias, s] : kScheduleAliases) {
      if (s == t.schedule) out += ", " + std::string(alias);
    }
  }
  return out;
}
std::optional<Schedule> ParseScheduleName(std::string_view n) {
  for (const ScheduleTraits& t : AllScheduleTraits()) {
    if (t.name == n) return t.schedule;
  }
  return Lookup(kScheduleAliases, n);
}
std::string_view BalanceMethodName(BalanceMethod m) { return NameOf(kBalance, m); }
std::optional<BalanceMethod> ParseBalanceMethodName(std::string_view n) {
  return Lookup(kBalance, n);
}
std::string_view RecomputeName(Recompute r) { return NameOf(kRecompute, r); }
std::optional<Recompute> ParseRecomputeName(std::string_view n) { return Lookup(kRecompute, n); }
std::string_view PrecisionName(Precision p) { return NameOf(kPrecision, p); }
std::optional<Precision> ParsePrecisionName(std::string_view n) { return Lookup(kPrecision, n); }
std::string_view EpOverlapName(EpOverlap o) { return NameOf(kEpOverlap, o); }
std::optional<EpOverlap> ParseEpOverlapName(std::string_view n) { return Lookup(kEpOverlap, n); }
std::string_view TorusMappingName(TorusMapping m) { return NameOf(kTorusMapping, m); }
std::optional<TorusMapping> ParseTorusMappingName(std::string_view n) {
  return Lookup(kTorusMapping, n);
}
std::string_view AttentionImplName(AttentionImpl a) { return NameOf(kAttention, a); }
std::optional<AttentionImpl> ParseAttentionImplName(std::string_view n) {
  return Lookup(kAttention, n);
}
std::string_view CrossEntropyImplName(CrossEntropyImpl c) { return NameOf(kCrossEntropy, c); }
std::optional<CrossEntropyImpl> ParseCrossEntropyImplName(std::string_view n) {
  return Lookup(kCrossEntropy, n);
}

namespace {
constexpr std::array<std::pair<std::string_view, unsigned>, 7> kModules = {{
    {"core_attn", recompute_module::kCoreAttn},
    {"mla_up_proj", recompute_module::kMlaUpProj},
    {"layernorm", recompute_module::kLayernorm},
    {"moe_act", recompute_module::kMoeAct},
    {"mlp", recompute_module::kMlp},
    {"shared_experts", recompute_module::kSharedExperts},
    {"moe", recompute_module::kMoe},
}};
constexpr std::array<std::pair<std::string_view, unsigned>, 2> kOffload = {{
    {"expert_fc1", offload_module::kExpertFc1},
    {"moe_act", offload_module::kMoeAct},
}};

template <size_t N>
std::string MaskName(const std::array<std::pair<std::string_view, unsigned>, N>& table,
                     unsigned modules) {
  std::string s;
  for (const auto& [n, bit] : table) {
    if ((modules & bit) == 0) continue;
    if (!s.empty()) s += '+';
    s += n;
  }
  return s;
}

template <size_t N>
std::optional<unsigned> ParseMask(const std::array<std::pair<std::string_view, unsigned>, N>& table,
                                  std::string_view text) {
  unsigned mask = 0;
  while (!text.empty()) {
    const size_t plus = text.find('+');
    const std::string_view name = text.substr(0, plus);
    const std::optional<unsigned> bit = Lookup(table, name);
    if (!bit) return std::nullopt;
    mask |= *bit;
    if (plus == std::string_view::npos) break;
    text.remove_prefix(plus + 1);
    if (text.empty()) return std::nullopt;
  }
  if (mask == 0) return std::nullopt;
  return mask;
}

}  // namespace

std::string RecomputeModulesName(unsigned modules) { return MaskName(kModules, modules); }
std::optional<unsigned> ParseRecomputeModules(std::string_view text) {
  return ParseMask(kModules, text);
}
std::string OffloadModulesName(unsigned modules) { return MaskName(kOffload, modules); }
std::optional<unsigned> ParseOffloadModules(std::string_view text) {
  return ParseMask(kOffload, text);
}

std::string RecomputeModuleNames() {
  std::string s;
  for (const auto& [n, bit] : kModules) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

bool ScheduleInterleavesBackward(Schedule s) { return TraitsOf(s).interleaves_backward; }

}  // namespace occam

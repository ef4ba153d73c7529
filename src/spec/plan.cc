// Plan strings: "tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,recompute=none,schedule=1f1b".
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "occam/spec.h"

namespace occam {
namespace {

constexpr std::string_view kPlanFields =
    "tp, cp, pp, vpp, dp, ep, etp, zero, hsdp, mbs, recompute, offload, schedule, sp, a2a_overlap, "
    "mesh, "
    "order, stages, first_layers, last_layers";

Status FieldError(std::string_view field, const std::string& what) {
  return InvalidInput("plan field '" + std::string(field) + "': " + what);
}

Result<int64_t> ParseCount(std::string_view field, std::string_view value, int64_t min) {
  int64_t v = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (ec == std::errc::result_out_of_range) {
    return FieldError(field, "'" + std::string(value) + "' is too large");
  }
  if (ec != std::errc() || ptr != end) {
    return FieldError(field, "'" + std::string(value) + "' is not an integer");
  }
  if (v < min) {
    return FieldError(field,
                      "must be >= " + std::to_string(min) + " (got " + std::to_string(v) + ")");
  }
  if (v > (int64_t{1} << 40)) {
    return FieldError(field, "'" + std::string(value) + "' is implausibly large");
  }
  return v;
}

Result<Axis> ParseAxis(std::string_view name) {
  if (name == "tp") return Axis::kTp;
  if (name == "cp") return Axis::kCp;
  if (name == "ep") return Axis::kEp;
  if (name == "dp") return Axis::kDp;
  if (name == "pp") return Axis::kPp;
  return FieldError("order", "unknown axis '" + std::string(name) + "' (use tp, cp, ep, dp, pp)");
}

std::string_view AxisName(Axis a) {
  switch (a) {
    case Axis::kTp:
      return "tp";
    case Axis::kCp:
      return "cp";
    case Axis::kEp:
      return "ep";
    case Axis::kDp:
      return "dp";
    case Axis::kPp:
      return "pp";
  }
  return "?";
}

// "order=tp/ep/dp/pp" (slash separated, innermost first).
Status ParseOrder(std::string_view value, PlanSpec& plan) {
  plan.order.clear();
  size_t start = 0;
  while (start <= value.size()) {
    const size_t slash = value.find('/', start);
    const auto item =
        value.substr(start, slash == std::string_view::npos ? value.npos : slash - start);
    OCCAM_ASSIGN_OR_RETURN(Axis axis, ParseAxis(item));
    for (Axis seen : plan.order) {
      if (seen == axis) return FieldError("order", "axis '" + std::string(item) + "' repeated");
    }
    plan.order.push_back(axis);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return Status::Ok();
}

// "stages=4/4/4/3" (layers per pipeline chunk).
Status ParseStages(std::string_view value, PlanSpec& plan) {
  plan.stage_layers.clear();
  size_t start = 0;
  while (start <= value.size()) {
    const size_t slash = value.find('/', start);
    const auto item =
        value.substr(start, slash == std::string_view::npos ? value.npos : slash - start);
    OCCAM_ASSIGN_OR_RETURN(int64_t n, ParseCount("stages", item, 0));
    plan.stage_layers.push_back(n);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return Status::Ok();
}

// "1"/"true" or "0"/"false".
Status ParseBool(std::string_view field, std::string_view value, bool& out) {
  if (value == "true" || value == "1") {
    out = true;
  } else if (value == "false" || value == "0") {
    out = false;
  } else {
    return FieldError(field, "'" + std::string(value) + "' is not true or false (or 1 or 0)");
  }
  return Status::Ok();
}

Status ApplyField(std::string_view key, std::string_view value, PlanSpec& plan) {
  auto count = [&](int64_t& out, int64_t min) -> Status {
    OCCAM_ASSIGN_OR_RETURN(out, ParseCount(key, value, min));
    return Status::Ok();
  };
  if (key == "tp") return count(plan.tp, 1);
  if (key == "cp") return count(plan.cp, 1);
  if (key == "pp") return count(plan.pp, 1);
  if (key == "vpp") return count(plan.vpp, 1);
  if (key == "dp") return count(plan.dp, 1);
  if (key == "ep") return count(plan.ep, 1);
  if (key == "etp") return count(plan.etp, 1);
  if (key == "mbs") return count(plan.mbs, 1);
  if (key == "hsdp") return count(plan.hsdp, 0);
  if (key == "first_layers") return count(plan.first_layers, 1);
  if (key == "last_layers") return count(plan.last_layers, 1);
  if (key == "zero") {
    int64_t z = 0;
    OCCAM_RETURN_IF_ERROR(count(z, 0));
    if (z > 3) return FieldError(key, "must be 0, 1, 2 or 3 (got " + std::to_string(z) + ")");
    plan.zero = static_cast<int>(z);
    return Status::Ok();
  }
  if (key == "recompute") {
    // A '+'-joined list of Megatron-LM recompute modules, or a policy name.
    if (const std::optional<unsigned> m = ParseRecomputeModules(value)) {
      plan.recompute = Recompute::kModules;
      plan.recompute_modules = *m;
      return Status::Ok();
    }
    auto r = ParseRecomputeName(value);
    if (!r || *r == Recompute::kModules) {
      return FieldError(key, "'" + std::string(value) +
                                 "' is not none, selective, selective_op, full or a '+'-joined "
                                 "list of modules (" +
                                 RecomputeModuleNames() + ")");
    }
    plan.recompute = *r;
    plan.recompute_modules = 0;
    return Status::Ok();
  }
  if (key == "offload") {
    if (value == "none") {
      plan.offload_modules = 0;
      return Status::Ok();
    }
    const std::optional<unsigned> m = ParseOffloadModules(value);
    if (!m) {
      return FieldError(key, "'" + std::string(value) +
                                 "' is not none or a '+'-joined list of expert_fc1, moe_act");
    }
    plan.offload_modules = *m;
    return Status::Ok();
  }
  if (key == "schedule") {
    auto s = ParseScheduleName(value);
    if (!s) {
      return FieldError(key, "'" + std::string(value) +
                                 "' is not one of none, gpipe (afab), 1f1b, interleaved, zb-h1, "
                                 "zbv, dualpipe, dualpipev");
    }
    plan.schedule = *s;
    return Status::Ok();
  }
  if (key == "sp") return ParseBool(key, value, plan.sp);
  if (key == "a2a_overlap") {
    const auto o = ParseEpOverlapName(value);
    if (!o) {
      return FieldError(key, "'" + std::string(value) +
                                 "' is not one of 1f1b (or 1, true), tbo, shared, none (or 0, "
                                 "false)");
    }
    plan.a2a_overlap = *o;
    return Status::Ok();
  }
  if (key == "mesh") {
    const auto m = ParseTorusMappingName(value);
    if (!m) return FieldError(key, "'" + std::string(value) + "' is not one of linear, compact");
    plan.mesh = *m;
    return Status::Ok();
  }
  if (key == "order") return ParseOrder(value, plan);
  if (key == "stages") return ParseStages(value, plan);
  return FieldError(key, "unknown field (known: " + std::string(kPlanFields) + ")");
}

}  // namespace

Result<PlanSpec> ParsePlan(std::string_view text) {
  PlanSpec plan;
  if (text.empty()) return InvalidInput("plan is empty (e.g. \"tp=8,pp=1,dp=16,zero=1,mbs=1\")");
  if (text.size() > 4096) return InvalidInput("plan string is longer than 4096 characters");
  bool schedule_given = false;
  std::vector<std::string_view> seen;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    auto item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      return InvalidInput("plan item '" + std::string(item) +
                          "' is not key=value (e.g. \"tp=8,dp=16\")");
    }
    const auto key = item.substr(0, eq);
    const auto value = item.substr(eq + 1);
    for (std::string_view k : seen) {
      if (k == key) return FieldError(key, "given twice");
    }
    seen.push_back(key);
    OCCAM_RETURN_IF_ERROR(ApplyField(key, value, plan));
    if (key == "schedule") schedule_given = true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!schedule_given) plan.schedule = plan.pp > 1 ? Schedule::k1F1B : Schedule::kNone;
  return plan;
}

std::string FormatPlan(const PlanSpec& p) {
  std::string s = "tp=" + std::to_string(p.tp);
  if (p.cp != 1) s += ",cp=" + std::to_string(p.cp);
  s += ",pp=" + std::to_string(p.pp);
  if (p.vpp != 1) s += ",vpp=" + std::to_string(p.vpp);
  s += ",dp=" + std::to_string(p.dp);
  if (p.ep != 1) s += ",ep=" + std::to_string(p.ep);
  if (p.etp != 1) s += ",etp=" + std::to_string(p.etp);
  s += ",zero=" + std::to_string(p.zero);
  if (p.hsdp != 0) s += ",hsdp=" + std::to_string(p.hsdp);
  s += ",mbs=" + std::to_string(p.mbs);
  s += ",recompute=" + (p.recompute == Recompute::kModules
                            ? RecomputeModulesName(p.recompute_modules)
                            : std::string(RecomputeName(p.recompute)));
  if (p.offload_modules != 0) s += ",offload=" + OffloadModulesName(p.offload_modules);
  s += ",schedule=" + std::string(ScheduleName(p.schedule));
  if (!p.sp) s += ",sp=false";
  if (p.a2a_overlap == EpOverlap::kCombined1F1B) s += ",a2a_overlap=1";
  if (p.a2a_overlap > EpOverlap::kCombined1F1B) {
    s += ",a2a_overlap=" + std::string(EpOverlapName(p.a2a_overlap));
  }
  if (p.mesh != TorusMapping::kLinear) s += ",mesh=" + std::string(TorusMappingName(p.mesh));
  if (!p.order.empty()) {
    s += ",order=";
    for (size_t i = 0; i < p.order.size(); ++i) {
      if (i) s += "/";
      s += AxisName(p.order[i]);
    }
  }
  if (p.first_layers > 0) s += ",first_layers=" + std::to_string(p.first_layers);
  if (p.last_layers > 0) s += ",last_layers=" + std::to_string(p.last_layers);
  if (!p.stage_layers.empty()) {
    s += ",stages=";
    for (size_t i = 0; i < p.stage_layers.size(); ++i) {
      if (i) s += "/";
      s += std::to_string(p.stage_layers[i]);
    }
  }
  return s;
}

}  // namespace occam

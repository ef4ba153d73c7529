// Budget inputs: the user's values checked, the rest filled from the cited
// defaults of budget/defaults.h, each recorded for the report.
#include <cmath>
#include <string>

#include "budget/defaults.h"
#include "occam/budget.h"

namespace occam {
namespace {

std::string Flag(const std::string& key) {
  std::string f = "--" + key;
  for (char& c : f) {
    if (c == '_') c = '-';
  }
  return f;
}

// "key (--flag) must be in [lo, hi] (got v)".
Status CheckRange(const std::string& key, double v, double lo, double hi, bool open_lo) {
  const bool ok = std::isfinite(v) && (open_lo ? v > lo : v >= lo) && v <= hi;
  if (ok) return Status::Ok();
  return InvalidInput(key + " (" + Flag(key) + ") must be a finite number " +
                      (open_lo ? "> " : ">= ") + std::to_string(lo) +
                      " and <= " + std::to_string(hi) + " (got " + std::to_string(v) + ")");
}

struct Resolver {
  const BudgetOptions& o;
  BudgetAssumptions a;

  // The given value (checked) or the default; records the input.
  Result<double> Take(const std::string& key, const std::optional<double>& given,
                      const budget::Cited& fallback, const std::string& unit, double lo, double hi,
                      bool open_lo) {
    if (given) {
      OCCAM_RETURN_IF_ERROR(CheckRange(key, *given, lo, hi, open_lo));
      a.inputs.push_back({key, *given, unit, false, "given"});
      return *given;
    }
    a.inputs.push_back({key, fallback.value, unit, true, fallback.source});
    return fallback.value;
  }
};

Status ResolveEnergy(Resolver& r, const ChipSpec& chip) {
  const BudgetOptions& o = r.o;
  BudgetAssumptions& a = r.a;
  if (o.chip_watts) {
    OCCAM_RETURN_IF_ERROR(CheckRange("chip_watts", *o.chip_watts, 0, 1e5, true));
    a.chip_watts = *o.chip_watts;
    a.inputs.push_back({"chip_watts", *o.chip_watts, "W", false, "given"});
  } else if (auto w = budget::DefaultChipWatts(chip)) {
    a.chip_watts = w->value;
    a.inputs.push_back({"chip_watts", w->value, "W", true, w->source});
  } else {
    a.inputs.push_back({"chip_watts", NAN, "W", true,
                        "not published for " + chip.key + ": give --chip-watts for energy"});
  }
  OCCAM_ASSIGN_OR_RETURN(a.busy_power_fraction,
                         r.Take("busy_power_fraction", o.busy_power_fraction,
                                budget::DefaultBusyPowerFraction(), "", 0, 2, false));
  OCCAM_ASSIGN_OR_RETURN(a.wait_power_fraction,
                         r.Take("wait_power_fraction", o.wait_power_fraction,
                                budget::DefaultWaitPowerFraction(), "", 0, 2, false));
  OCCAM_ASSIGN_OR_RETURN(a.host_power_share,
                         r.Take("host_power_share", o.host_power_share,
                                budget::DefaultHostPowerShare(), "", 0, 10, false));
  OCCAM_ASSIGN_OR_RETURN(a.pue, r.Take("pue", o.pue, budget::DefaultPue(chip), "", 1, 5, false));
  if (o.price_per_chip_hour) {
    OCCAM_RETURN_IF_ERROR(CheckRange("price_per_chip_hour", *o.price_per_chip_hour, 0, 1e6, true));
    a.price_per_chip_hour = *o.price_per_chip_hour;
    a.inputs.push_back(
        {"price_per_chip_hour", *o.price_per_chip_hour, "per chip-hour", false, "given"});
  }
  return Status::Ok();
}

Status ResolveFailures(Resolver& r, const ChipSpec& chip) {
  const BudgetOptions& o = r.o;
  BudgetAssumptions& a = r.a;
  OCCAM_ASSIGN_OR_RETURN(a.chip_failures_per_hour,
                         r.Take("chip_failures_per_hour", o.chip_failures_per_hour,
                                budget::DefaultChipFailuresPerHour(), "1/h", 0, 1, false));
  OCCAM_ASSIGN_OR_RETURN(a.node_failures_per_hour,
                         r.Take("node_failures_per_hour", o.node_failures_per_hour,
                                budget::DefaultNodeFailuresPerHour(), "1/h", 0, 1, false));
  std::optional<double> per_node;
  if (o.chips_per_node) per_node = static_cast<double>(*o.chips_per_node);
  OCCAM_ASSIGN_OR_RETURN(
      const double cpn,
      r.Take("chips_per_node", per_node, budget::DefaultChipsPerNode(chip), "", 1, 1 << 20, false));
  a.chips_per_node = static_cast<int64_t>(cpn);
  OCCAM_ASSIGN_OR_RETURN(
      const double gbps,
      r.Take("storage_gbps", o.storage_gbps, budget::DefaultStorageGbps(), "GB/s", 0, 1e9, true));
  a.storage_bandwidth = GBps(gbps);
  OCCAM_ASSIGN_OR_RETURN(const double restart,
                         r.Take("restart_overhead_s", o.restart_overhead_s,
                                budget::DefaultRestartOverheadS(), "s", 0, 1e7, false));
  a.restart_overhead = Seconds(restart);
  return Status::Ok();
}

Status ResolveCheckpoint(Resolver& r) {
  const BudgetOptions& o = r.o;
  BudgetAssumptions& a = r.a;
  a.async_checkpoint = o.async_checkpoint;
  a.inputs.push_back({"async_checkpoint", o.async_checkpoint ? 1.0 : 0.0, "", !o.async_checkpoint,
                      o.async_checkpoint ? "given" : "synchronous checkpoints"});
  if (o.async_stall_s && !o.async_checkpoint) {
    return InvalidInput("async_stall_s (--async-stall-s) applies only with --async-checkpoint");
  }
  if (o.async_checkpoint) {
    OCCAM_ASSIGN_OR_RETURN(
        const double stall,
        r.Take("async_stall_s", o.async_stall_s, budget::DefaultAsyncStallS(), "s", 0, 1e6, false));
    a.async_stall = Seconds(stall);
  }
  if (o.checkpoint_interval_s) {
    OCCAM_RETURN_IF_ERROR(
        CheckRange("checkpoint_interval_s", *o.checkpoint_interval_s, 0, 1e9, true));
    a.checkpoint_interval = Seconds(*o.checkpoint_interval_s);
    a.inputs.push_back({"checkpoint_interval_s", *o.checkpoint_interval_s, "s", false, "given"});
  }
  OCCAM_ASSIGN_OR_RETURN(a.spare_fraction, r.Take("spare_fraction", o.spare_fraction,
                                                  budget::DefaultSpareFraction(), "", 0, 1, false));
  return Status::Ok();
}

}  // namespace

std::string BudgetObjectiveName(BudgetObjective o) {
  switch (o) {
    case BudgetObjective::kTime:
      return "time";
    case BudgetObjective::kCost:
      return "cost";
    case BudgetObjective::kEnergy:
      return "energy";
  }
  return "time";
}

Result<BudgetAssumptions> ResolveBudget(const BudgetOptions& options, const ChipSpec& chip) {
  OCCAM_RETURN_IF_ERROR(CheckRange("tokens", options.tokens, 0, 1e18, true));
  Resolver r{options, {}};
  r.a.tokens = options.tokens;
  r.a.inputs.push_back({"tokens", options.tokens, "tokens", false, "given"});
  OCCAM_RETURN_IF_ERROR(ResolveEnergy(r, chip));
  OCCAM_RETURN_IF_ERROR(ResolveFailures(r, chip));
  OCCAM_RETURN_IF_ERROR(ResolveCheckpoint(r));
  return std::move(r.a);
}

Status CheckObjective(const BudgetAssumptions& a, BudgetObjective objective) {
  if (objective == BudgetObjective::kCost && !a.price_per_chip_hour) {
    return InvalidInput(
        "--objective cost needs a price: give --price-per-chip-hour (occam has no default prices)");
  }
  if (objective == BudgetObjective::kEnergy && !a.chip_watts) {
    return InvalidInput("--objective energy needs the chip's power: give --chip-watts");
  }
  return Status::Ok();
}

}  // namespace occam

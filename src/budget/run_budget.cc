// The whole run of one estimated layout: checkpoint size and times, the
// failure rate of the job, Daly's interval and goodput, and the days,
// chip-hours, energy and money that follow. Formulas: doc/budget.md.
//
// Symbols: N chips in the job, n nodes = ceil(N / chips_per_node), lambda_c
// and lambda_n failures per chip-hour and node-hour, M = 1 / (N lambda_c +
// n lambda_n), delta checkpoint stall, R restart cost, tau interval, T_s
// failure-free compute, G goodput, T_w = T_s / G.
#include <algorithm>
#include <cmath>
#include <limits>

#include "budget/goodput.h"
#include "occam/budget.h"
#include "occam/cost.h"

namespace occam {
namespace {

constexpr double kJoulesPerMwh = 3.6e9;

// Checkpointed state: the master weights and Adam moments (the optimizer
// term, 12 B/param) and the 16-bit working weights (2 B/param), as BLOOM's
// 2.3 TB for 176B parameters measured (bigscience tr11-176B-ml README,
// "Checkpoints": 14 B/param). Sharding changes who writes, not the total.
// The most loaded chip's unique share is its optimizer shard scaled by
// 14/12 (the working weights shard like the master copy once replicas are
// written once, as PyTorch DCP deduplicates); replicated state (ZeRO-0, or
// HSDP's replica groups) divides by the replicas.
CheckpointFigures CheckpointOf(const Estimate& e, const ModelSpec& model,
                               const BudgetAssumptions& a) {
  const StateBytesPerParam b;
  const double per_param = b.weight + b.optimizer;
  const ParamCounts c = CountParams(model);
  const PlanSpec& p = e.plan;
  const double chips = static_cast<double>(p.chips());
  double replicas = 1;
  if (p.zero == 0) replicas = static_cast<double>(p.dp * p.cp);
  if (p.zero > 0 && p.hsdp > 0) replicas = static_cast<double>(p.dp * p.cp) / p.hsdp;
  CheckpointFigures f;
  f.total = Bytes(static_cast<double>(c.total + c.mtp) * per_param);
  f.per_chip = Max(e.memory.optimizer * (per_param / b.optimizer) / std::max(replicas, 1.0),
                   f.total / chips);
  // Every chip writes its share through the shared storage bandwidth: the
  // most loaded chip finishes last.
  f.write = (f.per_chip * chips) / a.storage_bandwidth;
  f.restore = f.write;
  f.stall = a.async_checkpoint ? a.async_stall : f.write;
  return f;
}

struct Waste {
  GoodputFigures g;
  Seconds tau, young, daly;
};

Waste GoodputOf(Seconds compute, const CheckpointFigures& ck, const ClusterSpec& cluster,
                const BudgetAssumptions& a) {
  Waste w;
  const double n = static_cast<double>(cluster.num_chips);
  const double nodes = std::ceil(n / static_cast<double>(a.chips_per_node));
  w.g.failures_per_hour = n * a.chip_failures_per_hour + nodes * a.node_failures_per_hour;
  w.g.mtbf = w.g.failures_per_hour > 0 ? Seconds(3600.0 / w.g.failures_per_hour)
                                       : Seconds(std::numeric_limits<double>::infinity());
  // Async: the newest checkpoint is durable only after its write, so a
  // failure loses that much more work.
  w.g.restart = a.restart_overhead + ck.restore + (a.async_checkpoint ? ck.write : Seconds(0));
  const bool failures = std::isfinite(w.g.mtbf.value());
  w.young = failures ? budget::YoungInterval(ck.stall, w.g.mtbf) : compute;
  w.daly = failures ? budget::DalyInterval(ck.stall, w.g.mtbf) : compute;
  Seconds tau = a.checkpoint_interval ? *a.checkpoint_interval : w.daly;
  if (a.async_checkpoint) tau = Max(tau, ck.write);  // a save must land before the next
  w.tau = Max(Min(tau, compute), Seconds(1));
  w.g.goodput = budget::DalyGoodput(w.tau, ck.stall, w.g.mtbf, w.g.restart);
  const Seconds wall = compute / w.g.goodput;
  w.g.expected_failures = failures ? wall / w.g.mtbf : 0.0;
  w.g.lost = wall - compute;
  w.g.lost_checkpoints = ck.stall * (compute / w.tau);
  w.g.lost_restarts = w.g.restart * w.g.expected_failures;
  w.g.lost_rework = Max(w.g.lost - w.g.lost_checkpoints - w.g.lost_restarts, Seconds(0));
  return w;
}

void EnergyAndMoney(RunBudget& r, const BudgetAssumptions& a) {
  r.chip_hours = r.chips_allocated * r.wall.value() / 3600.0;
  if (a.price_per_chip_hour) r.money = r.chip_hours * *a.price_per_chip_hour;
  if (!a.chip_watts) return;
  const GoodputFigures& g = r.goodput;
  const double busy = (r.compute + g.lost_rework).value();
  const double wait = (g.lost_checkpoints + g.lost_restarts).value();
  const double spares = r.chips_allocated - static_cast<double>(r.chips);
  const double joules =
      *a.chip_watts * (static_cast<double>(r.chips) *
                           (a.busy_power_fraction * busy + a.wait_power_fraction * wait) +
                       spares * a.wait_power_fraction * r.wall.value());
  r.energy_chip_mwh = joules / kJoulesPerMwh;
  r.energy_facility_mwh = *r.energy_chip_mwh * (1.0 + a.host_power_share) * a.pue;
}

}  // namespace

Result<RunBudget> BudgetRun(const Estimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                            const JobSpec& job, const BudgetAssumptions& a) {
  if (!e.fits) return InvalidInput("layout " + FormatPlan(e.plan) + " does not fit in memory");
  if (!(e.tokens_per_s > 0)) return Internal("estimate without throughput");
  RunBudget r;
  r.plan = e.plan;
  r.chips = cluster.num_chips;
  r.chips_allocated = static_cast<double>(r.chips) * (1.0 + a.spare_fraction);
  r.step_time = e.step_time;
  r.mfu = e.mfu;
  r.tokens_per_s = e.tokens_per_s;
  r.steps = a.tokens / static_cast<double>(job.global_batch_tokens());
  r.compute = Seconds(a.tokens / e.tokens_per_s);
  r.checkpoint = CheckpointOf(e, model, a);
  const Waste w = GoodputOf(r.compute, r.checkpoint, cluster, a);
  r.goodput = w.g;
  r.checkpoint.interval = w.tau;
  r.checkpoint.young = w.young;
  r.checkpoint.daly = w.daly;
  r.wall = r.compute / r.goodput.goodput;
  r.days = r.wall.value() / 86400.0;
  EnergyAndMoney(r, a);
  return r;
}

Result<double> ObjectiveValue(const RunBudget& r, BudgetObjective objective) {
  switch (objective) {
    case BudgetObjective::kTime:
      return r.wall.value();
    case BudgetObjective::kCost:
      if (!r.money) return InvalidInput("--objective cost needs --price-per-chip-hour");
      return *r.money;
    case BudgetObjective::kEnergy:
      if (!r.energy_facility_mwh) return InvalidInput("--objective energy needs --chip-watts");
      return *r.energy_facility_mwh;
  }
  return Internal("unknown objective");
}

}  // namespace occam

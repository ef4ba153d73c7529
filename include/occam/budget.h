// The whole run: for a token budget, the wall-clock days, chip-hours,
// energy and money of a layout, and the goodput left after failures,
// checkpoints and restarts (doc/budget.md has every formula and default with
// its source). Builds on the planner: at a chip count it re-ranks the
// planner's best layouts by the whole-run objective; with a deadline it finds
// the fewest chips that finish in time; with a chip limit, the best run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "occam/search.h"
#include "occam/spec.h"
#include "occam/status.h"
#include "occam/step.h"
#include "occam/units.h"

namespace occam {

// What the user gave. An empty optional means "use the cited default for
// this chip" (BudgetDefaults); there is no default price.
struct BudgetOptions {
  double tokens = 0;  // training tokens (required, > 0)
  // Energy: chip power x power fraction, plus host and network share, x PUE.
  std::optional<double> chip_watts;           // chip TDP, W
  std::optional<double> busy_power_fraction;  // of TDP while computing (incl. rework)
  std::optional<double> wait_power_fraction;  // of TDP while blocked (checkpoint, restart)
  std::optional<double> host_power_share;     // host + network + storage, as a fraction of TDP
  std::optional<double> pue;                  // facility / IT energy
  std::optional<double> price_per_chip_hour;  // money; no default
  // Failures: a rate per chip and a rate per node (host), per hour.
  std::optional<double> chip_failures_per_hour;
  std::optional<double> node_failures_per_hour;
  std::optional<int64_t> chips_per_node;
  // Checkpoints and restarts.
  std::optional<double> storage_gbps;           // aggregate checkpoint storage bandwidth, 1e9 B/s
  std::optional<double> restart_overhead_s;     // detect + replace + re-initialise (load excluded)
  bool async_checkpoint = false;                // training blocks only for the stall below
  std::optional<double> async_stall_s;          // blocking time of one async checkpoint
  std::optional<double> checkpoint_interval_s;  // empty: Daly's optimum
  std::optional<double> spare_fraction;         // allocated spare chips, fraction of the job's
};

enum class BudgetObjective { kTime, kCost, kEnergy };
// "time", "cost", "energy".
std::string BudgetObjectiveName(BudgetObjective o);

// One input as used: its value, unit, and where it came from.
struct BudgetInput {
  std::string key;  // snake_case, as in BudgetOptions ("pue", "chip_watts", ...)
  double value = 0;
  std::string unit;  // "W", "1/h", "s", "", ...
  bool is_default = false;
  std::string source;  // citation for a default; "given" for a user value
};

// The inputs resolved for one chip: every BudgetOptions field with a value.
// chip_watts is empty when the chip has no published power and none was
// given (energy is then not reported).
struct BudgetAssumptions {
  double tokens = 0;
  std::optional<double> chip_watts;
  double busy_power_fraction = 1, wait_power_fraction = 1, host_power_share = 0, pue = 1;
  std::optional<double> price_per_chip_hour;
  double chip_failures_per_hour = 0, node_failures_per_hour = 0;
  int64_t chips_per_node = 8;
  BytesPerSecond storage_bandwidth;
  Seconds restart_overhead;
  bool async_checkpoint = false;
  Seconds async_stall;
  std::optional<Seconds> checkpoint_interval;
  double spare_fraction = 0;
  std::vector<BudgetInput> inputs;  // every value above, in report order
};

// Fills the defaults of `options` for `chip`; checks every value (negative,
// NaN, out of range → InvalidInput naming the option).
Result<BudgetAssumptions> ResolveBudget(const BudgetOptions& options, const ChipSpec& chip);

struct CheckpointFigures {
  Bytes total;       // weights + optimizer state of the whole model (bytes/param x params)
  Bytes per_chip;    // unique bytes on the most loaded chip (replicas written once)
  Seconds write;     // total written at the storage bandwidth, slowest chip's share
  Seconds restore;   // the same read back after a failure
  Seconds stall;     // delta: training blocked per checkpoint (write, or the async stall)
  Seconds interval;  // tau: compute between checkpoints (Daly, or given)
  Seconds young;     // sqrt(2 delta M) (Young 1974)
  Seconds daly;      // Daly 2006 higher-order optimum
};

struct GoodputFigures {
  double failures_per_hour = 0;  // whole job: chips x chip rate + nodes x node rate
  Seconds mtbf;                  // M = 1 / failures_per_hour
  Seconds restart;               // R = restart overhead + restore (+ async persist)
  double goodput = 1;            // useful compute / wall time
  double expected_failures = 0;  // wall / M
  Seconds lost;                  // wall - compute
  Seconds lost_checkpoints;      // stalls: (compute / tau) x delta
  Seconds lost_restarts;         // expected_failures x R
  Seconds lost_rework;           // the rest: work redone after failures
};

// The whole run of one layout.
struct RunBudget {
  PlanSpec plan;
  int64_t chips = 0;           // in the job
  double chips_allocated = 0;  // with spares (chip-hours, energy, money)
  Seconds step_time;
  double mfu = 0;
  double tokens_per_s = 0;
  double steps = 0;  // tokens / global batch tokens
  Seconds compute;   // failure-free: tokens / tokens_per_s
  Seconds wall;      // compute / goodput
  double days = 0;
  double chip_hours = 0;                      // chips_allocated x wall
  std::optional<double> energy_chip_mwh;      // chip power only (model-card convention)
  std::optional<double> energy_facility_mwh;  // + host share, x PUE
  std::optional<double> money;                // chip_hours x price
  CheckpointFigures checkpoint;
  GoodputFigures goodput;
};

// The whole-run figures of one estimated layout. REQUIRES: e.fits.
Result<RunBudget> BudgetRun(const Estimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                            const JobSpec& job, const BudgetAssumptions& a);

// Objective value (lower is better): wall seconds, money, facility energy.
// Cost needs a price and energy a chip power (InvalidInput naming the option).
Result<double> ObjectiveValue(const RunBudget& r, BudgetObjective objective);
Status CheckObjective(const BudgetAssumptions& a, BudgetObjective objective);

// How chips are chosen.
enum class ChipMode {
  kFixed,     // at `chips`
  kDeadline,  // fewest chips (up to max_chips when > 0) that finish in `days`
  kMaxChips,  // best objective at up to max_chips
};

struct BudgetQuery {
  ChipMode mode = ChipMode::kFixed;
  int64_t chips = 0;
  double days = 0;
  int64_t max_chips = 0;
  BudgetObjective objective = BudgetObjective::kTime;
  int64_t layouts = 20;  // planner layouts per chip count re-ranked by the objective
};

// The cluster at a chip count, or why that count is not allowed (a template
// sized by CatalogCluster, a cluster file cut to fewer chips).
using ClusterAtChips = std::function<Result<ClusterSpec>(int64_t chips)>;

// One chip count tried.
struct ChipCountRow {
  int64_t chips = 0;
  std::optional<RunBudget> best;  // best layout there by the objective
  std::string error;              // why there is none (nothing fits, count not allowed)
};

struct BudgetResult {
  BudgetQuery query;
  std::vector<BudgetInput> inputs;    // the resolved assumptions (of the answer's chip)
  std::optional<RunBudget> best;      // the answer
  std::vector<RunBudget> layouts;     // at the answer's chip count, ranked by the objective
  std::vector<ChipCountRow> scanned;  // chip counts tried (deadline / max-chips), ascending
  std::vector<std::string> notes;
};

// The candidate chip counts up to `max_chips`: m x 2^k for m in {4,5,6,7}
// (four per doubling) plus 1, 2, 3 and max_chips itself, ascending.
std::vector<int64_t> CandidateChipCounts(int64_t max_chips);

// Runs the query. Search options apply to every planner call (its `top` is
// replaced by query.layouts). Infeasible when no chip count has an answer.
Result<BudgetResult> RunBudgetQuery(const ModelSpec& model, const ClusterAtChips& cluster_at,
                                    const JobSpec& job, const BudgetOptions& options,
                                    const SearchOptions& search, const BudgetQuery& query);

}  // namespace occam

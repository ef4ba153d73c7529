// Checkpoint interval and goodput under exponential (Poisson) failures.
//
// Symbols: M mean time between failures of the whole job, delta the time
// training is blocked per checkpoint, R the restart cost after a failure
// (failures may also strike during the restart), tau the compute between
// checkpoints, T_s the failure-free compute of the run, T_w its expected
// wall time. Sources: Young, "A first order approximation to the optimum
// checkpoint interval", CACM 17(9), 1974; Daly, "A higher order estimate of
// the optimum checkpoint interval for restart dumps", Future Generation
// Computer Systems 22(3), 2006 (doc/budget.md § Goodput).
#pragma once

#include "occam/units.h"

namespace occam::budget {

// Young 1974: tau = sqrt(2 delta M). REQUIRES: delta >= 0, M > 0.
Seconds YoungInterval(Seconds delta, Seconds mtbf);

// Daly 2006, Eq. for the higher-order optimum:
//   tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M) + (1/9) (delta / 2M)] - delta
// for delta < 2M, and tau = M otherwise. REQUIRES: delta >= 0, M > 0.
Seconds DalyInterval(Seconds delta, Seconds mtbf);

// Daly 2006 expected wall time of T_s of compute, checkpointing every tau:
//   T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau
// and the goodput T_s / T_w = tau / (M e^(R/M) (e^((tau + delta)/M) - 1)).
// An infinite M (no failures) gives tau / (tau + delta).
// REQUIRES: tau > 0, delta >= 0, R >= 0, M > 0 (or infinite).
double DalyGoodput(Seconds tau, Seconds delta, Seconds mtbf, Seconds restart);

}  // namespace occam::budget

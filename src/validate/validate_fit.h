// The calibration fit: one procedure behind the catalog's fitted values
// (occam validate --fit, data/calibration.yaml) and every fold of the
// leave-one-source-out cross-validation (validate_cv.cc), so that the
// out-of-sample figures measure the procedure the catalog came from
// (doc/validation.md, "Calibration fit").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "occam/validate.h"
#include "validate/validate_internal.h"

namespace occam::validate {

// A chip family is fitted only with at least this many training runs;
// otherwise it keeps its prior.
inline constexpr int64_t kMinFitRuns = 3;

// Families whose calibration is a transfer from the h100 fit (the measured
// plateau times the h100 fit's efficiency over its measured plateau; the
// shape parameters and the host time taken over), never fitted on their own
// runs: the same tensor cores and software under another power or clock.
bool TransfersFromH100(const std::string& family);

// The four override lines that set a family's point.
std::vector<CalibrationOverride> Overrides(const std::string& family, const CalibrationPoint& p);

// Every run set up and its layout chosen under the prior calibration (no
// fitted value takes part in choosing a training run's layout). A family's
// prior point and measured plateau are read off its first run's chip.
struct PreparedSet {
  std::vector<Result<PreparedRun>> runs;
  std::vector<std::string> family;
  std::map<std::string, CalibrationPoint> prior;  // by family
  std::map<std::string, double> cap;              // measured plateau, 0 = none
};
PreparedSet PrepareAll(const std::vector<PublishedRun>& runs, const ValidateOptions& options);

// Fits one family's point on `train` (doc/validation.md, "Calibration fit").
// Fewer than kMinFitRuns runs: the prior, unchanged.
FamilyFit FitFamily(const std::vector<PreparedRun*>& train, const std::string& family,
                    const CalibrationPoint& prior, double cap, bool moe, ThreadPool& pool);

// Every fitted family (at least kMinFitRuns predicted throughput runs in
// the whole set, not a transfer) fitted on its runs that `use(i)` admits.
// `whole` caches the fits on all of a family's runs: a family none of whose
// runs `use` leaves out takes its fit from there (or stores it there).
struct FamilyFits {
  std::map<std::string, FamilyFit> fit;  // by family
  std::vector<std::string> partial;      // families some of whose runs `use` left out
};
FamilyFits FitFamilies(const std::vector<PublishedRun>& runs, PreparedSet& prep,
                       const std::function<bool(size_t)>& use, ThreadPool& pool,
                       std::map<std::string, FamilyFit>* whole);

// The transfer families' points from an h100 point (TransfersFromH100),
// each family's measured plateau read from the chip catalog.
std::map<std::string, CalibrationPoint> TransfersOf(const CalibrationPoint& h100);

}  // namespace occam::validate

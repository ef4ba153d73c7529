// The calibration fit (doc/validation.md, "Calibration fit"). Per chip
// family, on its training runs: the point (efficiency, half_tokens,
// half_width, moe_dispatch_host_ms) with the smallest median |relative
// error|, found by coordinate descent from the prior (PriorCalibration):
// each round tries every grid value of one coordinate at a time and moves
// only on a strictly smaller median, so ties keep the point nearer the
// prior, until a round moves nothing. The host time takes part only for
// families with MoE runs. The efficiency never exceeds the chip's measured
// matmul plateau. Runs that fail to evaluate at a point count as 100% off
// there, so a point never wins by dropping them.
//
// Why descent from the prior and not a global grid search: along the ridge
// on which the plateau and the width half-point trade off the median is
// nearly flat, and a global search lands wherever on it the grid happens to
// be lowest, at the grid's edge for a chip with no measured plateau to cap
// it (TPU v5e at efficiency 0.95 with half width 768, above any TPU's
// measured matmul rate). Descent stops at the first point of the ridge it
// reaches from the measured prior (doc/validation.md, "Calibration fit").

#include "validate/validate_fit.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace occam::validate {
namespace {

// The grids: efficiency 0.40 to 0.95 in 0.01 steps up to the plateau (the
// plateau itself included), half_tokens and half_width as listed, the host
// time 0 to 12 ms in 0.5 ms steps.
std::vector<double> Efficiencies(double cap) {
  std::vector<double> v;
  for (int i = 0; i <= 55; ++i) {
    const double e = 0.40 + 0.01 * i;
    if (cap <= 0 || e < cap - 1e-12) v.push_back(e);
  }
  if (cap > 0 && cap <= 0.95) v.push_back(cap);
  return v;
}
constexpr const char* kH100Transfers[] = {"h100-96g", "h800", "h200", "b200", "gb200", "gb300"};
const std::vector<double> kHalfTokens = {0, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
const std::vector<double> kHalfWidths = {0, 32, 64, 128, 256, 384, 512, 768, 1024};
std::vector<double> HostMs() {
  std::vector<double> v;
  for (int i = 0; i <= 24; ++i) v.push_back(0.5 * i);
  return v;
}
constexpr int kMaxRounds = 4;

// Median |error| of `runs` at point p.
double Objective(const std::vector<PreparedRun*>& runs, const std::string& family,
                 const CalibrationPoint& p, ThreadPool& pool) {
  std::vector<double> err(runs.size(), 1.0);
  const std::vector<CalibrationOverride> o = Overrides(family, p);
  pool.ParallelFor(static_cast<int64_t>(runs.size()), [&](int64_t i) {
    const Result<double> e = PredictedRelError(*runs[static_cast<size_t>(i)], o);
    if (e.ok() && std::isfinite(*e)) err[static_cast<size_t>(i)] = std::fabs(*e);
  });
  return Percentile(std::move(err), 0.5);
}

struct Descent {
  const std::vector<PreparedRun*>& runs;
  const std::string& family;
  ThreadPool& pool;
  CalibrationPoint best;
  double best_err = 0;

  // Tries every value of one coordinate; moves only on a strictly smaller
  // median (ties keep the current point).
  bool Scan(double CalibrationPoint::*field, const std::vector<double>& values) {
    bool moved = false;
    for (double v : values) {
      if (v == best.*field) continue;
      CalibrationPoint p = best;
      p.*field = v;
      const double e = Objective(runs, family, p, pool);
      if (e < best_err - 1e-12) {
        best = p;
        best_err = e;
        moved = true;
      }
    }
    return moved;
  }
};

CalibrationPoint PointOf(const ChipSpec& chip) {
  return CalibrationPoint{chip.gemm_efficiency, chip.gemm_half_tokens, chip.gemm_half_width,
                          chip.moe_dispatch_host_s * 1e3};
}

}  // namespace

bool TransfersFromH100(const std::string& family) {
  for (const char* f : kH100Transfers) {
    if (family == f) return true;
  }
  return false;
}

std::vector<CalibrationOverride> Overrides(const std::string& family, const CalibrationPoint& p) {
  return {{family, "", "gemm_efficiency", p.efficiency},
          {family, "", "gemm_half_tokens", p.half_tokens},
          {family, "", "gemm_half_width", p.half_width},
          {family, "", "moe_dispatch_host_ms", p.host_ms}};
}

PreparedSet PrepareAll(const std::vector<PublishedRun>& runs, const ValidateOptions& options) {
  PreparedSet p;
  for (const PublishedRun& run : runs) {
    const std::string family = FamilyOf(run.chip_key);
    p.family.push_back(family);
    Result<RunSetup> setup = BuildRunSetup(run);
    if (!setup.ok()) {
      p.runs.push_back(setup.status());
      continue;
    }
    if (!p.prior.count(family)) {
      ClusterSpec catalog = setup->cluster;
      ApplyOverrides(options.overrides, family, &catalog);
      const Result<ChipSpec> prior = PriorCalibration(catalog.chip);
      p.cap[family] = catalog.chip.gemm_measured_plateau;
      if (prior.ok()) p.prior[family] = PointOf(*prior);
    }
    ValidateOptions o = options;
    if (p.prior.count(family)) {
      for (const CalibrationOverride& c : Overrides(family, p.prior[family])) {
        o.overrides.push_back(c);
      }
    }
    p.runs.push_back(PrepareRun(run, o, nullptr));
  }
  return p;
}

FamilyFit FitFamily(const std::vector<PreparedRun*>& train, const std::string& family,
                    const CalibrationPoint& prior, double cap, bool moe, ThreadPool& pool) {
  FamilyFit fit{family, "", prior, static_cast<int64_t>(train.size()), 0};
  if (fit.runs < kMinFitRuns) return fit;
  // The descent starts at or below the cap, as every point it may move to.
  CalibrationPoint start = prior;
  if (cap > 0) start.efficiency = std::min(start.efficiency, cap);
  Descent d{train, family, pool, start, Objective(train, family, start, pool)};
  const std::vector<double> eff = Efficiencies(cap), host = HostMs();
  for (int round = 0; round < kMaxRounds; ++round) {
    bool moved = d.Scan(&CalibrationPoint::efficiency, eff);
    moved = d.Scan(&CalibrationPoint::half_tokens, kHalfTokens) || moved;
    moved = d.Scan(&CalibrationPoint::half_width, kHalfWidths) || moved;
    if (moe) moved = d.Scan(&CalibrationPoint::host_ms, host) || moved;
    if (!moved) break;
  }
  fit.point = d.best;
  fit.median = d.best_err;
  fit.host_fitted = moe;
  return fit;
}

FamilyFits FitFamilies(const std::vector<PublishedRun>& runs, PreparedSet& prep,
                       const std::function<bool(size_t)>& use, ThreadPool& pool,
                       std::map<std::string, FamilyFit>* whole) {
  std::map<std::string, int64_t> count;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (prep.runs[i].ok() && !IsMemoryRun(runs[i])) ++count[prep.family[i]];
  }
  FamilyFits out;
  for (const auto& [family, n] : count) {
    if (n < kMinFitRuns || !prep.prior.count(family) || TransfersFromH100(family)) continue;
    std::vector<PreparedRun*> train;
    bool partial = false, moe = false;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (prep.family[i] != family || !prep.runs[i].ok() || IsMemoryRun(runs[i])) continue;
      if (!use(i)) {
        partial = true;
        continue;
      }
      train.push_back(&*prep.runs[i]);
      moe = moe || runs[i].arch.moe.has_value();
    }
    if (partial) out.partial.push_back(family);
    if (!partial && whole != nullptr && whole->count(family)) {
      out.fit[family] = whole->at(family);
      continue;
    }
    FamilyFit fit = FitFamily(train, family, prep.prior.at(family), prep.cap.at(family), moe, pool);
    if (!partial && whole != nullptr) (*whole)[family] = fit;
    out.fit[family] = fit;
  }
  return out;
}

std::map<std::string, CalibrationPoint> TransfersOf(const CalibrationPoint& h100) {
  std::map<std::string, CalibrationPoint> out;
  const Result<ChipSpec> base = CatalogChip("h100");
  if (!base.ok() || base->gemm_measured_plateau <= 0) return out;
  for (const char* family : kH100Transfers) {
    const Result<ChipSpec> chip = CatalogChip(family);
    if (!chip.ok() || chip->gemm_measured_plateau <= 0) continue;
    CalibrationPoint t = h100;
    t.efficiency = chip->gemm_measured_plateau / base->gemm_measured_plateau * h100.efficiency;
    out[family] = t;
  }
  return out;
}

}  // namespace occam::validate

namespace occam {

FitReport FitCalibration(const std::vector<PublishedRun>& runs, const ValidateOptions& options) {
  validate::PreparedSet prep = validate::PrepareAll(runs, options);
  ThreadPool pool(options.threads);
  FitReport rep;
  const validate::FamilyFits fits = validate::FitFamilies(
      runs, prep, [](size_t) { return true; }, pool, nullptr);
  for (const auto& [family, fit] : fits.fit) rep.fits.push_back(fit);
  if (fits.fit.count("h100")) {
    for (const auto& [family, point] : validate::TransfersOf(fits.fit.at("h100").point)) {
      rep.transfers.push_back(FamilyFit{family, "", point, 0, 0, fits.fit.at("h100").host_fitted});
    }
  }
  return rep;
}

}  // namespace occam

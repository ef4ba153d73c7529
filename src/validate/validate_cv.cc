// Leave-one-source-out cross-validation of the calibration
// (doc/validation.md, "Out of sample"). For each source family S the GEMM
// calibration of every fitted chip family is refitted on the runs of the
// other sources only, and the runs of S are predicted with it.
//
// The fit takes dev/fit_calibration.py's grids and its minimum of runs on
// the training runs alone: per chip family with at least kMinFitRuns
// training runs, the point (efficiency, half_tokens, half_width,
// moe_dispatch_host_ms) with the smallest median |relative error|, found by
// coordinate descent from the data/calibration.yaml prior; ties keep the
// earlier point, so nothing but the training runs decides. It is not the
// script's search: the script grid-searches the three GEMM values jointly
// (coarse, then fine), compares medians in 0.5% steps with the mean breaking
// ties, and fits the host time on its own. Coordinate descent can stop on
// the ridge along which efficiency and half_width trade off
// (doc/validation.md, "Out of sample"). A family with fewer training runs keeps the
// prior; a family whose catalog values are a transfer from a fitted one
// (data/calibration.yaml "transfer:" sources) takes the transfer from that
// family's fold fit.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "occam/validate.h"
#include "validate/validate_internal.h"

namespace occam {
namespace {

using validate::IsMemoryRun;
using validate::PreparedRun;

constexpr int64_t kMinFitRuns = 3;  // as dev/fit_calibration.py MIN_RUNS

// Grids of dev/fit_calibration.py (EFFICIENCIES, HALF_TOKENS, HALF_WIDTHS);
// the host time in 0.5 ms steps up to 12 ms. The plateau stops at the
// chip's measured matmul maximum where there is one (`cap` > 0), the cap
// itself included (the script takes a grid point above it at the cap).
std::vector<double> Efficiencies(double cap) {
  std::vector<double> v;
  for (int i = 0; i <= 55; ++i) {
    const double e = 0.40 + 0.01 * i;
    if (cap <= 0 || e < cap - 1e-12) v.push_back(e);
  }
  if (cap > 0 && cap <= 0.95) v.push_back(cap);
  return v;
}
const std::vector<double> kHalfTokens = {0, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
const std::vector<double> kHalfWidths = {0, 32, 64, 128, 256, 384, 512, 768, 1024};
std::vector<double> HostMs() {
  std::vector<double> v;
  for (int i = 0; i <= 24; ++i) v.push_back(0.5 * i);
  return v;
}

// Families whose catalog calibration is a transfer from the h100 fit
// (data/calibration.yaml: efficiency scaled by the MAMF ratio, the shape
// parameters and the host time taken over).
bool TransfersFromH100(const std::string& family) {
  for (const char* f : {"h100-96g", "h800", "h200", "b200", "gb200", "gb300"}) {
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

// Median |error| of `runs` at point p (runs that fail to evaluate count as
// 100% off, so a point where they fail never wins by dropping them).
double Objective(const std::vector<PreparedRun*>& runs, const std::string& family,
                 const CalibrationPoint& p, ThreadPool& pool) {
  std::vector<double> err(runs.size(), 1.0);
  const std::vector<CalibrationOverride> o = Overrides(family, p);
  pool.ParallelFor(static_cast<int64_t>(runs.size()), [&](int64_t i) {
    const Result<double> e = validate::PredictedRelError(*runs[static_cast<size_t>(i)], o);
    if (e.ok() && std::isfinite(*e)) err[static_cast<size_t>(i)] = std::fabs(*e);
  });
  return validate::Percentile(std::move(err), 0.5);
}

struct Fitter {
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

FamilyFit Fit(const std::vector<PreparedRun*>& runs, const std::string& family,
              const CalibrationPoint& prior, double cap, bool moe, ThreadPool& pool) {
  // The search starts at or below the cap, as every point it may move to.
  CalibrationPoint start = prior;
  if (cap > 0) start.efficiency = std::min(start.efficiency, cap);
  Fitter f{runs, family, pool, start, 0};
  f.best_err = Objective(runs, family, start, pool);
  const std::vector<double> eff = Efficiencies(cap), host = HostMs();
  for (int round = 0; round < 4; ++round) {
    bool moved = f.Scan(&CalibrationPoint::efficiency, eff);
    moved = f.Scan(&CalibrationPoint::half_tokens, kHalfTokens) || moved;
    moved = f.Scan(&CalibrationPoint::half_width, kHalfWidths) || moved;
    if (moe) moved = f.Scan(&CalibrationPoint::host_ms, host) || moved;
    if (!moved) break;
  }
  return FamilyFit{family, "", f.best, static_cast<int64_t>(runs.size()), f.best_err};
}

CalibrationPoint PointOf(const ChipSpec& chip) {
  return CalibrationPoint{chip.gemm_efficiency, chip.gemm_half_tokens, chip.gemm_half_width,
                          chip.moe_dispatch_host_s * 1e3};
}

struct Prepared {
  std::vector<Result<PreparedRun>> runs;
  std::vector<std::string> source, family;
  std::map<std::string, CalibrationPoint> prior, catalog;  // by family
  std::map<std::string, double> cap;                       // measured matmul plateau, 0 = none
};

// Every run set up and its layout chosen under the prior calibration (no
// fitted value takes part in choosing the training runs' layouts). The
// family's catalog and prior points are read off its first run's chip.
Prepared PrepareAll(const std::vector<PublishedRun>& runs, const ValidateOptions& options) {
  Prepared p;
  for (const PublishedRun& run : runs) {
    const std::string family = validate::FamilyOf(run.chip_key);
    p.source.push_back(SourceFamily(run.source));
    p.family.push_back(family);
    Result<validate::RunSetup> setup = validate::BuildRunSetup(run);
    if (!setup.ok()) {
      p.runs.push_back(setup.status());
      continue;
    }
    if (!p.prior.count(family)) {
      ClusterSpec catalog = setup->cluster;
      validate::ApplyOverrides(options.overrides, family, &catalog);
      const Result<ChipSpec> prior = PriorCalibration(catalog.chip);
      p.catalog[family] = PointOf(catalog.chip);
      p.cap[family] = catalog.chip.gemm_measured_plateau;
      if (prior.ok()) p.prior[family] = PointOf(*prior);
    }
    ValidateOptions o = options;
    if (p.prior.count(family)) {
      for (const CalibrationOverride& c : Overrides(family, p.prior[family])) {
        o.overrides.push_back(c);
      }
    }
    p.runs.push_back(validate::PrepareRun(run, o, nullptr));
  }
  return p;
}

}  // namespace

std::string SourceFamily(std::string_view source) {
  std::string s(source);
  // "owner/repo ..." (a repository): the repository's name, so a project
  // that moved owners ("google/maxtext", "AI-Hypercomputer/maxtext") is one.
  const size_t space = s.find(' ');
  const std::string first = s.substr(0, space);
  const size_t slash = first.find('/');
  std::string key;
  if (slash != std::string::npos && slash > 0) {
    key = first.substr(slash + 1);
    while (!key.empty() && (key.back() == ',' || key.back() == ':')) key.pop_back();
  } else {
    // "Authors et al. YEAR ...": up to the first year.
    for (size_t i = 0; i + 4 <= s.size(); ++i) {
      if ((s[i] == '1' || s[i] == '2') && std::isdigit(static_cast<unsigned char>(s[i + 1])) &&
          std::isdigit(static_cast<unsigned char>(s[i + 2])) &&
          std::isdigit(static_cast<unsigned char>(s[i + 3]))) {
        key = s.substr(0, i + 4);
        break;
      }
    }
    if (key.empty()) key = s;
  }
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return key;
}

CrossValidationReport CrossValidateBySource(const std::vector<PublishedRun>& runs,
                                            const ValidateOptions& options) {
  CrossValidationReport rep;
  Prepared prep = PrepareAll(runs, options);
  ThreadPool pool(options.threads);
  // Fitted families: at least kMinFitRuns runs in the whole set (the
  // catalog's fit rule) and not a transfer; each fold refits them on its
  // training runs.
  std::map<std::string, int64_t> count;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (prep.runs[i].ok() && !IsMemoryRun(runs[i])) ++count[prep.family[i]];
  }
  std::vector<std::string> sources;
  for (const std::string& s : prep.source) {
    if (std::find(sources.begin(), sources.end(), s) == sources.end()) sources.push_back(s);
  }
  std::map<std::string, FamilyFit>
      full;  // fits on all runs, shared by folds that leave a family whole
  std::vector<RunValidation> oof(runs.size());
  for (const std::string& held : sources) {
    ValidateOptions fold = options;
    std::map<std::string, CalibrationPoint> fitted;
    for (const auto& [family, n] : count) {
      // Transfer families are never fitted on their own runs (the catalog
      // takes them from h100, below), however many runs they have.
      if (n < kMinFitRuns || !prep.prior.count(family) || TransfersFromH100(family)) continue;
      std::vector<PreparedRun*> train;
      bool touched = false;
      bool moe = false;
      for (size_t i = 0; i < runs.size(); ++i) {
        if (prep.family[i] != family || !prep.runs[i].ok() || IsMemoryRun(runs[i])) continue;
        if (prep.source[i] == held) {
          touched = true;
          continue;
        }
        train.push_back(&*prep.runs[i]);
        moe = moe || runs[i].arch.moe.has_value();
      }
      const CalibrationPoint prior = prep.prior.at(family);
      FamilyFit fit{family, held, prior, static_cast<int64_t>(train.size()), 0};
      if (static_cast<int64_t>(train.size()) >= kMinFitRuns) {
        if (!touched && full.count(family)) {
          fit = full.at(family);
        } else {
          fit = Fit(train, family, prior, prep.cap.at(family), moe, pool);
          if (!touched) full[family] = fit;
        }
      }
      fit.held_out_source = held;
      if (touched) rep.fits.push_back(fit);
      fitted[family] = fit.point;
    }
    for (const auto& [family, point] : fitted) {
      for (const CalibrationOverride& c : Overrides(family, point)) fold.overrides.push_back(c);
    }
    // Transfers: the family's catalog efficiency over h100's, times the
    // fold's h100 efficiency; the shape parameters and host time as h100's.
    if (fitted.count("h100") && prep.catalog.count("h100")) {
      const CalibrationPoint h = fitted.at("h100");
      for (const auto& [family, cat] : prep.catalog) {
        if (!TransfersFromH100(family)) continue;
        CalibrationPoint t = h;
        t.efficiency = cat.efficiency / prep.catalog.at("h100").efficiency * h.efficiency;
        for (const CalibrationOverride& c : Overrides(family, t)) fold.overrides.push_back(c);
      }
    }
    rep.fold_overrides[held].assign(
        fold.overrides.begin() + static_cast<std::ptrdiff_t>(options.overrides.size()),
        fold.overrides.end());
    std::vector<size_t> members;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (prep.source[i] == held && !IsMemoryRun(runs[i])) members.push_back(i);
    }
    pool.ParallelFor(static_cast<int64_t>(members.size()), [&](int64_t k) {
      const size_t i = members[static_cast<size_t>(k)];
      oof[i] = validate::ValidateOne(runs[i], fold);
    });
  }
  validate::CrossValidateMemory(runs, options, &oof);
  rep.source = prep.source;
  rep.summary = SummarizeRuns(std::move(oof), runs);
  return rep;
}

}  // namespace occam

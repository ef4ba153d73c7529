// Leave-one-source-out cross-validation of the calibration
// (doc/validation.md, "Out of sample"). For each source family S every
// fitted chip family is refitted on the runs of the other sources only, by
// the catalog's own fit (validate_fit.cc: the procedure behind occam
// validate --fit and data/calibration.yaml), and the runs of S are
// predicted with it. A family with fewer than kMinFitRuns training runs
// keeps the prior; a family whose catalog values are a transfer from h100
// takes the transfer from the fold's h100 fit.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "occam/validate.h"
#include "validate/validate_fit.h"
#include "validate/validate_internal.h"

namespace occam {

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
  using validate::IsMemoryRun;
  CrossValidationReport rep;
  validate::PreparedSet prep = validate::PrepareAll(runs, options);
  ThreadPool pool(options.threads);
  std::vector<std::string> source, sources;
  for (const PublishedRun& run : runs) source.push_back(SourceFamily(run.source));
  for (const std::string& s : source) {
    if (std::find(sources.begin(), sources.end(), s) == sources.end()) sources.push_back(s);
  }
  std::map<std::string, FamilyFit>
      whole;  // fits on all runs, shared by folds that leave a family whole
  std::vector<RunValidation> oof(runs.size());
  for (const std::string& held : sources) {
    const validate::FamilyFits fits = validate::FitFamilies(
        runs, prep, [&](size_t i) { return source[i] != held; }, pool, &whole);
    ValidateOptions fold = options;
    for (const auto& [family, fit] : fits.fit) {
      if (std::find(fits.partial.begin(), fits.partial.end(), family) != fits.partial.end()) {
        FamilyFit shown = fit;
        shown.held_out_source = held;
        rep.fits.push_back(shown);
      }
      for (const CalibrationOverride& c : validate::Overrides(family, fit.point)) {
        fold.overrides.push_back(c);
      }
    }
    if (fits.fit.count("h100")) {
      for (const auto& [family, point] : validate::TransfersOf(fits.fit.at("h100").point)) {
        for (const CalibrationOverride& c : validate::Overrides(family, point)) {
          fold.overrides.push_back(c);
        }
      }
    }
    rep.fold_overrides[held].assign(
        fold.overrides.begin() + static_cast<std::ptrdiff_t>(options.overrides.size()),
        fold.overrides.end());
    std::vector<size_t> members;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (source[i] == held && !IsMemoryRun(runs[i])) members.push_back(i);
    }
    pool.ParallelFor(static_cast<int64_t>(members.size()), [&](int64_t k) {
      const size_t i = members[static_cast<size_t>(k)];
      oof[i] = validate::ValidateOne(runs[i], fold);
    });
  }
  validate::CrossValidateMemory(runs, options, &oof);
  rep.source = source;
  rep.summary = SummarizeRuns(std::move(oof), runs);
  return rep;
}

}  // namespace occam

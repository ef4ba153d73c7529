// Shared by the published-run tests: a bundled run by id, and whether a field
// was recorded as filled.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "occam/validate.h"

namespace occam::validate::testing {

inline const PublishedRun& BundledRun(const std::string& id) {
  static const std::vector<PublishedRun> runs = [] {
    auto r = BundledRuns();
    return r.ok() ? *r : std::vector<PublishedRun>{};
  }();
  for (const PublishedRun& r : runs) {
    if (r.id == id) return r;
  }
  static const PublishedRun none;
  ADD_FAILURE() << "no bundled run " << id;
  return none;
}

inline bool HasFilled(const std::vector<std::pair<std::string, std::string>>& filled,
                      const std::string& field) {
  return std::any_of(filled.begin(), filled.end(), [&](const auto& f) { return f.first == field; });
}

}  // namespace occam::validate::testing

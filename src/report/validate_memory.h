// The memory runs' part of `occam validate`'s text and JSON output
// (validate_memory_report.cc), shared by the in-sample and --cv reports.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "occam/validate.h"

namespace occam {

// The memory section: one row per predicted memory run, then the error
// statistics and the runs judged not to fit. "" when there are none.
std::string ValidateMemoryText(const ValidationReport& r);
// Adds a memory run's counter, breakdown, HBM and fit verdict to its JSON row.
void AddMemoryJson(const RunValidation& v, nlohmann::json* j);
// {"groups": [statistics...], "not_fit": [ids]}.
nlohmann::json MemorySummaryJson(const ValidationReport& r);

}  // namespace occam

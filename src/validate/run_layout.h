// The layout of a run's unstated knobs (run_layout.cc, doc/validation.md
// "Unstated fields"): every candidate in the stated order of preference, the
// first that fits occam's memory model, and how each open knob was filled.
#pragma once

#include <cstdint>

#include "occam/spec.h"
#include "occam/step.h"
#include "occam/validate.h"
#include "validate/run_setup.h"

namespace occam::validate {

struct Choice {
  PlanSpec plan;
  QuickEstimate quick;
  int64_t evaluated = 0;  // valid layouts evaluated
  int64_t position = 0;   // the chosen one's place among them (1 = first preference)
};

// The first valid candidate, in the order of preference, that fits in
// memory; a layout with nothing left to choose is taken as stated. With a
// choice left and nothing fitting, an error naming the closest layout.
// `search` off: the first valid candidate, unevaluated for memory.
Result<Choice> ChooseLayout(const StepModel& sm, const RunSetup& s, bool search);

// Records in `out->filled` how each open knob was filled.
void NoteFilled(const RunSetup& s, const Choice& c, RunValidation* out);

}  // namespace occam::validate

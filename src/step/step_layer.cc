// The step layer: see include/occam/step.h.

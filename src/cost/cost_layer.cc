// The cost layer: see include/occam/cost.h and include/occam/collective.h.

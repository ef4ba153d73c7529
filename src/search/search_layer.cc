// The search layer: see include/occam/search.h.

// The validation layer: see include/occam/validate.h.

// The simulation layer: see include/occam/simulate.h.

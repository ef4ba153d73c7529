// A layering probe (see CMakeLists.txt): includes OCCAM_PROBE_HEADER as a
// source of the layer it is built in.
#include OCCAM_PROBE_HEADER

namespace occam {
int LayeringProbe() { return 0; }
}  // namespace occam

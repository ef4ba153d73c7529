// Resizing a cluster template to a chip count (the `sizing:` rule of
// data/clusters/*.yaml). Sources of the rules: doc/hardware.md § 2, § 7.5
// (Google Cloud TPU v4/v5e/v5p/v6e system-architecture pages: slices of whole
// 4x4x4 cubes are full 3D tori, sub-cube slices are open meshes; v5e/v6e wrap
// only axes of length 16; v5p's largest slice is 16x16x24 = 6144).
#include <algorithm>
#include <string>
#include <vector>

#include "spec/cluster_formats.h"

namespace occam::spec {
namespace {

Status DoesNotFit(const ClusterDoc& doc, int64_t chips, const std::string& why, int64_t lower,
                  int64_t upper) {
  std::string hint = "nearest valid counts: ";
  if (lower > 0) hint += std::to_string(lower) + " or ";
  hint += std::to_string(upper);
  return InvalidInput("cluster template '" + doc.cluster.name + "': " + std::to_string(chips) +
                      " chips " + why + " (" + hint + ")");
}

// Chips per partial unit when `chips` does not fill whole units of `unit`:
// the fewest equal units r >= ceil(chips / unit) whose share chips / r is a
// whole number of `step`-chip trays and at least half a unit; 0 if none.
int64_t PartialUnit(int64_t chips, int64_t unit, int64_t step) {
  if (step <= 0 || chips <= unit) return 0;
  for (int64_t r = (chips + unit - 1) / unit; 2 * chips >= r * unit; ++r) {
    if (chips % r == 0 && (chips / r) % step == 0) return chips / r;
  }
  return 0;
}

// GPU clusters: whole scale-up units (8-GPU nodes, 72-GPU racks), or equal
// partial units where the template allows them; pods clipped to a divisor of
// the chip count, the last tier spans the cluster.
Result<ClusterSpec> SizeGpu(const ClusterDoc& doc, int64_t chips) {
  ClusterSpec c = doc.cluster;
  const auto& tiers = doc.cluster.tiers;
  int64_t unit = tiers[0].size;
  c.num_chips = chips;
  c.tiers = {tiers[0]};
  const int64_t partial =
      chips % unit == 0 ? 0 : PartialUnit(chips, unit, doc.sizing->partial_step);
  if (partial > 0) {
    // Say so wherever the cluster or the tier is named (report headers,
    // JSON, "limited by").
    const std::string note =
        "partial: " + std::to_string(partial) + " of " + std::to_string(unit) + " chips";
    c.name +=
        " (" + std::to_string(chips / partial) + " " + tiers[0].name + " domains, " + note + ")";
    c.tiers[0].name += " (" + note + ")";
    c.tiers[0].size = partial;
    unit = partial;
  }
  if (chips <= unit) {
    if (unit % chips == 0) return c;
    int64_t lower = chips, upper = chips;
    while (unit % lower != 0) --lower;
    while (unit % upper != 0) ++upper;
    return DoesNotFit(
        doc, chips,
        "do not evenly share one " + std::to_string(unit) + "-chip " + tiers[0].name + " domain",
        lower, upper);
  }
  if (chips % unit != 0) {
    const int64_t step = doc.sizing->partial_step;
    const std::string partly = step > 0
                                   ? " nor equal partial ones of whole " + std::to_string(step) +
                                         "-chip trays, each at least half full"
                                   : "";
    return DoesNotFit(doc, chips,
                      "do not fill whole " + std::to_string(unit) + "-chip " + tiers[0].name +
                          " domains" + partly,
                      chips / unit * unit, (chips / unit + 1) * unit);
  }
  for (size_t i = 1; i < tiers.size(); ++i) {
    TierSpec t = tiers[i];
    const int64_t prev = c.tiers.back().size;
    int64_t size = std::min(t.size, chips) / prev * prev;
    while (size > prev && chips % size != 0) size -= prev;
    if (i + 1 == tiers.size() || size >= chips) {
      t.size = chips;
      c.tiers.push_back(t);
      break;
    }
    if (size == prev) continue;  // the pod would hold a single unit: no tier
    t.size = size;
    c.tiers.push_back(t);
  }
  return c;
}

// Most cubic factorization a <= b <= c of n.
std::vector<int64_t> CubicShape(int64_t n) {
  std::vector<int64_t> best = {1, 1, n};
  for (int64_t a = 1; a * a * a <= n; ++a) {
    if (n % a != 0) continue;
    for (int64_t b = a; a * b * b <= n; ++b) {
      if ((n / a) % b != 0) continue;
      const int64_t c = n / a / b;
      if (c < best[2] || (c == best[2] && b < best[1])) best = {a, b, c};
    }
  }
  return best;
}

Result<TierSpec> Torus3dSlice(const ClusterDoc& doc, const ClusterSizing& s, int64_t slice) {
  TierSpec t = doc.cluster.tiers[0];
  const int64_t cube_chips = s.cube * s.cube * s.cube;
  t.size = slice;
  if (slice < cube_chips) {
    // Sub-cube slices: 1, 2, 4 (2x2x1), 8 (2x2x2), 16 (2x2x4), 32 (2x4x4): open meshes.
    std::vector<int64_t> dims = {1, 1, 1};
    int64_t left = slice;
    for (int axis = 0; left > 1; axis = (axis + 1) % 3) {
      if (left % 2 != 0 || dims[axis] * 2 > s.cube) break;
      dims[axis] *= 2;
      left /= 2;
    }
    if (left != 1) {
      int64_t lower = 1;
      while (lower * 2 <= slice) lower *= 2;
      return DoesNotFit(doc, slice, "have no torus shape (sub-cube slices are powers of two)",
                        lower, std::min(lower * 2, cube_chips));
    }
    std::sort(dims.begin(), dims.end());
    t.torus_dims = dims;
    t.torus_wrap = {false, false, false};
    return t;
  }
  if (slice % cube_chips != 0) {
    return DoesNotFit(doc, slice,
                      "are not whole " + std::to_string(s.cube) + "x" + std::to_string(s.cube) +
                          "x" + std::to_string(s.cube) + " cubes",
                      slice / cube_chips * cube_chips, (slice / cube_chips + 1) * cube_chips);
  }
  const auto shape = CubicShape(slice / cube_chips);
  t.torus_dims = {shape[0] * s.cube, shape[1] * s.cube, shape[2] * s.cube};
  t.torus_wrap = {true, true, true};
  return t;
}

Result<TierSpec> Torus2dSlice(const ClusterDoc& doc, const ClusterSizing& s, int64_t slice) {
  TierSpec t = doc.cluster.tiers[0];
  t.size = slice;
  int64_t lower = 0, upper = s.max_slice;
  for (const auto& shape : s.shapes) {
    const int64_t n = shape[0] * shape[1];
    if (n == slice) {
      t.torus_dims = shape;
      t.torus_wrap = {shape[0] == s.full_axis, shape[1] == s.full_axis};
      return t;
    }
    if (n < slice) lower = std::max(lower, n);
    if (n > slice) upper = std::min(upper, n);
  }
  return DoesNotFit(doc, slice, "match no slice shape", lower, upper);
}

// TPU: one slice up to max_slice chips; beyond, equal slices over the DCN tier.
Result<ClusterSpec> SizeTorus(const ClusterDoc& doc, const ClusterSizing& s, int64_t chips) {
  ClusterSpec c = doc.cluster;
  c.num_chips = chips;
  int64_t slice = chips;
  if (chips > s.max_slice) {
    const int64_t step = s.rule == "torus3d" ? s.cube * s.cube * s.cube : s.max_slice;
    slice = s.max_slice / step * step;
    while (slice > 0 && chips % slice != 0) slice -= step;
    if (slice <= 0) {
      return DoesNotFit(
          doc, chips,
          "cannot be split into equal slices of at most " + std::to_string(s.max_slice) + " chips",
          chips / step * step, (chips / step + 1) * step);
    }
  }
  Result<TierSpec> ici =
      s.rule == "torus3d" ? Torus3dSlice(doc, s, slice) : Torus2dSlice(doc, s, slice);
  if (!ici.ok()) return ici.status();
  c.tiers = {*ici};
  if (chips > slice && doc.cluster.tiers.size() > 1) {
    TierSpec dcn = doc.cluster.tiers.back();
    dcn.size = chips;
    c.tiers.push_back(dcn);
  }
  return c;
}

}  // namespace

Result<ClusterSpec> SizeCluster(const ClusterDoc& doc, int64_t chips) {
  if (chips < 1) {
    return InvalidInput("cluster template '" + doc.cluster.name +
                        "': chip count must be >= 1 (got " + std::to_string(chips) +
                        "); pass --chips N");
  }
  if (chips > (int64_t{1} << 24)) {
    return InvalidInput("cluster template '" + doc.cluster.name + "': " + std::to_string(chips) +
                        " chips is implausibly many (max 16777216)");
  }
  if (!doc.sizing) {
    return Internal("cluster template '" + doc.cluster.name + "' has no sizing rule");
  }
  Result<ClusterSpec> c =
      doc.sizing->rule == "gpu" ? SizeGpu(doc, chips) : SizeTorus(doc, *doc.sizing, chips);
  if (!c.ok()) return c;
  OCCAM_RETURN_IF_ERROR(ValidateCluster(*c, "cluster template '" + doc.cluster.name + "'"));
  return c;
}

}  // namespace occam::spec

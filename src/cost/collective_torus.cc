// Collectives on TPU ICI tori (tier 0 is kTorus), with data-center network
// tiers above. Sources: doc/cost-model.md § 4.8; "How to Scale Your Model",
// Sharded Matrices and TPU chapters (doc/hardware.md § 7.5).
//
// Symbols: D_d torus extent of axis d; e_d group members along axis d; h_d
// their spacing in hops (h_d interleaved groups share each link); ring_d: the
// group covers a wrapped axis entirely (e_d h_d = D_d, wraparound), so it
// runs a bidirectional ring; otherwise a line. B_link = B_0 / (2 dims).
// W_d = (ring_d ? 2 : 1) B_link / h_d per-chip bandwidth along axis d.
#include <algorithm>
#include <cmath>

#include "cost/collective_internal.h"

namespace occam::collective_internal {
namespace {

constexpr int kMaxDims = 4;

struct Span {
  int dims = 0;
  std::array<double, kMaxDims> extent{};
  std::array<double, kMaxDims> spacing{};
  std::array<bool, kMaxDims> ring{};
};

int64_t Dim(const TierSpec& t, int d) {
  if (t.torus_dims.empty()) return std::max<int64_t>(t.size, 1);
  return std::max<int64_t>(t.torus_dims[static_cast<size_t>(d)], 1);
}

bool Wraps(const TierSpec& t, int d) {
  return static_cast<size_t>(d) < t.torus_wrap.size() && t.torus_wrap[static_cast<size_t>(d)];
}

int Dims(const TierSpec& t) {
  return std::clamp(static_cast<int>(t.torus_dims.size()), 1, kMaxDims);
}

// Splits the progression (stride, count) into per-axis extents, x fastest.
// Exact when strides and counts divide the axis extents (every placement
// occam makes on a torus does); otherwise an approximation that keeps
// the member count.
Span Decompose(const TierSpec& t, int64_t stride, int64_t count) {
  Span s;
  s.dims = Dims(t);
  int64_t step = std::max<int64_t>(stride, 1);
  int64_t left = std::max<int64_t>(count, 1);
  for (int d = 0; d < s.dims; ++d) {
    const auto u = static_cast<size_t>(d);
    const int64_t dim = Dim(t, d);
    s.extent[u] = 1;
    s.spacing[u] = 1;
    if (left <= 1) continue;
    if (step >= dim) {
      step = step / dim + (step % dim != 0 ? 1 : 0);
      continue;
    }
    const int64_t e = std::min(left, std::max<int64_t>(dim / step, 1));
    s.extent[u] = static_cast<double>(e);
    s.spacing[u] = static_cast<double>(step);
    s.ring[u] = e * step == dim && Wraps(t, d);
    left = (left + e - 1) / e;
    step = 1;
  }
  return s;
}

// The torus as mixed-radix digits: each axis's prime factors, smallest first.
// A rank's digits, read in this order, give its coordinates. Linear order
// takes every digit of x, then of y, ...; compact order interleaves them
// (x, y, z, x, y, z, ...), so that aligned groups of consecutive ranks grow
// as cubes (TorusMapping). At most 63 factors per axis.
struct Digit {
  int64_t radix = 1;
  int dim = 0;
};
struct Digits {
  std::array<Digit, 64 * kMaxDims> at{};
  int count = 0;
};

Digits ComputeDigits(const TierSpec& t, TorusMapping mapping) {
  std::array<std::array<int64_t, 64>, kMaxDims> factors{};
  std::array<int, kMaxDims> n{};
  for (int d = 0; d < Dims(t); ++d) {
    const auto u = static_cast<size_t>(d);
    int64_t rest = Dim(t, d);
    for (int64_t p = 2; p <= rest / p; ++p) {
      while (rest % p == 0) factors[u][static_cast<size_t>(n[u]++)] = p, rest /= p;
    }
    if (rest > 1) factors[u][static_cast<size_t>(n[u]++)] = rest;
  }
  Digits out;
  auto push = [&](int d, int i) {
    out.at[static_cast<size_t>(out.count++)] = {
        factors[static_cast<size_t>(d)][static_cast<size_t>(i)], d};
  };
  if (mapping == TorusMapping::kLinear) {
    for (int d = 0; d < Dims(t); ++d) {
      for (int i = 0; i < n[static_cast<size_t>(d)]; ++i) push(d, i);
    }
    return out;
  }
  for (int i = 0; i < 64; ++i) {
    for (int d = 0; d < Dims(t); ++d) {
      if (i < n[static_cast<size_t>(d)]) push(d, i);
    }
  }
  return out;
}

// ComputeDigits, remembered per thread for the last torus of each mapping:
// the planner asks for the same few tori millions of times.
const Digits& TorusDigits(const TierSpec& t, TorusMapping mapping) {
  struct Entry {
    std::array<int64_t, kMaxDims> dims{};
    bool valid = false;
    Digits digits;
  };
  thread_local std::array<Entry, 2> cache;
  Entry& e = cache[mapping == TorusMapping::kCompact ? 1 : 0];
  std::array<int64_t, kMaxDims> dims{};
  for (int d = 0; d < Dims(t); ++d) dims[static_cast<size_t>(d)] = Dim(t, d);
  if (!e.valid || e.dims != dims) {
    e.digits = ComputeDigits(t, mapping);
    e.dims = dims;
    e.valid = true;
  }
  return e.digits;
}

// Compact order (TorusMapping::kCompact): the group's stride takes the
// lowest digits (their product is each axis's spacing), its members the next
// ones (their product is each axis's extent). Exact when stride and count
// are products of leading digits (aligned power-of-two groups on
// power-of-two axes); otherwise an approximation that keeps the count.
Span DecomposeCompact(const TierSpec& t, int64_t stride, int64_t count) {
  Span s;
  s.dims = Dims(t);
  s.extent.fill(1);
  s.spacing.fill(1);
  const Digits& digits = TorusDigits(t, TorusMapping::kCompact);
  int64_t step = std::max<int64_t>(stride, 1);
  int64_t left = std::max<int64_t>(count, 1);
  for (int i = 0; i < digits.count && left > 1; ++i) {
    const Digit g = digits.at[static_cast<size_t>(i)];
    const auto u = static_cast<size_t>(g.dim);
    if (step > 1) {
      s.spacing[u] *= static_cast<double>(g.radix);
      step = step / g.radix + (step % g.radix != 0 ? 1 : 0);
      continue;
    }
    const int64_t e = std::min(left, g.radix);
    s.extent[u] *= static_cast<double>(e);
    left = left / e + (left % e != 0 ? 1 : 0);
  }
  for (int d = 0; d < s.dims; ++d) {
    const auto u = static_cast<size_t>(d);
    s.ring[u] = s.extent[u] > 1 && s.extent[u] * s.spacing[u] == static_cast<double>(Dim(t, d)) &&
                Wraps(t, d);
  }
  return s;
}

Span Decompose(const TierSpec& t, RankGroup group) {
  return group.mapping == TorusMapping::kCompact ? DecomposeCompact(t, group.stride, group.size)
                                                 : Decompose(t, group.stride, group.size);
}

double LinkRate(const TierSpec& t) { return TierRate(t) / (2.0 * Dims(t)); }

double AxisRate(const Span& s, int d, double link) {
  const auto u = static_cast<size_t>(d);
  return (s.ring[u] ? 2.0 : 1.0) * link / s.spacing[u];
}

// Latency-bound hop count of one phase along the axes: D_d / 2 around a
// ring, (e_d - 1) h_d along a line.
double Hops(const Span& s) {
  double hops = 0;
  for (int d = 0; d < s.dims; ++d) {
    const auto u = static_cast<size_t>(d);
    if (s.extent[u] <= 1) continue;
    hops += s.ring[u] ? s.extent[u] * s.spacing[u] / 2 : (s.extent[u] - 1) * s.spacing[u];
  }
  return hops;
}

double SumAxisRates(const Span& s, double link) {
  double w = 0;
  for (int d = 0; d < s.dims; ++d) {
    if (s.extent[static_cast<size_t>(d)] > 1) w += AxisRate(s, d, link);
  }
  return w;
}

// The chunk of one ring step: each of the d rotated copies carries S/d, and
// most of its traffic moves in its last axis phase, in steps of S/(d e_max).
double StepChunk(const Span& s, double bytes) {
  double axes = 0, longest = 1;
  for (int d = 0; d < s.dims; ++d) {
    const double e = s.extent[static_cast<size_t>(d)];
    if (e > 1) ++axes;
    longest = std::max(longest, e);
  }
  return bytes / (std::max(axes, 1.0) * longest);
}

// All-gather or reduce-scatter over the axes at once (d rotated copies keep
// all links busy): T = max(alpha * hops, (m-1)/m * S / (eta(chunk) sum_d W_d)).
// The bandwidth term alone (the links' busy time).
double GatherBandwidthTime(const TierSpec& t, const Span& s, double m, double bytes) {
  const double eta = Eta(t, StepChunk(s, bytes));
  return (m - 1) / m * bytes / (eta * SumAxisRates(s, LinkRate(t)));
}
double GatherTime(const TierSpec& t, const Span& s, double m, double bytes) {
  return std::max(t.latency.value() * Hops(s), GatherBandwidthTime(t, s, m, bytes));
}

// Bisection-bound all-to-all of a per-chip buffer b: cutting axis d moves
// n b / 4 each way over (n / e_d) (ring ? 2 : 1) links shared by h_d groups,
// so T_d = e_d h_d b / (4 (ring ? 2 : 1) B_link); T = alpha * hops + max_d.
double AllToAllTime(const TierSpec& t, const Span& s, double b, double chunk) {
  double slowest = 0;
  for (int d = 0; d < s.dims; ++d) {
    const auto u = static_cast<size_t>(d);
    if (s.extent[u] <= 1) continue;
    const double width = (s.ring[u] ? 2.0 : 1.0) * LinkRate(t);
    slowest = std::max(slowest, s.extent[u] * s.spacing[u] * b / (4 * width));
  }
  return t.latency.value() * Hops(s) + slowest / Eta(t, chunk);
}

// Manhattan distance (with wraparound) to the rank `stride` away: the
// rank's digits give its coordinates.
double PeerHops(const TierSpec& t, int64_t stride, TorusMapping mapping) {
  const Digits& digits = TorusDigits(t, mapping);
  std::array<int64_t, kMaxDims> coord{}, place{};
  place.fill(1);
  int64_t rest = stride;
  for (int i = 0; i < digits.count && rest > 0; ++i) {
    const Digit g = digits.at[static_cast<size_t>(i)];
    const auto u = static_cast<size_t>(g.dim);
    coord[u] += rest % g.radix * place[u];
    place[u] *= g.radix;
    rest /= g.radix;
  }
  double hops = 0;
  for (int d = 0; d < Dims(t); ++d) {
    const int64_t dim = Dim(t, d), c = coord[static_cast<size_t>(d)] % dim;
    hops += static_cast<double>(Wraps(t, d) ? std::min(c, dim - c) : c);
  }
  return std::max(hops, 1.0);
}

// The group as seen by the torus code: its span inside the slice and the
// part of it across slices.
struct TorusGroup {
  const ClusterSpec& cluster;
  const Layout& layout;
  Span span;
  double m;  // members inside one slice
  bool inside, across;
};

// All-reduce (phases 2), reduce-scatter or all-gather (1): on the torus
// inside the slice, hierarchical ring over the data-center tiers across.
void Reduction(const TorusGroup& g, double bytes, int phases, TierSum* sum) {
  const TierSpec& t = g.cluster.tiers[0];
  if (g.inside) {
    sum->Add(0, phases * GatherTime(t, g.span, g.m, bytes),
             phases * GatherBandwidthTime(t, g.span, g.m, bytes));
  }
  if (g.across) sum->Add(Ring(g.cluster, Across(g.layout), 1, bytes / g.m, bytes / g.m, phases));
}

// Inside the slice the group exchanges m/n of the buffer, dimension-ordered
// (a transfer carries a whole torus line, as the all-gather's ring step); the
// rest leaves over the data-center tiers in one peer's shares; both at once.
void AllToAll(const TorusGroup& g, double bytes, double imbalance, TierSum* sum) {
  const TierSpec& t = g.cluster.tiers[0];
  const Layout& l = g.layout;
  const double inner = bytes * g.m / l.n;
  Cost worst{g.inside ? imbalance * AllToAllTime(t, g.span, inner, StepChunk(g.span, inner)) : 0,
             g.inside ? 0 : -1};
  PerTier busy{};
  if (g.inside) {
    // AllToAllTime less its latency, times the imbalance.
    busy[0] = worst.time - imbalance * t.latency.value() * Hops(g.span);
  }
  for (int i = 1; i <= l.top; ++i) {
    const auto u = static_cast<size_t>(i);
    const TierSpec& ti = g.cluster.tiers[u];
    const double leave = bytes * (l.n - l.members[u - 1]) / l.n;
    busy[u] = imbalance * leave / (TierRate(ti) * Eta(ti, bytes / l.n));
    const double time = ti.latency.value() + busy[u];
    if (time > worst.time) worst = Cost{time, i};
  }
  worst.tier = std::max(worst.tier, 0);
  worst.busy = busy;
  sum->Add(worst);
}

// Pipelined broadcast over the axes' links, then a ring broadcast across.
void Broadcast(const TorusGroup& g, double bytes, TierSum* sum) {
  const TierSpec& t = g.cluster.tiers[0];
  if (g.inside) {
    const double eta = Eta(t, StepChunk(g.span, bytes));
    const double bw = bytes / (eta * SumAxisRates(g.span, LinkRate(t)));
    sum->Add(0, t.latency.value() * Hops(g.span) + bw, bw);
  }
  if (g.across) {
    const Layout out = Across(g.layout);
    sum->Add(Ring(g.cluster, out, 1, bytes * out.n / (out.n - 1), bytes, 1));
  }
}

// One link and hop-by-hop latency inside the slice; the NIC across.
void SendRecv(const TorusGroup& g, double bytes, RankGroup group, TierSum* sum) {
  const TierSpec& t = g.cluster.tiers[0];
  if (g.inside) {
    const double bw = bytes / (LinkRate(t) * Eta(t, bytes));
    sum->Add(0, t.latency.value() * PeerHops(t, group.stride, group.mapping) + bw, bw);
    return;
  }
  const auto u = static_cast<size_t>(std::max(g.layout.top, 0));
  const TierSpec& ti = g.cluster.tiers[u];
  const double bw = bytes / (TierRate(ti) * Eta(ti, bytes));
  sum->Add(static_cast<int>(u), ti.latency.value() + bw, bw);
}

CollectiveAlgorithm NaturalAlgorithm(CollectiveOp op, bool inside, bool across) {
  if (op == CollectiveOp::kAllToAll || op == CollectiveOp::kSendRecv) {
    return inside ? CollectiveAlgorithm::kTorus : CollectiveAlgorithm::kDirect;
  }
  if (inside && across) return CollectiveAlgorithm::kHierarchical;
  return inside ? CollectiveAlgorithm::kTorus : CollectiveAlgorithm::kRing;
}

}  // namespace

Cost BestTorus(const ClusterSpec& cluster, CollectiveOp op, double bytes, RankGroup group,
               const Layout& layout, const CollectiveOptions& options,
               CollectiveAlgorithm* algorithm) {
  const double m = layout.members[0];
  const TorusGroup g{
      cluster,
      layout,
      Decompose(cluster.tiers[0], {static_cast<int64_t>(m), group.stride, group.mapping}),
      m,
      m > 1,
      layout.top >= 1};
  TierSum sum;
  switch (op) {
    case CollectiveOp::kAllReduce:
      Reduction(g, bytes, 2, &sum);
      break;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
      Reduction(g, bytes, 1, &sum);
      break;
    case CollectiveOp::kAllToAll:
      AllToAll(g, bytes, std::max(options.imbalance, 1.0), &sum);
      break;
    case CollectiveOp::kBroadcast:
      Broadcast(g, bytes, &sum);
      break;
    case CollectiveOp::kSendRecv:
      SendRecv(g, bytes, group, &sum);
      break;
  }
  Cost best;
  *algorithm = options.force;
  Consider(sum.Result(), NaturalAlgorithm(op, g.inside, g.across), options.force, &best, algorithm);
  return best;
}

}  // namespace occam::collective_internal

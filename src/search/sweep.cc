// Sweeps over cluster and job variants; see include/occam/search.h and
// doc/search.md §Sweep.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "occam/search.h"

namespace occam {
namespace {

struct VaryName {
  const char* name;
  SweepVary vary;
};
constexpr VaryName kVaryNames[] = {{"scale-up-size", SweepVary::kScaleUpSize},
                                   {"scale-out-gbps", SweepVary::kScaleOutGbps},
                                   {"global-batch-tokens", SweepVary::kGlobalBatchTokens},
                                   {"seq-len", SweepVary::kSeqLen}};

Status VaryError(const std::string& what) {
  return InvalidInput("--vary: " + what +
                      " (e.g. scale-up-size=8,16,72, scale-out-gbps=25,50, "
                      "global-batch-tokens=4M,16M or seq-len=4096,8192)");
}

Result<double> ParseValue(const std::string& item) {
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(item, &pos);
  } catch (...) {
    return VaryError("'" + item + "' is not a number");
  }
  const std::string suffix = item.substr(pos);
  double k = 1;
  if (suffix == "k" || suffix == "K")
    k = 1e3;
  else if (suffix == "M")
    k = 1e6;
  else if (suffix == "G")
    k = 1e9;
  else if (!suffix.empty())
    return VaryError("unknown suffix '" + suffix + "' in '" + item + "'");
  v *= k;
  if (!std::isfinite(v) || v <= 0) return VaryError("'" + item + "' must be positive");
  return v;
}

// Splits n into three factors as equal as possible (largest prime factors
// first, each onto the currently smallest axis), sorted ascending.
std::vector<int64_t> BalancedDims(int64_t n) {
  std::vector<int64_t> primes;
  for (int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      primes.push_back(p);
      n /= p;
    }
  }
  if (n > 1) primes.push_back(n);
  std::vector<int64_t> dims = {1, 1, 1};
  for (auto it = primes.rbegin(); it != primes.rend(); ++it) {
    *std::min_element(dims.begin(), dims.end()) *= *it;
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

std::string Trim(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

std::string SweepVaryName(SweepVary v) {
  for (const auto& n : kVaryNames) {
    if (n.vary == v) return n.name;
  }
  return "";
}

Result<SweepSpec> ParseSweepVary(const std::string& text) {
  SweepSpec spec;
  if (text.empty()) return spec;
  const size_t eq = text.find('=');
  if (eq == std::string::npos) return VaryError("'" + text + "' is not name=v1,v2,...");
  const std::string name = text.substr(0, eq);
  for (const auto& n : kVaryNames) {
    if (name == n.name) spec.vary = n.vary;
  }
  if (spec.vary == SweepVary::kNone) return VaryError("unknown variable '" + name + "'");
  std::string rest = text.substr(eq + 1);
  size_t start = 0;
  while (start <= rest.size()) {
    const size_t comma = rest.find(',', start);
    const std::string item =
        rest.substr(start, comma == std::string::npos ? rest.npos : comma - start);
    OCCAM_ASSIGN_OR_RETURN(double v, ParseValue(item));
    if (spec.vary != SweepVary::kScaleOutGbps && v != std::floor(v)) {
      return VaryError(name + " values must be whole numbers (got '" + item + "')");
    }
    spec.values.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (spec.values.size() > 64) return VaryError("at most 64 values");
  return spec;
}

Result<ClusterSpec> WithScaleUpSize(const ClusterSpec& cluster, int64_t size) {
  if (cluster.tiers.empty() || size < 1) {
    return InvalidInput("--vary scale-up-size: size must be >= 1 (got " + std::to_string(size) +
                        ")");
  }
  ClusterSpec c = cluster;
  const int64_t unit = std::min(size, cluster.num_chips);
  c.num_chips = cluster.num_chips / unit * unit;
  TierSpec inner = cluster.tiers.front();
  inner.size = unit;
  if (inner.kind == TierKind::kTorus) {
    inner.torus_dims = BalancedDims(unit);
    // Whole 4x4x4 cubes get wraparound links (as the TPU templates).
    const bool cubes = unit % 64 == 0;
    inner.torus_wrap.assign(3, false);
    for (size_t i = 0; i < 3; ++i) inner.torus_wrap[i] = cubes && inner.torus_dims[i] % 4 == 0;
  }
  c.tiers = {inner};
  for (size_t i = 1; i < cluster.tiers.size(); ++i) {
    TierSpec t = cluster.tiers[i];
    const int64_t prev = c.tiers.back().size;
    const bool last = i + 1 == cluster.tiers.size();
    int64_t s = std::min(t.size, c.num_chips) / prev * prev;
    while (s > prev && c.num_chips % s != 0) s -= prev;
    if (last) s = c.num_chips;
    if (s <= prev) continue;
    t.size = s;
    c.tiers.push_back(t);
  }
  // A TPU slice of the catalog cut into smaller slices: the pieces are joined
  // by the template's DCN tier (multislice, doc/hardware.md § 7.5), which the
  // sizing left out while one slice held every chip.
  if (c.tiers.size() == 1 && unit < c.num_chips && inner.kind == TierKind::kTorus) {
    // Twice the template's example size is always more than one slice.
    const Result<ClusterSpec> example = CatalogClusterTemplate(cluster.name);
    const Result<ClusterSpec> full =
        example.ok() ? CatalogCluster(cluster.name, 2 * example->num_chips) : example;
    if (full.ok() && full->tiers.size() > 1 && full->tiers.back().kind == TierKind::kDcn) {
      TierSpec dcn = full->tiers.back();
      dcn.size = c.num_chips;
      c.tiers.push_back(dcn);
    }
  }
  OCCAM_RETURN_IF_ERROR(
      ValidateCluster(c, c.name + " (scale-up-size=" + std::to_string(size) + ")"));
  return c;
}

Result<ClusterSpec> WithScaleOutBandwidth(const ClusterSpec& cluster, double gbps) {
  if (!(gbps > 0) || !std::isfinite(gbps)) {
    return InvalidInput("--vary scale-out-gbps: bandwidth must be > 0 GB/s");
  }
  ClusterSpec c = cluster;
  for (size_t i = 1; i < c.tiers.size(); ++i) c.tiers[i].bandwidth = GBps(gbps);
  return c;
}

Result<std::vector<SweepRow>> RunSweep(const ModelSpec& model,
                                       const std::vector<ClusterSpec>& clusters, const JobSpec& job,
                                       const SweepSpec& sweep, const SearchOptions& options) {
  std::vector<SweepRow> rows;
  const std::vector<double> none = {0};
  const auto& values = sweep.vary == SweepVary::kNone ? none : sweep.values;
  for (const ClusterSpec& base : clusters) {
    for (double v : values) {
      SweepRow row;
      row.cluster = base.name;
      row.job = job;
      ClusterSpec c = base;
      const auto n = static_cast<int64_t>(std::llround(v));
      const double tokens = static_cast<double>(job.global_batch_tokens());
      // A cluster variant that cannot exist (e.g. a TPU slice cut below the
      // chip count with no DCN tier to join the pieces) is an error row.
      Result<ClusterSpec> variant = c;
      switch (sweep.vary) {
        case SweepVary::kNone:
          break;
        case SweepVary::kScaleUpSize:
          variant = WithScaleUpSize(base, n);
          break;
        case SweepVary::kScaleOutGbps:
          variant = WithScaleOutBandwidth(base, v);
          break;
        case SweepVary::kGlobalBatchTokens:
          row.job.global_batch_seqs = std::max<int64_t>(1, std::llround(v / job.seq_len));
          break;
        case SweepVary::kSeqLen:
          row.job.seq_len = n;
          row.job.global_batch_seqs = std::max<int64_t>(1, std::llround(tokens / v));
          break;
      }
      if (sweep.vary != SweepVary::kNone) row.variant = SweepVaryName(sweep.vary) + "=" + Trim(v);
      if (!variant.ok()) {
        row.chips = base.num_chips;
        row.error = variant.status().message();
        rows.push_back(std::move(row));
        continue;
      }
      c = *std::move(variant);
      row.chips = c.num_chips;
      auto r = SearchLayouts(model, c, row.job, options);
      if (r.ok()) {
        row.result = *std::move(r);
      } else if (r.status().code() == StatusCode::kInfeasible) {
        row.error = r.status().message();
      } else {
        return r.status();
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace occam

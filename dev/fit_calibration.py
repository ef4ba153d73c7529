#!/usr/bin/env python3
"""Fit occam's per-chip GEMM calibration on the published runs.

For every chip family (a100, h100, tpu-v5e, tpu-v5p, ...) this grid-searches the
three parameters of the GEMM efficiency curve
eta(t, n) = gemm_efficiency * t / (t + gemm_half_tokens) * n / (n + gemm_half_width)
(doc/cost-model.md section 2; t rows, n the GEMM's narrowest other dimension),
the efficiency at most the chip's measured matmul plateau (data/calibration.yaml
measured_plateau), and keeps the triple with the smallest median absolute
relative error over the family's FITTED runs: a coarse grid over all three, then every efficiency and half_tokens
value near the coarse optimum at its half_width. Held-out
runs (IsHeldOut: FNV-1a hash of the id = 0 mod 4) are never used by the fit;
their error is printed separately so that overfitting shows.

Each family's runs depend only on that family's parameters, so one `occam
validate --json` call evaluates one grid point for every family at once.

Usage: dev/fit_calibration.py [--occam build/occam] [--runs FILE] [--jobs N]
       dev/fit_calibration.py --moe-host h100   (the MoE dispatch host time alone)
Python 3 standard library only. Prints the fitted values; copy them into
data/calibration.yaml with a comment naming the runs they were fitted on.
"""
import argparse
import concurrent.futures
import json
import statistics
import subprocess
import sys

EFFICIENCIES = [round(0.40 + 0.01 * i, 2) for i in range(56)]  # 0.40 .. 0.95
HALF_TOKENS = [0, 64, 128, 256, 512, 1024, 2048, 4096, 8192]
HALF_WIDTHS = [0, 32, 64, 128, 256, 384, 512, 768, 1024]
COARSE_EFFICIENCIES = EFFICIENCIES[::3]
COARSE_HALF_TOKENS = [0, 256, 1024, 4096]
# A family is fitted only with at least this many fitted runs; otherwise its
# prior (the measured GEMM plateau in data/calibration.yaml) stays.
MIN_RUNS = 3


def measured_plateaus(path="data/calibration.yaml"):
    """{chip key: measured_plateau} from data/calibration.yaml (the MAMF over
    peak): a fitted efficiency never goes above it. Standard library only, so
    a line scan of the file's two-level chips map."""
    caps, key = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("    ") and not line.startswith("     ") and line.rstrip().endswith(":"):
                key = line.strip()[:-1]
            elif key and line.strip().startswith("measured_plateau:"):
                caps[key] = float(line.split(":", 1)[1])
    return caps


def run_occam(occam, runs_file, overrides):
    cmd = [occam, "validate", "--json"]
    if runs_file:
        cmd += ["--runs", runs_file]
    for key, value in overrides:
        cmd += ["--set", f"{key}={value}"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["runs"]


def family_errors(runs, held_out):
    """{family: [|rel_error|, ...]} over predicted runs of one split."""
    errs = {}
    for r in runs:
        if r["rel_error"] is None or r["held_out"] != held_out:
            continue
        errs.setdefault(r["family"], []).append(abs(r["rel_error"]))
    return errs


# Medians closer than this count as tied: over ~20 runs the median moves by more
# than that when a single run crosses it, so smaller differences are noise.
MEDIAN_TOLERANCE = 0.005


def constraint_ok(runs, family, constraints):
    """False when the family's FITTED runs whose id starts with a prefix have a
    mean |error| above its bound. Held-out runs never take part: no
    constraint, tie break or acceptance decision of the fit may look at them
    (doc/validation.md, "Out of sample")."""
    for prefix, bound in constraints:
        errs = [abs(r["rel_error"]) for r in runs
                if r["family"] == family and r["rel_error"] is not None
                and not r["held_out"] and r["id"].startswith(prefix)]
        if errs and statistics.mean(errs) > bound:
            return False
    return True


def loss(errors):
    # Median absolute error, the quantity the CI gate checks (in steps of
    # MEDIAN_TOLERANCE); the mean breaks ties.
    return (round(statistics.median(errors) / MEDIAN_TOLERANCE), statistics.mean(errors))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--occam", default="build/occam")
    ap.add_argument("--runs", default="")
    ap.add_argument("--jobs", type=int, default=2, help="occam processes at once")
    ap.add_argument("--around", action="append", default=[], metavar="FAMILY=EFF,HALF",
                    help="quick refit: only these families, half_tokens kept at HALF, "
                         "efficiency within +-0.04 of EFF in 0.01 steps, every half_width")
    ap.add_argument("--constraint", action="append", default=[], metavar="PREFIX=MAX",
                    help="reject grid points where the fitted runs whose id starts with "
                         "PREFIX have a mean |error| above MAX (e.g. an acceptance bound)")
    ap.add_argument("--moe-host", metavar="FAMILY",
                    help="fit only FAMILY.moe_dispatch_host_ms (0-12 ms in 0.25 ms steps) on the "
                         "family's fitted MoE runs, GEMM values as in data/calibration.yaml")
    args = ap.parse_args()
    if args.moe_host:
        fit_moe_host(args)
        return
    constraints = [(c.split("=")[0], float(c.split("=")[1])) for c in args.constraint]

    base = run_occam(args.occam, args.runs, [])
    counts = family_errors(base, False)
    families = sorted(f for f, e in counts.items() if len(e) >= MIN_RUNS)
    for f in sorted(set(counts) - set(families)):
        print(f"{f}: only {len(counts[f])} fitted run(s); keeping its prior", file=sys.stderr)

    caps = measured_plateaus()

    def search(grid_points, count):
        """Best (loss, eff, half, width) per family; points(f, j) is family f's
        (eff, half, width) at grid index j < count (families are independent,
        so one occam call evaluates index j for all of them). Efficiencies
        above the family's measured plateau are taken at the plateau."""
        best = {}

        def points(f, j):
            eff, half, width = grid_points(f, j)
            return (min(eff, caps.get(f, 1.0)), half, width)

        def one(j):
            overrides = []
            for f in families:
                eff, half, width = points(f, j)
                overrides += [(f"{f}.gemm_efficiency", eff), (f"{f}.gemm_half_tokens", half),
                              (f"{f}.gemm_half_width", width)]
            return j, run_occam(args.occam, args.runs, overrides)

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for i, (j, runs) in enumerate(pool.map(one, range(count))):
                for f, errs in family_errors(runs, False).items():
                    if f not in families or not constraint_ok(runs, f, constraints):
                        continue
                    cand = (loss(errs),) + points(f, j)
                    if f not in best or cand < best[f]:
                        best[f] = cand
                if i % 50 == 0:
                    print(f"  grid point {i}/{count}", file=sys.stderr)
        return best

    if args.around:
        start = {}
        for a in args.around:
            fam, vals = a.split("=")
            eff, half = vals.split(",")
            start[fam] = (float(eff), int(half))
        families = sorted(start)
        quick = [(d / 100, w) for w in HALF_WIDTHS for d in range(-4, 5)]  # 0.01 steps

        def quick_point(f, j):
            d, w = quick[j]
            return (round(start[f][0] + d, 2), start[f][1], w)

        report(args, base, families, search(quick_point, len(quick)))
        return

    coarse_grid = [(e, h, w) for w in HALF_WIDTHS for h in COARSE_HALF_TOKENS
                   for e in COARSE_EFFICIENCIES]
    coarse = search(lambda f, j: coarse_grid[j], len(coarse_grid))
    # Fine: efficiency within +-0.03 of the coarse optimum, every half_tokens,
    # at the coarse half_width.
    fine_grid = [(d, h) for h in HALF_TOKENS for d in (-0.03, -0.02, -0.01, 0, 0.01, 0.02, 0.03)]

    def fine_point(f, j):
        d, h = fine_grid[j]
        return (round(min(max(coarse[f][1] + d, 0.40), 0.95), 2), h, coarse[f][3])

    fine = search(fine_point, len(fine_grid))
    best = {f: min(coarse[f], fine[f]) for f in families}
    report(args, base, families, best)


def fit_moe_host(args):
    """One-parameter fit: the host time per MoE layer forward after the
    dispatcher's device-to-host sync (doc/cost-model.md section 6). Objective:
    median |error| over the family's fitted MoE runs (mean breaks ties); the
    held-out MoE runs are printed, never used."""
    fam = args.moe_host
    grid = [0.25 * i for i in range(49)]

    def one(ms):
        runs = run_occam(args.occam, args.runs, [(f"{fam}.moe_dispatch_host_ms", ms)])
        moe = [r for r in runs if r["family"] == fam and r["moe"] and r["rel_error"] is not None]
        fit = [abs(r["rel_error"]) for r in moe if not r["held_out"]]
        held = [abs(r["rel_error"]) for r in moe if r["held_out"]]
        return ms, fit, held

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, grid))
    ms, fit, held = min(results, key=lambda x: loss(x[1]))
    before = results[0][1]
    print(f"{fam}.moe_dispatch_host_ms = {ms:.2f}: {len(fit)} fitted MoE runs, median "
          f"{100 * statistics.median(before):.1f}% -> {100 * statistics.median(fit):.1f}%; "
          f"held-out MoE runs: " + ", ".join(f"{100 * e:.1f}%" for e in held))


def report(args, base, families, best):
    final = []
    for f in families:
        (med, mean), eff, half, width = best[f]
        final += [(f"{f}.gemm_efficiency", eff), (f"{f}.gemm_half_tokens", half),
                  (f"{f}.gemm_half_width", width)]
    runs = run_occam(args.occam, args.runs, final)
    fitted = family_errors(runs, False)
    held = family_errors(runs, True)
    base_fit = family_errors(base, False)
    print("family      efficiency  half_tokens  half_width  fitted runs: median before -> after"
          "   held-out runs: median after")
    for f in families:
        (_, _), eff, half, width = best[f]
        h = held.get(f, [])
        print(f"{f:<10}  {eff:10.2f}  {half:11d}  {width:10d}  {len(fitted[f]):3d}: "
              f"{100 * statistics.median(base_fit[f]):6.1f}% -> "
              f"{100 * statistics.median(fitted[f]):6.1f}%   "
              f"{len(h):3d}: " + (f"{100 * statistics.median(h):6.1f}%" if h else "-"))
    all_fit = [e for v in fitted.values() for e in v]
    all_held = [e for v in held.values() for e in v]
    print(f"all fitted: median {100 * statistics.median(all_fit):.1f}%;"
          f" held-out: median {100 * statistics.median(all_held):.1f}%")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fit occam's per-chip GEMM calibration on the published runs.

For every chip family (a100, h100, tpu-v5e, tpu-v5p, ...) this grid-searches the
two parameters of the GEMM efficiency curve eta(t) = gemm_efficiency * t / (t +
gemm_half_tokens) (doc/cost-model.md section 2) and keeps the pair with the
smallest median absolute relative error over the family's FITTED runs. Held-out
runs (IsHeldOut: FNV-1a hash of the id = 0 mod 4) are never used by the fit;
their error is printed separately so that overfitting shows.

Each family's runs depend only on that family's parameters, so one `occam
validate --json` call evaluates one grid point for every family at once.

Usage: dev/fit_calibration.py [--occam build/occam] [--runs FILE]
Python 3 standard library only. Prints the fitted values; copy them into
data/calibration.yaml with a comment naming the runs they were fitted on.
"""
import argparse
import json
import statistics
import subprocess
import sys

EFFICIENCIES = [round(0.40 + 0.01 * i, 2) for i in range(56)]  # 0.40 .. 0.95
HALF_TOKENS = [0, 64, 128, 256, 512, 1024, 2048, 4096, 8192]
# A family is fitted only with at least this many fitted runs; otherwise its
# prior (the measured GEMM plateau in data/calibration.yaml) stays.
MIN_RUNS = 3


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


def loss(errors):
    # Median absolute error, the quantity the CI gate checks; the mean breaks ties.
    return (statistics.median(errors), statistics.mean(errors))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--occam", default="build/occam")
    ap.add_argument("--runs", default="")
    args = ap.parse_args()

    base = run_occam(args.occam, args.runs, [])
    counts = family_errors(base, False)
    families = sorted(f for f, e in counts.items() if len(e) >= MIN_RUNS)
    for f in sorted(set(counts) - set(families)):
        print(f"{f}: only {len(counts[f])} fitted run(s); keeping its prior", file=sys.stderr)
    best = {}
    grid = [(e, h) for h in HALF_TOKENS for e in EFFICIENCIES]
    for i, (eff, half) in enumerate(grid):
        overrides = []
        for f in families:
            overrides += [(f"{f}.gemm_efficiency", eff), (f"{f}.gemm_half_tokens", half)]
        runs = run_occam(args.occam, args.runs, overrides)
        for f, errs in family_errors(runs, False).items():
            cand = (loss(errs), eff, half)
            if f not in best or cand[0] < best[f][0]:
                best[f] = cand
        if i % 50 == 0:
            print(f"  grid point {i}/{len(grid)}", file=sys.stderr)

    final = []
    for f in families:
        (med, mean), eff, half = best[f]
        final += [(f"{f}.gemm_efficiency", eff), (f"{f}.gemm_half_tokens", half)]
    runs = run_occam(args.occam, args.runs, final)
    fitted = family_errors(runs, False)
    held = family_errors(runs, True)
    base_fit = family_errors(base, False)
    print("family      efficiency  half_tokens  fitted runs: median before -> after"
          "   held-out runs: median after")
    for f in families:
        (_, _), eff, half = best[f]
        h = held.get(f, [])
        print(f"{f:<10}  {eff:10.2f}  {half:11d}  {len(fitted[f]):3d}: "
              f"{100 * statistics.median(base_fit[f]):6.1f}% -> "
              f"{100 * statistics.median(fitted[f]):6.1f}%   "
              f"{len(h):3d}: " + (f"{100 * statistics.median(h):6.1f}%" if h else "-"))
    all_fit = [e for v in fitted.values() for e in v]
    all_held = [e for v in held.values() for e in v]
    print(f"all fitted: median {100 * statistics.median(all_fit):.1f}%;"
          f" held-out: median {100 * statistics.median(all_held):.1f}%")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""logz estimate against an independent BAR: pymbar 3.1's BAR(w_F, w_R) on the same work files.

Usage: pymbar_bar.py <path to the logz tool>. Writes Crooks-consistent Gaussian works (forward
N(mu, s^2), reverse N(s^2 - mu, s^2)) and one skewed, poorly overlapping set, runs
`logz estimate --methods bar,histogram -o out.json`, and asserts for each set that
|log Z_logz + DeltaF_pymbar| < 1e-6 nat for bar and for the unbinned histogram estimator (which
equals BAR), and that logz's bar std_error equals pymbar's dDeltaF to 1e-6 relative.
pymbar's convention is logz's: DeltaF = -log(Z1/Z0) from forward works w_F and reverse works w_R
with the reverse process's own sign. Exit 77 (skipped) if pymbar cannot be imported.
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import pymbar
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"skipped: pymbar/numpy cannot be imported ({e}); install python3-pymbar")
    sys.exit(77)


def pymbar_bar(w_f, w_r):
    # pymbar 3.1: BAR(w_F, w_R, ..., relative_tolerance=1e-12) returns (DeltaF, dDeltaF).
    return pymbar.BAR(w_f, w_r, relative_tolerance=1e-12, maximum_iterations=10000, verbose=False)


def data_sets():
    rng = np.random.default_rng(20240601)
    mu, s = 5.0, 1.5
    yield "gaussian", rng.normal(mu, s, 3000), rng.normal(s * s - mu, s, 2000)
    # Shifted to works of 1e3 with unequal sizes and poor overlap (s = 4).
    mu, s = 1000.0, 4.0
    yield "shifted_poor_overlap", rng.normal(mu, s, 500), rng.normal(s * s - mu, s, 800)
    # Skewed works (not Crooks-consistent; BAR is still a well-defined root).
    yield "skewed", rng.gamma(2.0, 1.5, 1500) + 2.0, -rng.gamma(3.0, 0.7, 1200)


def main():
    if len(sys.argv) != 2:
        print("usage: pymbar_bar.py <logz>")
        return 2
    logz = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, w_f, w_r in data_sets():
            ff, rf, out = (os.path.join(tmp, f"{name}_{x}") for x in ("f.txt", "r.txt", "out.json"))
            # repr-exact text so that both sides read identical doubles.
            with open(ff, "w") as f:
                f.writelines(f"{v!r}\n" for v in w_f.tolist())
            with open(rf, "w") as f:
                f.writelines(f"{v!r}\n" for v in w_r.tolist())
            subprocess.run([logz, "estimate", "--forward", ff, "--reverse", rf,
                            "--methods", "bar,histogram", "-o", out],
                           check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                est = json.load(f)["estimates"]
            w_f_read = np.loadtxt(ff)
            w_r_read = np.loadtxt(rf)
            delta_f, d_delta_f = pymbar_bar(w_f_read, w_r_read)
            for method in ("bar", "histogram"):
                log_z, se = est[method]["log_z"], est[method]["std_error"]
                diff = abs(log_z + delta_f)
                rel = abs(se - d_delta_f) / d_delta_f
                ok = diff < 1e-6 and rel < 1e-6
                failures += not ok
                print(f"{name:22s} {method:10s} logz {log_z:+.10f} pymbar {-delta_f:+.10f} "
                      f"|diff| {diff:.2e}  se {se:.8f} vs {d_delta_f:.8f} rel {rel:.1e} "
                      f"{'ok' if ok else 'FAIL'}")
    print(f"{6 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Times logz's works estimators called from Python against the same C++ functions called from
C++ (bench/estimators_bench), on the same 10^6 forward and 10^6 reverse works.

Usage: PYTHONPATH=build/python bench/python/estimators_timing.py build/bench/estimators_bench [ROUNDS]

estimators_bench writes the works it times to LOGZ_BENCH_WORKS_DIR; they are loaded as float64
arrays, which logz.estimate views without copying. The machine's speed drifts (other tenants),
so the two sides are timed in turn, round after round: one run of the C++ benchmark of an
estimator, then the best of 3 calls of logz.estimate, and the ratio python / C++ is taken
round by round (CPU times of the process, as Google Benchmark's cpu_time). Prints each
estimator's median ratio with the smallest and largest, and whether both sides gave the same
estimate to the bit. A script to run by hand, not a ctest.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import logz

# Google Benchmark name -> (logz.estimate method, options, the estimate the C++ side reports).
CASES = {
    "BM_Ais": ("ais", {}, "ais"),
    "BM_Raise": ("raise", {}, "raise"),
    "BM_Bar": ("bar", {}, "bar"),
    "BM_HistogramUnbinned": ("histogram", {}, "histogram"),
    "BM_HistogramBinned1000": ("histogram", {"histogram_bins": 1000}, "histogram"),
    "BM_CrooksCrossing": ("crossing", {}, "crooks_crossing"),
}


def cpp_run(bench, name, env):
    """One run of the C++ benchmark `name`: (cpu ms per estimate, its log_z counter)."""
    out = subprocess.run([bench, f"--benchmark_filter=^{name}(/|$)", "--benchmark_format=json"],
                         env=env, check=True, capture_output=True, text=True).stdout
    b = json.loads(out)["benchmarks"][0]
    return b["cpu_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]], b["log_z"]


def python_run(method, options, reported, w_f, w_r):
    """Best of 3 calls of logz.estimate: (cpu ms, the estimate)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        result = logz.estimate(method, w_f, w_r, **options)
        best = min(best, time.process_time() - t0)
    e = result if not isinstance(result, dict) else result[reported]
    return best * 1e3, e.log_z


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    bench, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 5
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, LOGZ_BENCH_WORKS_DIR=tmp)
        cpp_run(bench, "BM_CumulantTwoSided", env)  # writes the works
        w_f = np.load(os.path.join(tmp, "forward.npy"))
        w_r = np.load(os.path.join(tmp, "reverse.npy"))
        assert w_f.dtype == np.float64 and w_f.flags.c_contiguous
        print(f"{len(w_f)} forward + {len(w_r)} reverse works, {rounds} rounds")
        print(f"{'estimator':24s} {'C++ ms':>8s} {'Python ms':>9s}  python / C++: median (min - max)  same bits")
        for name, (method, options, reported) in CASES.items():
            cpp, py, ratios, same = [], [], [], True
            for _ in range(rounds):
                c, c_log_z = cpp_run(bench, name, env)
                p, p_log_z = python_run(method, options, reported, w_f, w_r)
                cpp.append(c)
                py.append(p)
                ratios.append(p / c)
                same = same and c_log_z == p_log_z
            print(f"{name:24s} {statistics.median(cpp):8.1f} {statistics.median(py):9.1f}  "
                  f"{statistics.median(ratios):.3f} ({min(ratios):.3f} - {max(ratios):.3f})  {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Times pymbar 3.1's BAR against logz's bar and histogram estimators on the same 10^6 + 10^6 works.

Usage: pymbar_bar_timing.py <path to the estimators_bench executable>

Runs estimators_bench (Google Benchmark) with LOGZ_BENCH_WORKS_DIR set, so that it writes the
works it times to forward.npy / reverse.npy, reads them, times pymbar.BAR (with its default
uncertainty, as logz computes its error too; best of 3 runs) and prints logz's time per estimate,
pymbar's, the ratio pymbar / logz, and the two estimates (which agree to about 1e-10). Times are
CPU times of the process (Google Benchmark's mean cpu_time over its repetitions, Python's
process_time, best of 3), which a busy machine disturbs less than wall-clock times; both sides
are single-threaded. A script to run by hand, not a ctest.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pymbar


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    bench = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, LOGZ_BENCH_WORKS_DIR=tmp)
        out = subprocess.run([bench, "--benchmark_filter=BM_Bar|BM_Histogram",
                              "--benchmark_format=json"], env=env, check=True,
                             capture_output=True, text=True).stdout
        runs = {b["name"]: b for b in json.loads(out)["benchmarks"]}
        w_f = np.load(os.path.join(tmp, "forward.npy"))
        w_r = np.load(os.path.join(tmp, "reverse.npy"))
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        delta_f, d_delta_f = pymbar.BAR(w_f, w_r, relative_tolerance=1e-12, verbose=False)
        best = min(best, time.process_time() - t0)
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                 "unknown processor")
    print(f"{len(w_f)} forward + {len(w_r)} reverse works on {model}, one thread; pymbar BAR {best * 1e3:.1f} ms, "
          f"log Z = {-delta_f:.10f} +- {d_delta_f:.6f}")
    for name, b in runs.items():
        assert b["time_unit"] == "ms", b["time_unit"]
        t = b["cpu_time"] * 1e-3
        print(f"logz {name:36s} {t * 1e3:8.1f} ms  log Z = {b['log_z']:.10f}  "
              f"pymbar / logz time = {best / t:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

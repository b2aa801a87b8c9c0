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


def measure(bench):
    """Runs both sides; returns {"n_forward", "n_reverse", "pymbar_s" (best of 3 CPU seconds),
    "pymbar_log_z", "pymbar_se", "logz": {benchmark name: (CPU seconds per estimate, log Z)}}."""
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
    logz = {}
    for name, b in runs.items():
        assert b["time_unit"] == "ms", b["time_unit"]
        logz[name] = (b["cpu_time"] * 1e-3, b["log_z"])
    return {"n_forward": len(w_f), "n_reverse": len(w_r), "pymbar_s": best, "pymbar_log_z": -delta_f,
            "pymbar_se": d_delta_f, "logz": logz}


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    m = measure(sys.argv[1])
    best = m["pymbar_s"]
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                 "unknown processor")
    print(f"{m['n_forward']} forward + {m['n_reverse']} reverse works on {model}, one thread; pymbar BAR "
          f"{best * 1e3:.1f} ms, log Z = {m['pymbar_log_z']:.10f} +- {m['pymbar_se']:.6f}")
    for name, (t, log_z) in m["logz"].items():
        print(f"logz {name:36s} {t * 1e3:8.1f} ms  log Z = {log_z:.10f}  "
              f"pymbar / logz time = {best / t:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Times pymbar's MBAR against logz's mbar on the same K = 100 states x 10^4 samples.

Usage: pymbar_mbar_timing.py <path to the estimators_bench executable>

Draws 10^4 exact samples of each of 100 harmonic states u_k(x) = c_k x^2 / 2, c_k = 1 + 9 k / 99
(numpy, seed 1), writes them to an .npy, runs estimators_bench's BM_MbarHarmonic100x10000 on
them (LOGZ_BENCH_MBAR_SAMPLES), times pymbar.MBAR on the same reduced energies (solve plus
free-energy differences with uncertainties, as logz computes them) and prints both times,
their ratio and both estimates of log(Z_K / Z_1) beside the exact -0.5 log 10. CPU times of
the process, single-threaded on both sides (OPENBLAS_NUM_THREADS=1). A script to run by hand.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import pymbar  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    k_states, per_state = 100, 10000
    c = 1.0 + 9.0 * np.arange(k_states) / 99.0
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(0.0, 1.0 / np.sqrt(ck), per_state) for ck in c])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.npy")
        np.save(path, x)
        out = subprocess.run([sys.argv[1], "--benchmark_filter=BM_MbarHarmonic", "--benchmark_format=json"],
                             env=dict(os.environ, LOGZ_BENCH_MBAR_SAMPLES=path), check=True,
                             stdout=subprocess.PIPE, text=True).stdout
    b = json.loads(out)["benchmarks"][0]
    u = 0.5 * c[:, None] * x[None, :] ** 2
    n = np.full(k_states, per_state)
    start = time.process_time()
    m = pymbar.MBAR(u, n)
    result = m.getFreeEnergyDifferences() if hasattr(m, "getFreeEnergyDifferences") else None
    if result is None:
        d = m.compute_free_energy_differences()
        delta, ddelta = d["Delta_f"], d["dDelta_f"]
    else:
        delta, ddelta = result[0], result[1]
    pymbar_s = time.process_time() - start
    logz_s = b["cpu_time"]
    print(f"logz mbar:   {logz_s:8.2f} s  log(Z_K/Z_1) = {b['log_z_last']:.6f} +- {b['std_error_last']:.6f}"
          f"  ({int(b['iterations'])} Newton iterations)")
    print(f"pymbar MBAR: {pymbar_s:8.2f} s  log(Z_K/Z_1) = {-delta[0, -1]:.6f} +- {ddelta[0, -1]:.6f}")
    print(f"pymbar / logz = {pymbar_s / logz_s:.1f}; exact {-0.5 * np.log(10.0):.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

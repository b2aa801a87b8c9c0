#!/usr/bin/python3
"""Times pymbar's MBAR against logz's mbar on the same K = 100 states x 10^4 samples, and compares
their peak memory and their answers.

Usage: pymbar_mbar_timing.py <path to the estimators_bench executable> [--pymbar-tolerance T]
                             [--per-state N] [--python BUILD/python] [--logz BUILD/logz]

Draws 10^4 exact samples of each of 100 harmonic states u_k(x) = c_k x^2 / 2, c_k = 1 + 9 k / 99
(numpy, seed 1) and writes them to an .npy. Runs estimators_bench's BM_MbarHarmonic100x10000
(logz.mbar on the K x N matrix u) and BM_MbarHarmonicLinear100x10000 (mbar_linear_in_level on
the levels c_k and energies x^2 / 2, no K x N matrix) on them (LOGZ_BENCH_MBAR_SAMPLES), each in
its own process, and pymbar.MBAR on the same reduced energies in a third (solve plus free-energy
differences with uncertainties, as logz computes them; pymbar's default relative_tolerance 1e-7
unless --pymbar-tolerance is given; logz solves to a relative gradient of 1e-10). Prints the
three CPU times, the ratios pymbar / logz, each process's peak resident memory (GNU time's; the
800 MB matrix u is part of the dense run's and pymbar's) and the largest differences between
logz's and pymbar's log(Z_k / Z_1) and standard errors over all k, beside the exact -0.5 log 10
of the last.
CPU times of the processes' work (Google Benchmark's cpu_time; Python's process_time around
pymbar's calls), single-threaded on both sides (OPENBLAS_NUM_THREADS=1). --per-state N draws N
samples per state instead of 10^4 (the benchmarks keep their names; bench/peers/compare --quick
uses it). --python P (the folder holding the logz module, build/python) adds logz.mbar called
from Python on pymbar's own u_kn (built as pymbar's side builds it), in a fourth process: the
array is read in place, so its peak is u plus Python and numpy. --logz L (the command-line
tool) adds `logz estimate --u-kn U.npy --n-k N.txt` on pymbar's u_kn saved as a C-order .npy,
which streams it from the file (CPU time user + system of the whole process, GNU time's). A
script to run by hand.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

K_STATES, PER_STATE = 100, 10000


def levels():
    return 1.0 + 9.0 * np.arange(K_STATES) / 99.0


def run_child(argv, env=None):
    """Runs argv to completion; returns (stdout, peak resident set size in MiB) of that process.

    The peak comes from GNU time (/usr/bin/time, Debian's `time`), which execs argv from a small
    process: the rusage of a child forked from this Python process would count Python's own pages
    (numpy, the samples) as well, tens of MB, before its exec."""
    with tempfile.NamedTemporaryFile("r") as peak_file:
        timed = ["/usr/bin/time", "-f", "%M", "-o", peak_file.name] + argv if os.path.exists("/usr/bin/time") else argv
        proc = subprocess.run(timed, env=env, stdout=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            sys.exit(f"{argv[0]} failed with exit code {proc.returncode}")
        text = peak_file.read().strip()
    peak = float(text.splitlines()[-1]) / 1024.0 if text else float("nan")  # GNU time's %M is in KiB
    return proc.stdout, peak


def pymbar_child(x_path, out_path, tolerance):
    """The pymbar side, in its own process so that its peak memory is its own."""
    import pymbar
    x = np.load(x_path)
    u = reduced_energies(x)
    n = np.full(K_STATES, len(x) // K_STATES)
    options = {} if tolerance is None else {"relative_tolerance": tolerance}
    start = time.process_time()
    m = pymbar.MBAR(u, n, **options)
    if hasattr(m, "getFreeEnergyDifferences"):
        delta, ddelta = m.getFreeEnergyDifferences()[:2]
    else:
        d = m.compute_free_energy_differences()
        delta, ddelta = d["Delta_f"], d["dDelta_f"]
    seconds = time.process_time() - start
    np.save(out_path, np.vstack([-delta[0], ddelta[0]]))
    print(json.dumps({"cpu_time": seconds}))


def reduced_energies(x):
    """pymbar's u_kn (K, N) of the samples x, the same array on both Python sides."""
    return 0.5 * levels()[:, None] * x[None, :] ** 2


def logz_python_child(x_path, out_path):
    """logz.mbar from Python, in its own process (PYTHONPATH set by the parent)."""
    import logz
    x = np.load(x_path)
    u = reduced_energies(x)
    n = np.full(K_STATES, len(x) // K_STATES)
    start = time.process_time()
    m = logz.mbar(u, n)
    seconds = time.process_time() - start
    np.save(out_path, np.vstack([m.log_z, m.std_error]))
    print(json.dumps({"cpu_time": seconds}))


def run_timed(argv):
    """Runs argv under GNU time; returns (user + system CPU seconds, peak resident MiB)."""
    with tempfile.NamedTemporaryFile("r") as stats:
        proc = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", stats.name] + argv, stdout=subprocess.DEVNULL)
        if proc.returncode != 0:
            sys.exit(f"{argv[0]} failed with exit code {proc.returncode}")
        user, system, peak = stats.read().split()[-3:]
    return float(user) + float(system), float(peak) / 1024.0


def measure(bench, tolerance=None, per_state=PER_STATE, run_pymbar=True, python_path=None, logz_cli=None):
    """Runs logz's two MBAR benchmarks and (unless run_pymbar is false) pymbar, each in its own
    process, on K_STATES x per_state samples. Returns {"per_state", "u_mib", "tolerance",
    "pymbar": None or (CPU s, peak MiB, 2 x K array of log(Z_k/Z_1) and errors),
    "logz": {"dense" | "linear": (benchmark JSON, peak MiB, 2 x K array)},
    "python": None or (CPU s, peak MiB, 2 x K array) of logz.mbar from Python (python_path given),
    "cli": None or (CPU s, peak MiB, 2 x K array) of `logz estimate --u-kn` (logz_cli given)}."""
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(0.0, 1.0 / np.sqrt(ck), per_state) for ck in levels()])
    result = {"per_state": per_state, "u_mib": K_STATES * len(x) * 8 / 2**20, "tolerance": tolerance,
              "pymbar": None, "logz": {}, "python": None, "cli": None}
    with tempfile.TemporaryDirectory() as tmp:
        x_path = os.path.join(tmp, "x.npy")
        np.save(x_path, x)
        env = dict(os.environ, LOGZ_BENCH_MBAR_SAMPLES=x_path, LOGZ_BENCH_MBAR_OUT=tmp)
        for name, key in (("BM_MbarHarmonic100x10000", "dense"), ("BM_MbarHarmonicLinear100x10000", "linear")):
            out, peak = run_child([bench, f"--benchmark_filter=^{name}", "--benchmark_format=json"], env)
            b = json.loads(out)["benchmarks"][0]
            result["logz"][key] = (b, peak, np.load(os.path.join(tmp, key + ".npy")))
        if run_pymbar:
            pymbar_out = os.path.join(tmp, "pymbar.npy")
            out, pymbar_peak = run_child([sys.executable, os.path.abspath(__file__), "--pymbar-child", x_path,
                                          pymbar_out, "default" if tolerance is None else repr(tolerance)])
            result["pymbar"] = (json.loads(out)["cpu_time"], pymbar_peak, np.load(pymbar_out))
        if python_path:
            python_out = os.path.join(tmp, "python.npy")
            env = dict(os.environ, PYTHONPATH=os.path.abspath(python_path))
            out, python_peak = run_child([sys.executable, os.path.abspath(__file__), "--logz-python-child", x_path,
                                          python_out], env)
            result["python"] = (json.loads(out)["cpu_time"], python_peak, np.load(python_out))
        if logz_cli:
            u_path, n_path, out_path = (os.path.join(tmp, f) for f in ("u_kn.npy", "n_k.txt", "cli.json"))
            np.save(u_path, reduced_energies(x))
            np.savetxt(n_path, np.full(K_STATES, per_state), fmt="%d")
            seconds, peak = run_timed([logz_cli, "estimate", "--u-kn", u_path, "--n-k", n_path, "--output", out_path])
            j = json.load(open(out_path))
            se = np.array([0.0 if v is None else v for v in j["std_error"]])
            result["cli"] = (seconds, peak, np.vstack([j["log_z"], se]))
    return result


def main():
    args = sys.argv[1:]
    if len(args) == 4 and args[0] == "--pymbar-child":
        pymbar_child(args[1], args[2], None if args[3] == "default" else float(args[3]))
        return 0
    if len(args) == 3 and args[0] == "--logz-python-child":
        logz_python_child(args[1], args[2])
        return 0
    tolerance, per_state, python_path, logz_cli = None, PER_STATE, None, None
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    bench, rest = args[0], args[1:]
    while rest:
        if len(rest) >= 2 and rest[0] == "--pymbar-tolerance":
            tolerance = float(rest[1])
        elif len(rest) >= 2 and rest[0] == "--per-state":
            per_state = int(rest[1])
        elif len(rest) >= 2 and rest[0] == "--python":
            python_path = rest[1]
        elif len(rest) >= 2 and rest[0] == "--logz":
            logz_cli = rest[1]
        else:
            print(__doc__)
            return 2
        rest = rest[2:]
    m = measure(bench, tolerance, per_state, python_path=python_path, logz_cli=logz_cli)
    pymbar_s, pymbar_peak, pymbar_result = m["pymbar"]
    exact = -0.5 * np.log(10.0)
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                 "unknown processor")
    print(f"{K_STATES} states x {per_state} samples (u: {m['u_mib']:.0f} MiB) on {model}, "
          f"one thread; pymbar relative_tolerance {'default (1e-7)' if tolerance is None else tolerance}")
    print(f"pymbar MBAR:             {pymbar_s:8.2f} s  peak RSS {pymbar_peak:7.0f} MiB  "
          f"log(Z_K/Z_1) = {pymbar_result[0, -1]:.8f} +- {pymbar_result[1, -1]:.8f}")
    for key, label in (("dense", "logz mbar (dense u):"), ("linear", "logz mbar_linear_in_level:")):
        b, peak, r = m["logz"][key]
        diff = np.abs(r - pymbar_result).max(axis=1)
        print(f"{label:26s}{b['cpu_time']:6.2f} s  peak RSS {peak:7.0f} MiB  "
              f"log(Z_K/Z_1) = {b['log_z_last']:.8f} +- {b['std_error_last']:.8f}  "
              f"pymbar / logz = {pymbar_s / b['cpu_time']:5.1f}  "
              f"max |diff| vs pymbar: log Z {diff[0]:.1e}, se {diff[1]:.1e}  ({int(b['iterations'])} Newton iterations)")
    for key, label, note in (("python", "logz.mbar from Python:", ""),
                             ("cli", "logz estimate --u-kn:", "  (whole process, u_kn streamed from its file)")):
        if m[key]:
            s, peak, r = m[key]
            diff = np.abs(r - pymbar_result).max(axis=1)
            print(f"{label:26s}{s:6.2f} s  peak RSS {peak:7.0f} MiB  "
                  f"log(Z_K/Z_1) = {r[0, -1]:.8f} +- {r[1, -1]:.8f}  pymbar / logz = {pymbar_s / s:5.1f}  "
                  f"max |diff| vs pymbar: log Z {diff[0]:.1e}, se {diff[1]:.1e}{note}")
    print(f"exact log(Z_K/Z_1) = {exact:.8f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

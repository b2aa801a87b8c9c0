#!/usr/bin/python3
"""Rank-count invariance of logz run (or loglik): the JSON of one process (the tool started without mpirun)
and of mpirun -np R with T threads per rank must agree bit for bit (estimates, works, traces,
everything but timings), for each (R, T) in RANKS_THREADS.

usage: rank_invariance.py LOGZ MPIEXEC COMMAND CONFIG [--set KEY=VALUE ...]
"""
import json
import math
import sys
import tempfile
from pathlib import Path

from mpi_support import mpirun_command, run

RANKS_THREADS = [(1, 2), (2, 1), (3, 2), (4, 1)]
TIMING_KEYS = {"runtime_s", "seconds", "wall_s"}


def strip_timings(node):
    """The result without its timings and the config's thread count (they differ by design)."""
    if isinstance(node, dict):
        return {k: strip_timings(v) for k, v in node.items() if k not in TIMING_KEYS and k != "threads"}
    if isinstance(node, list):
        return [strip_timings(v) for v in node]
    return node


def strip_runtime(table):
    return [line for line in table.splitlines() if not line.startswith("runtime:")]


def differences(a, b, where="", out=None):
    """Paths at which two JSON trees differ; floats compared by their bits (NaN equals NaN)."""
    out = [] if out is None else out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{where}.{k}: only in one")
            else:
                differences(a[k], b[k], f"{where}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{where}: {len(a)} vs {len(b)} items")
        for i, (x, y) in enumerate(zip(a, b)):
            differences(x, y, f"{where}[{i}]", out)
    elif isinstance(a, float) and isinstance(b, float):
        if not (a == b or (math.isnan(a) and math.isnan(b))) or math.copysign(1, a) != math.copysign(1, b):
            out.append(f"{where}: {a!r} vs {b!r}")
    elif a != b or type(a) is not type(b):
        out.append(f"{where}: {a!r} vs {b!r}")
    return out


def run_logz(cmd, output):
    p = run(cmd + ["--quiet", "--output", str(output)])
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr}")
    return p.stdout, json.loads(output.read_text())


def main():
    logz, mpiexec, command, config, sets = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base = [command, config] + sets
        table, reference = run_logz([logz] + base + ["--threads", "1"], tmp / "serial.json")
        if not (reference.get("estimates") or reference.get("points")):
            sys.exit("FAIL: the serial run has no estimates (or points) to compare")
        failures = []
        for ranks, threads in RANKS_THREADS:
            out = tmp / f"r{ranks}t{threads}.json"
            stdout, result = run_logz(mpirun_command(mpiexec, ranks, [logz] + base + ["--threads", str(threads)]), out)
            diff = differences(strip_timings(reference), strip_timings(result))
            # Rank 0 alone prints the table: exactly one copy of it.
            if strip_runtime(stdout) != strip_runtime(table):
                diff.append("stdout: not the serial run's table once")
            print(f"{ranks} ranks x {threads} threads: {'same bits' if not diff else f'{len(diff)} differences'}")
            failures += [f"{ranks}x{threads} {d}" for d in diff[:10]]
        if failures:
            sys.exit("FAIL:\n" + "\n".join(failures))
    print("PASS: estimates (and everything but timings) bitwise equal for", RANKS_THREADS)


if __name__ == "__main__":
    main()

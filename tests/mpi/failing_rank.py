#!/usr/bin/python3
"""A rank that fails must not leave the others waiting: under mpirun, one rank reads a bad
weights file while the others run; every rank must exit non-zero within the timeout, and the
error must be printed once, as one line naming the rank and the file (mpirun -q: mpirun's own
messages left out, so stderr is that line alone). Then one rank is stopped by SIGTERM in the
middle of its paths (all exit 130), every rank reads the bad file (rank 0 reports), a command
that is not split over ranks is refused once.

usage: failing_rank.py LOGZ MPIEXEC RBM_CONFIG ISING_CONFIG
"""
import subprocess
import sys
import time
import tempfile
from pathlib import Path

from mpi_support import mpirun_command, run


def logz_lines(stderr):
    return [line for line in stderr.splitlines() if line.strip()]


def expect_one_error(name, p, rank, needle, prefix="error: "):
    lines = logz_lines(p.stderr)
    problems = []
    if p.returncode == 0:
        problems.append("mpirun exited 0")
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr, expected 1: {lines[:5]}")
    elif not lines[0].startswith(f"logz: rank {rank}: {prefix}") or needle not in lines[0]:
        problems.append(f"line {lines[0]!r}: expected 'logz: rank {rank}: {prefix}...{needle}...'")
    if p.stdout.strip():
        problems.append(f"stdout not empty: {p.stdout[:200]!r}")
    print(f"{name}: exit {p.returncode}, {lines}")
    return [f"{name}: {x}" for x in problems]


def main():
    logz, mpiexec, config, ising = sys.argv[1:5]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        bad = Path(tmp) / "bad-weights.npz"
        bad.write_bytes(b"PK\x03\x04 this is not a zip archive")
        # Enough work on the good ranks that they reach their first collective after rank 1 failed.
        sets = ["--set", "schedule.num_steps=200", "--set", "run.num_paths=24", "--set", "run.chunk_size=4",
                "--quiet"]
        script = (f'cfg="$1"; shift; if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then '
                  f'exec "$0" run "$cfg" --set model.weights={bad} "$@"; else exec "$0" run "$cfg" "$@"; fi')
        try:
            p = run(mpirun_command(mpiexec, 3, ["sh", "-c", script, logz, config] + sets, quiet=True), timeout=120)
        except subprocess.TimeoutExpired:
            sys.exit("FAIL: one failing rank: mpirun still running after 120 s (a rank waits for the failed one)")
        failures += expect_one_error("rank 1 fails", p, 1, str(bad))

        # Rank 1 stopped (SIGTERM) in the middle of its paths, while the others still run theirs:
        # they learn it at their gather, and all exit 130.
        long_run = ["--set", "model.size=16", "--set", "run.num_paths=48", "--set", "run.chunk_size=2",
                    "--set", "schedule.num_steps=2000", "--set", "kernel.steps_per_temperature=8000", "--quiet"]
        script = ('cfg="$1"; shift; if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then "$0" run "$cfg" "$@" & pid=$!; '
                  'sleep 2; kill -TERM $pid; wait $pid; else exec "$0" run "$cfg" "$@"; fi')
        started = time.time()
        try:
            p = run(mpirun_command(mpiexec, 3, ["sh", "-c", script, logz, ising] + long_run, quiet=True), timeout=300)
        except subprocess.TimeoutExpired:
            sys.exit("FAIL: rank 1 stopped mid-run: mpirun still running after 300 s")
        failures += expect_one_error("rank 1 stopped mid-run", p, 1, "stopped by a signal", prefix="")
        if p.returncode != 130:
            failures.append(f"rank 1 stopped mid-run: mpirun exited {p.returncode}, expected 130")
        print(f"  ({time.time() - started:.1f} s)")

        p = run(mpirun_command(mpiexec, 2, [logz, "run", config, "--set", f"model.weights={bad}", "--quiet"], quiet=True),
                timeout=120)
        failures += expect_one_error("every rank fails", p, 0, str(bad))

        p = run(mpirun_command(mpiexec, 2, [logz, "exact", "ising", "--size", "4", "--beta", "0.5"], quiet=True),
                timeout=120)
        failures += expect_one_error("a command not split over ranks", p, 0, "expected one process")
    if failures:
        sys.exit("FAIL:\n" + "\n".join(failures))
    print("PASS")


if __name__ == "__main__":
    main()

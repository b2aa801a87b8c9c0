#!/usr/bin/python3
"""Checkpoints under MPI (docs/checkpoint.md): a run split over ranks, stopped part way
(SIGTERM to mpirun, which forwards it to every rank; or to one rank alone), resumes with another
number of ranks, or as one process, and reports the bits of an uninterrupted run on one process.

    1. mpirun -np 2 ... --checkpoint C, stopped (SIGTERM to mpirun) once C holds `at` progress;
    2. mpirun -np 3 ... --resume C, stopped again further on (unless it ends first);
    3. logz run --resume C as one process, to the end: its JSON must equal the serial run's;
    4. mpirun -np 3 ... --checkpoint C with rank 1 alone stopped: rank 0 saves what the ranks
       last agreed on and says how to resume (one line); mpirun -np 2 --resume C to the end.

usage: checkpoint_ranks.py LOGZ MPIEXEC CONFIG AT FURTHER [--set KEY=VALUE ...]
AT, FURTHER: progress (annealing chunks merged plus tempering iterations and sweeps plus parallel
tempering scans plus SMC temperatures, summed over the checkpoint's phases and runs) at which the first and second runs
are stopped.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mpi_support import mpi_env, mpirun_command
from rank_invariance import differences, strip_timings


def progress_saved(checkpoint):
    """The progress a checkpoint holds; -1 when there is none (yet)."""
    try:
        text = Path(checkpoint).read_bytes()
    except FileNotFoundError:
        return -1
    body = json.loads(text[text.index(b"\n") + 1:])
    n = sum(p["chunks_done"] for p in body.get("phases", []))
    for t in body.get("tempering_runs", []):
        n += t["initial"]["iterations"] + t["wang_landau"]["sweeps"] + t["final_run"]["sweeps_done"]
    for t in body.get("pt_runs", []):
        n += t["scans_done"] + sum(r["scans"] for r in t["rounds_done"])
    for t in body.get("smc_runs", []):
        n += t["temperatures"]
    return n


def run_stopped(cmd, checkpoint, at, timeout=240):
    """Runs cmd; once `checkpoint` holds `at` progress, sends SIGTERM to it (at < 0: never).
    Returns (exit code, stderr, stopped)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=mpi_env())
    stopped = False
    limit = time.time() + timeout
    while at >= 0 and p.poll() is None and time.time() < limit:
        if progress_saved(checkpoint) >= at:
            p.send_signal(signal.SIGTERM)
            stopped = True
            break
        time.sleep(0.005)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        sys.exit(f"FAIL: {' '.join(cmd)} still running after {timeout} s")
    return p.returncode, err, stopped


def result_of(path):
    return strip_timings(json.loads(Path(path).read_text()))


def main():
    logz, mpiexec, config, at, further, sets = (sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]),
                                                 int(sys.argv[5]), sys.argv[6:])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        serial, out, ckpt = tmp / "serial.json", tmp / "out.json", tmp / "run.ckpt"
        p = subprocess.run([logz, "run", config] + sets + ["-q", "--threads", "1", "-o", str(serial)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"FAIL: the serial run exited {p.returncode}: {p.stderr}")
        expected = result_of(serial)

        def mpi(ranks, args):
            out.unlink(missing_ok=True)
            return mpirun_command(mpiexec, ranks, [logz, "run"] + args + ["-q", "--threads", "1", "-o", str(out)],
                                  quiet=True)

        def check(name, code, err, stopped, must_stop):
            saved = progress_saved(ckpt)
            print(f"{name}: exit {code}, stopped {stopped}, progress saved {saved}")
            # mpirun forwards SIGTERM to every rank and exits with its own code (1 with Open MPI);
            # the ranks stop, and rank 0 saves and says how to resume.
            if stopped and code == 0:
                failures.append(f"{name}: exit 0 after SIGTERM")
            if not stopped and code != 0:
                failures.append(f"{name}: exit {code}: {err.strip()[:300]}")
            if must_stop and not (stopped and code != 0 and not out.exists()):
                failures.append(f"{name}: the run ended before it was stopped")
            # A run that ended before the forwarded signal reached its ranks wrote its result.
            if stopped and code != 0 and not out.exists() and "--resume" not in err:
                failures.append(f"{name}: stderr does not say how to resume: {err.strip()[:300]}")
            if Path(str(ckpt) + ".tmp").exists():
                failures.append(f"{name}: a temporary checkpoint was left behind")
            return saved

        def compare(name, p):
            """A finished resume's result against the serial run's, bit for bit."""
            if p.returncode != 0:
                failures.append(f"{name}: exit {p.returncode}: {p.stderr.strip()[:300]}")
                return
            diff = differences(expected, result_of(out))
            print(f"{name}: {'same bits' if not diff else f'{len(diff)} differences'}")
            failures.extend(f"{name}: {d}" for d in diff[:10])

        # 1-3: 2 ranks, then 3, then one process.
        code, err, stopped = run_stopped(mpi(2, [config] + sets + ["--checkpoint", str(ckpt), "--checkpoint-every",
                                                                    "0"]), ckpt, at)
        saved = check("2 ranks, stopped", code, err, stopped, must_stop=True)
        code, err, stopped = run_stopped(mpi(3, ["--resume", str(ckpt), "--checkpoint-every", "0"]), ckpt,
                                         saved + further)
        check("resumed on 3 ranks, stopped again", code, err, stopped, must_stop=False)
        p = subprocess.run([logz, "run", "--resume", str(ckpt), "-q", "--threads", "2", "-o", str(out)],
                           capture_output=True, text=True)
        compare("2 ranks -> 3 ranks -> 1 process", p)

        # 4: rank 1 alone stopped; rank 0 learns it at the next collective, saves, and says so once.
        ckpt.unlink()
        out.unlink(missing_ok=True)
        script = ('if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then "$0" "$@" & pid=$!; '
                  f'while [ ! -s {ckpt} ]; do sleep 0.01; done; sleep 0.3; kill -TERM $pid; wait $pid; '
                  'else exec "$0" "$@"; fi')
        cmd = mpirun_command(mpiexec, 3, ["sh", "-c", script, logz, "run", config] + sets +
                             ["-q", "--threads", "1", "-o", str(out), "--checkpoint", str(ckpt),
                              "--checkpoint-every", "0"], quiet=True)
        code, err, _ = run_stopped(cmd, ckpt, -1)
        lines = [line for line in err.splitlines() if line.strip()]
        print(f"rank 1 stopped alone: exit {code}, progress saved {progress_saved(ckpt)}, {lines}")
        if code != 130:
            failures.append(f"rank 1 stopped alone: exit {code}, expected 130")
        if len(lines) != 1 or "--resume" not in lines[0]:
            failures.append(f"rank 1 stopped alone: expected one line saying how to resume, got {lines}")
        if out.exists():
            failures.append("rank 1 stopped alone: a result was written")
        p = subprocess.run(mpi(2, ["--resume", str(ckpt)]), capture_output=True, text=True, env=mpi_env())
        compare("3 ranks (one stopped) -> 2 ranks", p)
    if failures:
        sys.exit("FAIL:\n" + "\n".join(failures))
    print("PASS")


if __name__ == "__main__":
    main()

"""Shared helpers of the reproduction scripts: find the logz tool, run it, read results.

Each script writes into an output folder (default build/reproductions/NAME),
prints the numbers that docs/reproductions/ quotes, and draws its figure with
gnuplot. Run from the repository root after `make build`.
"""
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def logz_binary():
    path = os.environ.get("LOGZ", os.path.join(ROOT, "build", "logz"))
    if not os.path.exists(path):
        sys.exit(f"reproduce: {path}: expected the logz tool (run `make build`, or set LOGZ=path)")
    return path


def output_dir(name, argv):
    out = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(ROOT, "build", "reproductions", name))
    os.makedirs(out, exist_ok=True)
    return out


def run_logz(config, out_json, sets=(), extra=(), command="run"):
    """Runs `logz COMMAND CONFIG --set ... -o OUT_JSON -q` (COMMAND: run or loglik); returns
    (result, wall seconds)."""
    cmd = [logz_binary(), command, config, "-q", "-o", out_json]
    # LOGZ_EXTRA_SETS="a.b=1|c.d=2" shrinks a reproduction for the smoke tests.
    extra_sets = [s for s in os.environ.get("LOGZ_EXTRA_SETS", "").split("|") if s]
    for s in list(sets) + extra_sets:
        cmd += ["--set", s]
    cmd += list(extra)
    start = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.time() - start
    if proc.returncode != 0:
        sys.exit(f"reproduce: {' '.join(cmd)} failed: {proc.stderr.strip()}")
    with open(out_json) as f:
        return json.load(f), wall


def repetition_summary(result):
    """{method: summary dict} of a result of [run] repetitions."""
    return {m["method"]: m for m in result["details"]["repetitions"]["methods"]}


def gnuplot(script_path):
    if shutil.which("gnuplot") is None:
        sys.exit("reproduce: gnuplot: not found (sudo apt-get install gnuplot-nox)")
    subprocess.run(["gnuplot", os.path.basename(script_path)], cwd=os.path.dirname(script_path), check=True)


def num(x, digits=2):
    """A JSON number for a table: NaN where the JSON has null (an error bar that could not be
    estimated, e.g. BAR on works that do not overlap)."""
    return "nan" if x is None else f"{x:.{digits}f}"

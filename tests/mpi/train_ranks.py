#!/usr/bin/python3
"""logz train rbm under MPI: every rank trains alike, rank 0 writes, and the AIS evaluation after
training splits its paths over the ranks. The weights, the history and the evaluation JSON of
mpirun -np R (R = 2, 3) must be those of one process, bit for bit (but for timings).

usage: train_ranks.py LOGZ MPIEXEC
"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from mpi_support import mpirun_command, run
from rank_invariance import differences, strip_timings


def config_text(tmp, name, data):
    return f"""[data]
source = "npy"
path = "{data}"
num_validation = 20
[model]
num_hidden = 4
[training]
method = "pcd"
k = 1
batch_size = 10
learning_rate = 0.05
epochs = 5
seed = 3
[evaluate]
method = "ais"
num_paths = 23
num_steps = 300
output = "{tmp / (name + '.eval.json')}"
[output]
weights = "{tmp / (name + '.npz')}"
history = "{tmp / (name + '.history.csv')}"
"""


def history_without_seconds(path):
    return [",".join(line.split(",")[:-1]) for line in Path(path).read_text().splitlines()]


def main():
    logz, mpiexec = sys.argv[1], sys.argv[2]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = tmp / "data.npy"
        np.save(data, (np.random.default_rng(7).random((120, 12)) < 0.3).astype(np.float64))
        outputs = {}
        for name, ranks in [("serial", 0), ("r2", 2), ("r3", 3)]:
            config = tmp / f"{name}.toml"
            config.write_text(config_text(tmp, name, data))
            cmd = [logz, "train", "rbm", str(config), "--quiet"]
            p = run(mpirun_command(mpiexec, ranks, cmd, quiet=True) if ranks else cmd)
            if p.returncode != 0:
                sys.exit(f"FAIL: {name}: exit {p.returncode}: {p.stderr}")
            outputs[name] = p.stdout
        serial_eval = strip_timings(json.loads((tmp / "serial.eval.json").read_text()))
        serial_eval.get("model", {}).pop("weights", None)
        for name in ("r2", "r3"):
            diff = []
            if (tmp / f"{name}.npz").read_bytes() != (tmp / "serial.npz").read_bytes():
                diff.append("weights differ")
            if history_without_seconds(tmp / f"{name}.history.csv") != history_without_seconds(tmp / "serial.history.csv"):
                diff.append("history differs")
            evaluation = strip_timings(json.loads((tmp / f"{name}.eval.json").read_text()))
            evaluation.get("model", {}).pop("weights", None)
            diff += differences(serial_eval, evaluation)
            lines = [line for line in outputs[name].splitlines() if "wrote" in line]
            if len(lines) != 1:
                diff.append(f"stdout: expected one 'wrote' line (rank 0 alone prints), got {lines}")
            print(f"{name}: {'same bits' if not diff else f'{len(diff)} differences'}")
            failures += [f"{name}: {d}" for d in diff[:10]]
    if failures:
        sys.exit("FAIL:\n" + "\n".join(failures))
    print("PASS")


if __name__ == "__main__":
    main()

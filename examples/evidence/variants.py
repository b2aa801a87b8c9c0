#!/usr/bin/python3
"""Other instances of the suite's six classes: logz.evidence with its defaults on problems it was
not tuned to (issue 45: "other instances of these classes ... will be run against logz.evidence
with its defaults, so make the method right, not the examples").

Each instance draws its class's parameters (dimension, data size and noise, condition number,
mixture weights and separation, shell radius and width, twist, degrees of freedom, prior width,
data seed) from stated ranges with a numpy generator seeded by --seed, builds the problem with
examples/evidence/problems.py (exact log Z as there), runs logz.evidence with nothing but the
likelihood, gradient, prior and a seed, and gives the suite's verdict (run_suite.py: PASS,
FLAGGED, MISS). The exit status is 1 if any run is a MISS.

    PYTHONPATH=build/python /usr/bin/python3 examples/evidence/variants.py --seed 1 --per-class 4
    PYTHONPATH=build/python /usr/bin/python3 examples/evidence/variants.py --classes shells student --max-dim 20
    PYTHONPATH=build/python /usr/bin/python3 examples/evidence/variants.py --seed 10 --max-dim 100
"""
import argparse
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import problems as P  # noqa: E402
from run_suite import verdict  # noqa: E402

# Parameter ranges per class: a dimension list, and a function of (rng, d) giving the keyword
# arguments of the class's constructor in problems.py.
DIMS = {
    "linreg": (3, 7, 15, 25, 50),
    "rotated": (3, 7, 15, 25, 50),
    "mixture": (2, 3, 5, 8, 15, 25),
    "shells": (3, 4, 7, 12, 20),
    "banana": (2, 3, 6, 12, 25, 50),
    "student": (3, 7, 15, 25, 50),
}

# With --max-dim above 50, the larger instances the range (d up to 100) holds too. Kept
# apart so that the default draws the same instances as before they were added.
LARGE_DIMS = {"linreg": (100,), "rotated": (100,), "mixture": (50, 100), "shells": (50,),
              "banana": (100,), "student": (100,)}


def _linreg(rng, d):
    return dict(n=int(rng.choice([d + 5, 2 * d + 20, 200])), noise_sd=float(rng.choice([0.3, 1.0, 2.0])),
                prior_sd=float(rng.choice([0.5, 1.0, 3.0, 10.0])), seed=int(rng.integers(1, 10 ** 6)))


def _rotated(rng, d):
    return dict(smallest_sd=float(rng.choice([0.002, 0.005, 0.01])), largest_sd=float(rng.choice([1.0, 2.0])),
                prior_sd=float(rng.choice([2.0, 5.0, 10.0])), seed=int(rng.integers(1, 10 ** 6)))


def _mixture(rng, d):
    w = rng.dirichlet([1.0, 1.0, 1.0])
    w = np.maximum(w, 0.03)
    return dict(weights=tuple(float(x) for x in w / w.sum()), distance=float(rng.choice([3.0, 4.0, 5.0])),
                component_sd=float(rng.choice([0.2, 0.3, 0.5])), prior_sd=float(rng.choice([3.0, 4.0])))


def _shells(rng, d):
    return dict(radius=float(rng.choice([1.5, 2.0, 2.5])), width=float(rng.choice([0.05, 0.1, 0.2])),
                centre=float(rng.choice([3.0, 3.5])))


def _banana(rng, d):
    return dict(twist=float(rng.choice([0.03, 0.1, 0.2])), prior_sd=float(rng.choice([5.0, 10.0, 15.0])))


def _student(rng, d):
    return dict(df=float(rng.choice([1.5, 2.0, 3.0, 5.0])), smallest_scale=float(rng.choice([0.1, 0.3])),
                largest_scale=float(rng.choice([1.0, 2.0])), prior_sd=float(rng.choice([2.0, 3.0, 5.0])),
                seed=int(rng.integers(1, 10 ** 6)))


PARAMETERS = {"linreg": _linreg, "rotated": _rotated, "mixture": _mixture, "shells": _shells,
              "banana": _banana, "student": _student}


def instance(kind, rng, max_dim):
    listed = DIMS[kind] + (LARGE_DIMS[kind] if max_dim > 50 else ())
    dims = [d for d in listed if d <= max_dim] or [min(DIMS[kind])]
    d = int(rng.choice(dims))
    kwargs = PARAMETERS[kind](rng, d)
    if kind == "shells":
        # The exact value assumes the box holds the shells: keep instances whose mass outside is tiny.
        while P.shell_mass_outside_box_bound(d, kwargs["radius"], kwargs["width"], kwargs["centre"]) > 1e-6:
            kwargs = PARAMETERS[kind](rng, d)
    return P.CONSTRUCTORS[kind](d, **kwargs), kwargs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--classes", nargs="+", default=list(PARAMETERS), choices=list(PARAMETERS))
    ap.add_argument("--per-class", type=int, default=3, help="instances per class (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="seeds the instances' parameters and the runs")
    ap.add_argument("--max-dim", type=int, default=50,
                    help="largest dimension (default 50; above 50 adds the d = 50-100 instances)")
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    import logz
    rng = np.random.default_rng(args.seed)
    counts = {}
    for kind in args.classes:
        for i in range(args.per_class):
            problem, kwargs = instance(kind, rng, args.max_dim)
            run_seed = int(rng.integers(0, 2 ** 31))
            t0 = time.perf_counter()
            with np.errstate(all="ignore"):
                r = logz.evidence(problem.log_likelihood, P.logz_prior(problem), grad=problem.grad, seed=run_seed,
                                  threads=args.threads, progress=False)
            wall = time.perf_counter() - t0
            err, se, flags = float(r.log_z) - problem.exact_log_z, float(r.std_error), list(r.flags)
            v = verdict(err, se, flags)
            counts[v] = counts.get(v, 0) + 1
            z = err / se if se > 0 and math.isfinite(se) else float("nan")
            shown = ", ".join(f"{k}={round(x, 3) if isinstance(x, float) else x}" for k, x in kwargs.items())
            print(f"{problem.name:12s} seed {run_seed:10d} exact {problem.exact_log_z:10.4f} error {err:+8.4f} "
                  f"SE {se:6.4f} z {z:+6.2f} {wall:6.1f} s  {v:7s} {','.join(flags)}  [{shown}]", flush=True)
    print(", ".join(f"{v} {counts.get(v, 0)}" for v in ("PASS", "FLAGGED", "MISS")))
    return 1 if counts.get("MISS") else 0


if __name__ == "__main__":
    sys.exit(main())

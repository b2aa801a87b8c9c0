#!/usr/bin/python3
"""logz's own time beside the user's functions in logz.evidence (issue 45's wall-time target:
logz's share at most 40% of the user's).

Each problem of the evidence suite runs with logz.evidence's defaults on one thread, its
log-likelihood and gradient wrapped in timers. On one thread the run's wall time is the user's
functions' time plus logz's own (the method, the priors' densities and draws, the calls across
from C++ and the conversions of their arrays), so

    logz share = (wall - user) / user.

The same run on two threads gives the wall-time ratio two threads / one thread (the user's
functions are called from both threads; numpy releases the GIL inside its array operations but
not between them, so a function of many small numpy calls scales less than one of a few large
ones).

    PYTHONPATH=build/python /usr/bin/python3 bench/peers/evidence_overhead.py linreg-d10 shells-d10
    PYTHONPATH=build/python /usr/bin/python3 bench/peers/evidence_overhead.py --small
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE_DIR, "examples", "evidence"))

import problems as P  # noqa: E402


class Timed:
    """A function that adds the wall time of its calls to `seconds`."""

    def __init__(self, f):
        self.f, self.seconds, self.calls, self.rows = f, 0.0, 0, 0

    def __call__(self, X):
        t0 = time.perf_counter()
        try:
            return self.f(X)
        finally:
            self.seconds += time.perf_counter() - t0
            self.calls += 1
            self.rows += len(X)


def measure(logz, problem, seed, threads):
    log_l, grad = Timed(problem.log_likelihood), Timed(problem.grad)
    t0 = time.perf_counter()
    r = logz.evidence(log_l, P.logz_prior(problem), grad=grad, seed=seed, threads=threads, progress=False)
    wall = time.perf_counter() - t0
    user = log_l.seconds + grad.seconds
    calls = log_l.calls + grad.calls
    return dict(wall=wall, user=user, calls=calls, per_call=(log_l.rows + grad.rows) / max(calls, 1), error=float(r.log_z) - problem.exact_log_z,
                std_error=float(r.std_error), flags=list(r.flags))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*", help="problem names, e.g. shells-d10 (default: --small)")
    ap.add_argument("--small", action="store_true", help="the small suite")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-two-threads", action="store_true", help="only the one-thread run")
    args = ap.parse_args(argv)
    import logz
    problems = [P.make(*P.parse_name(n)) for n in args.problems] if args.problems else P.small_suite()
    print("| problem | wall, 1 thread (s) | user's functions (s) | calls | particles per call | logz's own (s) "
          "| logz share | wall, 2 threads (s) | 2 / 1 threads | error, SE |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for problem in problems:
        one = measure(logz, problem, args.seed, 1)
        own = one["wall"] - one["user"]
        two = None if args.no_two_threads else measure(logz, problem, args.seed, 2)
        wall2 = "" if two is None else f"{two['wall']:.2f}"
        ratio = "" if two is None else f"{two['wall'] / one['wall']:.2f}"
        flags = f" ({', '.join(one['flags'])})" if one["flags"] else ""
        print(f"| {problem.name} | {one['wall']:.2f} | {one['user']:.2f} | {one['calls']} | "
              f"{one['per_call']:.0f} | {own:.2f} | {own / one['user']:.0%} | {wall2} | {ratio} | "
              f"{one['error']:+.3f}, {one['std_error']:.3f}{flags} |", flush=True)


if __name__ == "__main__":
    main()

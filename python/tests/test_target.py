"""The user's own model as Python functions (logz.Target) annealed by logz.anneal: known answers
within 5 standard errors, thread-count invariance, Ctrl-C, and errors that say what is wrong.

Tolerances: |estimate - exact| <= 5 SE + 0.05 (a bias allowance for AIS's log of a mean, of
order var(W) / 2M, which is below 0.02 at these budgets)."""
import json
import math
import os
import signal
import sys
import time

import numpy as np
import pytest

import logz

SCALES = np.array([0.5, 1.0, 2.0, 3.0])


def anisotropic_gaussian():
    """N(0, diag(SCALES^2)): log Z = sum log(sqrt(2 pi) s_i)."""
    return logz.Target(len(SCALES), lambda X: 0.5 * ((X / SCALES) ** 2).sum(axis=1), lambda X: X / SCALES ** 2,
                       exact_log_z=float(np.sum(np.log(math.sqrt(2 * math.pi) * SCALES))))


def banana(s=1.5, b=0.5, dim=3):
    """The twisted Gaussian of examples/cpp/custom_model.cpp: log Z = (d/2) log 2 pi + log s."""
    def energy(X):
        twist = X[:, 1] + b * (X[:, 0] ** 2 - s * s)
        return 0.5 * X[:, 0] ** 2 / (s * s) + 0.5 * twist ** 2 + 0.5 * (X[:, 2:] ** 2).sum(axis=1)

    def grad(X):
        twist = X[:, 1] + b * (X[:, 0] ** 2 - s * s)
        G = X.copy()
        G[:, 0] = X[:, 0] / (s * s) + twist * 2 * b * X[:, 0]
        G[:, 1] = twist
        return G

    return logz.Target(dim, energy, grad, exact_log_z=0.5 * dim * math.log(2 * math.pi) + math.log(s))


def within(e, exact):
    return abs(e.log_z - exact) <= 5 * e.std_error + 0.05


def test_anisotropic_gaussian_with_hais_both_ways():
    t = anisotropic_gaussian()
    r = logz.anneal(t, base=logz.GaussianBase(4, sigma=2.0), num_steps=400, num_paths=200,
                    directions=("forward", "reverse"), seed=3)
    assert r.reference_log_z == t.exact_log_z
    for method in ("ais", "raise", "bar"):
        e = r.estimates[method]
        assert within(e, t.exact_log_z), e
    assert r.estimates["lower_bound"].log_z <= t.exact_log_z + 5 * r.estimates["lower_bound"].std_error


def test_banana_with_hais():
    t = banana()
    r = logz.anneal(t, base=logz.GaussianBase(3, sigma=2.0), num_steps=1000, num_paths=200, seed=5)
    assert within(r.estimates["ais"], t.exact_log_z), r.estimates["ais"]


def test_energy_and_grad_in_one_call_gives_the_same_bits():
    t = anisotropic_gaussian()
    calls = [0]

    def both(X):
        calls[0] += 1
        return t.energy(X), t.grad(X)

    fused = logz.Target(4, t.energy, energy_and_grad=both, exact_log_z=t.exact_log_z)
    kwargs = dict(base=logz.GaussianBase(4, sigma=2.0), num_steps=50, num_paths=40, seed=3, progress=False)
    a, b = logz.anneal(t, **kwargs), logz.anneal(fused, **kwargs)
    assert a.forward_works.tolist() == b.forward_works.tolist()
    assert calls[0] > 0
    with pytest.raises(logz.InvalidArgument, match="energy_and_grad: return value: expected a pair"):
        logz.anneal(logz.Target(4, t.energy, energy_and_grad=lambda X: t.energy(X)), **kwargs)


def test_metropolis_needs_no_gradient():
    t = logz.Target(2, lambda X: 0.125 * (X ** 2).sum(axis=1), exact_log_z=math.log(2 * math.pi * 4))  # N(0, 2^2 I)
    r = logz.anneal(t, kernel="metropolis", num_steps=300, num_paths=200, seed=2, proposal_sd=0.8,
                    steps_per_temperature=2)
    assert within(r.estimates["ais"], t.exact_log_z), r.estimates["ais"]


def test_same_bits_for_any_thread_count():
    t = banana()
    one = logz.anneal(t, num_steps=100, num_paths=40, seed=9, threads=1)
    two = logz.anneal(t, num_steps=100, num_paths=40, seed=9, threads=2)
    assert np.array_equal(one.forward_works, two.forward_works)



def test_a_worker_thread_keeps_its_python_state_through_a_run():
    # Each driver thread is one Python thread for the whole run: a threading.local the function
    # fills is still there at its next call (a thread state made and deleted per call lost it).
    import threading

    local = threading.local()
    calls = {}  # thread ident -> (calls, calls that found local.count set)
    both_threads = threading.Barrier(2, timeout=30)  # each thread's first call waits for the other's

    def energy(X):
        if threading.get_ident() not in calls:
            both_threads.wait()  # so the worker runs chunks, however fast the calling thread is
        local.count = getattr(local, "count", 0) + 1
        n, kept = calls.get(threading.get_ident(), (0, 0))
        calls[threading.get_ident()] = (n + 1, kept + (local.count > 1))
        return 0.5 * (X ** 2).sum(axis=1)

    # One direction: each direction's phase starts its own workers (a new thread may reuse an
    # ident), and this is about the calls within one.
    # A fixed step size and schedule: no pilot, whose particles are one batch on one thread.
    logz.anneal(logz.Target(2, energy, lambda X: X), num_steps=50, num_paths=40, seed=3, threads=2, chunk_size=10,
                directions=("forward",), step_size=0.2, schedule="linear")
    assert len(calls) == 2, calls  # the calling thread and one worker
    assert all(kept == n - 1 for n, kept in calls.values()), calls

def test_the_function_sees_read_only_batches_of_particles():
    seen = []

    def energy(X):
        seen.append((X.shape, X.dtype, X.flags.writeable))
        return 0.5 * (X ** 2).sum(axis=1)

    logz.anneal(logz.Target(3, energy, lambda X: X), num_steps=20, num_paths=10, seed=1, leapfrog_steps=1,
                step_size=0.2, schedule="linear")  # no pilots: the run's calls alone
    shapes = {s for s, _, _ in seen}
    assert all(s[1] == 3 and s[0] > 1 for s in shapes)  # batches, never single particles
    assert {d for _, d, _ in seen} == {np.dtype(np.float64)}
    assert not any(w for _, _, w in seen)
    assert len(seen) < 20 * 10  # once per batch and step, not per particle


@pytest.mark.parametrize("threads", [1, 2])
def test_particles_the_function_keeps_stay_as_they_were_at_the_call(threads):
    # X, a row of it and a memoryview of it, kept past the call and the run: each still holds
    # the values it had during its call (they once were views of logz's memory, freed or
    # overwritten by the next batch: wrong values, or a crash).
    kept = []

    def keep(X):
        kept.append((X, X[0], memoryview(X), X.copy()))  # one append: the threads' calls interleave

    def energy(X):
        keep(X)
        return 0.5 * (X ** 2).sum(axis=1)

    def grad(X):
        keep(X)
        return X.copy()

    logz.anneal(logz.Target(3, energy, grad), num_steps=20, num_paths=24, seed=2, threads=threads, chunk_size=8,
                progress=False)
    assert len(kept) > 20
    for X, row, view, copy in kept:
        assert not X.flags.writeable
        assert X.tobytes() == copy.tobytes()  # a memcpy: AddressSanitizer checks it (numpy's loops it does not)
        assert np.array_equal(row, copy[0])
        assert np.array_equal(np.asarray(view), copy)


def test_a_weak_reference_to_the_particles_never_sees_other_values():
    # An array logz reuses for the next batch is one nothing of the user's refers to, weakly
    # either: a weak reference is dead after the call or still sees the call's values.
    import weakref

    refs = []

    def energy(X):
        refs.append((weakref.ref(X), X.copy()))
        return 0.5 * (X ** 2).sum(axis=1)

    logz.anneal(logz.Target(2, energy), kernel="metropolis", num_steps=20, num_paths=8, seed=4, progress=False)
    for ref, copy in refs:
        X = ref()
        assert X is None or np.array_equal(X, copy)


def test_keeping_large_batches_of_particles_does_not_crash():
    # The case: dim 20000, every X kept and summed after the run (a segmentation fault
    # when X was a view of memory logz had freed). In a child process, so a crash fails the test.
    # A fixed step size: no pilot, whose 400 more batches kept would hold 2 GB for nothing.
    import subprocess
    import sys
    code = ("import numpy as np, logz\n"
            "keep, sums = [], []\n"
            "def e(X):\n"
            "    keep.append(X); sums.append(X.sum())\n"
            "    return 0.5 * (X ** 2).sum(1)\n"
            "logz.anneal(logz.Target(20000, e, lambda X: X.copy()), num_steps=5, num_paths=16, seed=1,\n"
            "            progress=False, threads=1, step_size_adaptation='fixed')\n"
            "assert [X.sum() for X in keep] == sums\n")
    done = subprocess.run([sys.executable, "-c", code], timeout=120, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_gradient_kernel_without_gradient_is_an_error():
    t = logz.Target(2, lambda X: (X ** 2).sum(axis=1))
    with pytest.raises(logz.InvalidArgument, match='kernel: "hais" moves particles along the gradient'):
        logz.anneal(t)


@pytest.mark.parametrize("energy", [lambda X: np.zeros(len(X) + 1), lambda X: np.zeros((len(X), 2))])
def test_wrong_shape_from_the_user_function_names_it(energy):
    t = logz.Target(2, energy, lambda X: X)
    with pytest.raises(logz.InvalidArgument, match=r"^logz.Target.energy: return value: expected an array of shape"):
        logz.anneal(t, num_steps=10, num_paths=4)
    with pytest.raises(logz.InvalidArgument, match=r"^logz.Target.grad: return value: expected an array of shape"):
        logz.anneal(logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X[:, 0]), num_steps=10, num_paths=4)


def test_non_finite_energy_names_the_path_and_temperature():
    def energy(X):
        e = 0.5 * (X ** 2).sum(axis=1)
        e[0] = np.inf  # +inf: outside the support, allowed; the work from it is not finite
        return e

    with pytest.raises(logz.NumericalError, match="non-finite work increment .* path .* temperature"):
        logz.anneal(logz.Target(2, energy, lambda X: X), num_steps=10, num_paths=4)


@pytest.mark.parametrize("bad", [np.nan, -np.inf])
def test_a_nan_or_minus_inf_energy_raises_where_it_appears(bad):
    # From the 31st call on, particle 3 of every batch gets a bad energy: the proposals of a
    # temperature inside the run (HAIS calls energy once per temperature, at the proposals), where
    # the Metropolis test would otherwise reject it without a word.
    calls = [0]

    def energy(X):
        calls[0] += 1
        e = 0.5 * (X ** 2).sum(axis=1)
        if calls[0] > 30:
            e[3] = bad
        return e

    with pytest.raises(logz.NumericalError,
                       match=r"^forward annealing, paths 0 - 7 \(particle i of the batch is path 0 \+ i\), temperature "
                             r"index (2|3)\d of the run \(path fraction 0\.\d+\): logz.Target.energy: particle 3 of a "
                             r"batch of 8: energy (nan|-inf) \(an energy is -log"):
        logz.anneal(logz.Target(2, energy, lambda X: X), num_steps=100, num_paths=8, seed=1, threads=1,
                    progress=False, step_size=0.2, schedule="linear")
    # With the defaults the step-size pilot meets it first, and says so.
    with pytest.raises(logz.NumericalError,
                       match=r"^the step-size pilot \(32 particles of its own, before the run\), path fraction "
                             r"0\.\d+: logz.Target.energy: particle 3 of a batch of 32: energy (nan|-inf)"):
        calls[0] = 0
        logz.anneal(logz.Target(2, energy, lambda X: X), num_steps=100, num_paths=8, seed=1, threads=1,
                    progress=False)
    # Tempering names the chains and the sweep.
    with pytest.raises(logz.NumericalError,
                       match=r"^simulated tempering, chains 0 - 3 \(particle i of the batch is chain 0 \+ i\), moved at "
                             r"step \d+: logz.Target.energy: particle 3 of a batch of 4: energy"):
        calls[0] = 0
        logz.temper(logz.Target(2, energy, lambda X: X), num_temperatures=4, num_chains=4, num_sweeps=50,
                    max_initial_iterations=2, threads=1, progress=False)


def test_a_gradient_where_the_energy_is_plus_inf_is_not_an_error():
    # A density that is zero (energy +inf) beyond radius 3, whose gradient there overflows to
    # inf: the rows mean nothing and their proposals are rejected (as logz.evidence does with a
    # log-likelihood of -inf), in both styles of Target; the run's estimate stays right. The
    # truncated Gaussian's mass inside the ball, in d = 2: 1 - exp(-9/2).
    def energy(X):
        r2 = (X ** 2).sum(axis=1)
        return np.where(r2 < 9.0, 0.5 * r2, np.inf)

    def grad(X):
        r2 = (X ** 2).sum(axis=1, keepdims=True)
        return np.where(r2 < 9.0, X, np.inf)

    exact = math.log(2.0 * math.pi * (1.0 - math.exp(-4.5)))
    for t in (logz.Target(2, energy, grad), logz.Target(2, energy, energy_and_grad=lambda X: (energy(X), grad(X)))):
        r = logz.smc(t, seed=4, threads=1, progress=False, base=logz.GaussianBase(2, sigma=2.0))
        est = r.estimates["smc"]
        assert abs(est.log_z - exact) <= 5.0 * est.std_error + 0.02, (est, exact)

    # Where the energy is finite an infinite gradient is still the user's bug, named.
    with pytest.raises(logz.NumericalError, match=r"logz.Target.grad: particle \d+ of a batch of \d+: non-finite"):
        logz.smc(logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: np.where(X > 1.0, np.inf, X)),
                 seed=4, threads=1, progress=False)


def test_non_finite_energy_in_tempering_names_the_chain_and_level():
    def energy(X):
        e = 0.5 * (X ** 2).sum(axis=1)
        e[0] = np.inf
        return e

    with pytest.raises(logz.NumericalError,
                       match=r"simulated tempering: non-finite energy for chain \d+ at step \d+, moved at level \d+ of 4 "
                             r"\(path fraction t = [0-9.e-]+\)"):
        logz.temper(logz.Target(2, energy, lambda X: X), num_temperatures=4, num_chains=4, num_sweeps=10,
                    max_initial_iterations=2, progress=False)


def test_tempering_reports_mean_energy_and_acceptance_per_level():
    # N(0, I) tempered from N(0, 2^2 I): U_target - U_base = |x|^2 (1 - 1/4) / 2, whose mean at
    # level t (a Gaussian of precision t + (1 - t) / 4 per coordinate) is 0.75 / precision.
    t = logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X)
    r = logz.temper(t, base=logz.GaussianBase(2, sigma=2.0), step_size=0.5, leapfrog_steps=5, num_temperatures=6,
                    num_chains=32, num_sweeps=300, max_initial_iterations=10, seed=4, progress=False,
                    methods=["rts", "ti_trapezoid"])
    k = 6
    assert r.fractions.shape == r.mean_energy.shape == r.acceptance.shape == (k,)
    assert r.fractions[0] == 0 and r.fractions[-1] == 1
    expected = 0.75 / (r.fractions + (1 - r.fractions) / 4)
    assert np.all(np.isfinite(r.mean_energy))
    assert np.allclose(r.mean_energy, expected, rtol=0.25), (r.mean_energy, expected)
    # Acceptance by level: weighted by the moves made at each level (the visit counts), the
    # levels' rates give the run's.
    assert np.all((r.acceptance > 0) & (r.acceptance <= 1))
    details = json.loads(r.to_json())["details"]["tempering"]
    counts = np.array(details["counts"], dtype=float)
    assert np.dot(counts, r.acceptance) / counts.sum() == pytest.approx(details["kernel_acceptance"], rel=1e-12)
    # Thermodynamic integration over the per-level means: log(Z/Z0) = -integral of mean_energy dt.
    trapezoid = -np.sum(np.diff(r.fractions) * (r.mean_energy[1:] + r.mean_energy[:-1]) / 2)
    assert trapezoid == pytest.approx(r.estimates["ti_trapezoid"].evidence, abs=0.1)


TEMPER_KW = dict(num_temperatures=4, num_chains=4, num_sweeps=10, max_initial_iterations=2, progress=False)


@pytest.mark.parametrize("arguments, message", [
    (dict(num_temperatures=1), "logz.temper: num_temperatures: expected an integer in [2, 1000000], got 1"),
    (dict(num_temperatures=2.5), "logz.temper: num_temperatures: expected an integer"),
    (dict(num_chains=0), "logz.temper: num_chains: expected an integer in [1,"),
    (dict(num_sweeps=0), "logz.temper: num_sweeps: expected an integer in [1, "),
    (dict(kernel="gibbs"), 'logz.temper: kernel: expected one of "hais", "hmc", "metropolis", "mala", "barker", got "gibbs"'),
    (dict(schedule="cubic"), 'logz.temper: schedule: expected one of "linear"'),
    (dict(methods=["rts", "nope"]), 'logz.temper: methods: expected a list of strings from "rts"'),
    (dict(initialization="guess"), 'logz.temper: initialization: expected one of "iterations"'),
    (dict(sweeps_per_iteration=0), "logz.temper: sweeps_per_iteration: expected an integer in [1, "),
    (dict(max_initial_iterations=0), "logz.temper: max_initial_iterations: expected an integer in [1,"),
    (dict(step_sise=0.1), "logz.temper: step_sise: no such argument, nor a [kernel] key of this kernel; did you "
                          "mean step_size?"),
    (dict(num_chain=8), "logz.temper: num_chain: no such argument, nor a [kernel] key of this kernel; did you "
                        "mean num_chains?"),
    (dict(seed=-1), "logz.temper: seed: expected an integer >= 0"),
    (dict(threads=-1), "logz.temper: threads: expected an integer in [0,"),
    (dict(base=logz.GaussianBase(3)), "logz.temper: base: expected a logz.GaussianBase of dim 2"),
    (dict(base="wide"), "logz.temper: base: expected a logz.GaussianBase of dim 2"),
])
def test_temper_bad_arguments_name_the_argument(arguments, message):
    t = logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X)
    with pytest.raises(logz.InvalidArgument) as info:
        logz.temper(t, **(TEMPER_KW | arguments))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("target, arguments, error, message", [
    ("not a target", {}, logz.InvalidArgument, "logz.temper: target: expected a logz.Target or a model"),
    (logz.Target(2, lambda X: (X ** 2).sum(axis=1)), {}, logz.InvalidArgument,
     'logz.temper: kernel: "hmc" moves particles along the gradient'),
    (logz.Target(2, lambda X: np.zeros((len(X), 2)), lambda X: X), {}, logz.InvalidArgument,
     "logz.Target.energy: return value: expected an array of shape"),
    (logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X[:, :1]), {}, logz.InvalidArgument,
     "logz.Target.grad: return value: expected an array of shape"),
    (logz.models.Ising(4, 4), dict(kernel="hmc"), logz.InvalidArgument, "logz.temper: kernel: expected one of"),
    (logz.models.Ising(4, 4), dict(num_temperatures=0), logz.InvalidArgument, "logz.temper: num_temperatures"),
])
def test_temper_bad_targets_and_model_arguments(target, arguments, error, message):
    with pytest.raises(error) as info:
        logz.temper(target, **(TEMPER_KW | arguments))
    assert message in str(info.value)


def test_tempering_acceptance_is_the_moves_made_at_each_level():
    # One HMC step size for every level of a linear ladder from N(0, 2^2 I) to N(0, I): the
    # narrowest levels (t near 1, sd near 1) reject more of its moves than the widest (about 0.89
    # against 0.98 here, over some 1200 moves a level: a gap of 10 standard errors).
    t = logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X)
    r = logz.temper(t, base=logz.GaussianBase(2, sigma=2.0), step_size=0.9, leapfrog_steps=5, num_temperatures=5,
                    schedule="linear", num_chains=32, num_sweeps=200, max_initial_iterations=5, seed=4, progress=False,
                    methods=["rts"])
    assert r.acceptance[-1] < min(r.acceptance[0], r.acceptance[1]) - 0.05, r.acceptance
    assert json.loads(r.to_json())["details"]["tempering"]["level_acceptance"] == pytest.approx(list(r.acceptance),
                                                                                                 abs=0)


def test_an_error_in_the_user_function_comes_back_as_itself():
    def energy(X):
        raise ZeroDivisionError("the user's bug")

    with pytest.raises(ZeroDivisionError, match="the user's bug"):
        logz.anneal(logz.Target(2, energy, lambda X: X), num_steps=10, num_paths=4)


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_a_run_within_a_second(threads):
    calls, sent = [0], []

    def energy(X):
        calls[0] += 1
        if calls[0] == 20:
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
        return 0.5 * (X ** 2).sum(axis=1)

    with pytest.raises(KeyboardInterrupt):  # the run alone would take minutes
        logz.anneal(logz.Target(3, energy, lambda X: X), num_steps=10 ** 5, num_paths=100, threads=threads)
    assert time.monotonic() - sent[0] < 1.0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's handler is back


def test_progress_is_called_with_the_chunks():
    seen = []
    logz.run(ISING_SMALL, progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert seen and all(0 < done <= total for _, done, total in seen)
    assert seen[-1][1] == seen[-1][2]


def test_progress_names_what_a_stage_counts(capsys, monkeypatch):
    # Parallel tempering counts scans ("parallel tempering [scans]"), annealing chunks.
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the line without a bar
    shown = logz.Progress()
    shown._start -= 2.0  # past its first second
    shown("parallel tempering [scans]", 510, 2046)
    shown("forward", 3, 8)
    shown.close()
    err = capsys.readouterr().err
    assert "parallel tempering: 510/2046 scans" in err and "forward: 3/8 chunks" in err


ISING_SMALL = {"model": {"type": "ising", "rows": 4, "cols": 4, "beta": 0.4},
               "schedule": {"type": "linear", "num_steps": 50}, "run": {"num_paths": 16}}


@pytest.mark.parametrize("call, error, message", [
    (lambda: logz.anneal("not a target"), logz.InvalidArgument, "target: expected a logz.Target or a model of logz.models, got str"),
    (lambda: logz.anneal(anisotropic_gaussian(), base=logz.GaussianBase(3)), logz.InvalidArgument,
     "base: expected a logz.GaussianBase of dim 4"),
    (lambda: logz.anneal(anisotropic_gaussian(), step_sise=0.1), logz.InvalidArgument,
     'logz.anneal: step_sise: no such argument, nor a [kernel] key of this kernel; did you mean step_size? '
     '(arguments: base, kernel, num_steps, num_paths,'),
    (lambda: logz.anneal(anisotropic_gaussian(), num_path=5), logz.InvalidArgument,
     "logz.anneal: num_path: no such argument, nor a [kernel] key of this kernel; did you mean num_paths?"),
    (lambda: logz.anneal(anisotropic_gaussian(), num_paths=0), logz.InvalidArgument,
     "logz.anneal: num_paths: expected an integer"),
    (lambda: logz.anneal(anisotropic_gaussian(), schedule="cubic"), logz.InvalidArgument,
     'logz.anneal: schedule: expected one of "linear"'),
    (lambda: logz.Target(0, lambda X: X), logz.InvalidArgument, "dim: expected an integer >= 1"),
    (lambda: logz.Target(2, "energy"), logz.InvalidArgument, "energy: expected a function"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_a_fresh_interpreter_can_start_with_a_threaded_run():
    """The first use of numpy from the drivers' threads once deadlocked (pybind11's lazily
    initialised numpy API); a new process whose first call is a threaded run must finish."""
    import subprocess
    import sys
    code = ("import logz\n"
            "t = logz.Target(2, lambda X: 0.125 * (X ** 2).sum(axis=1))\n"
            "logz.anneal(t, kernel='metropolis', num_steps=200, num_paths=64, threads=2)\n")
    done = subprocess.run([sys.executable, "-c", code], timeout=60, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_schedule_given_as_path_fractions():
    # np.linspace(0, 1, 21) is the linear schedule of 20 steps: the same bits as asking for it.
    t = logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X, exact_log_z=np.log(2 * np.pi))
    kwargs = dict(num_paths=16, seed=4, progress=False, step_size=0.3, directions=("forward",))
    a = logz.anneal(t, schedule=np.linspace(0, 1, 21), **kwargs)
    b = logz.anneal(t, schedule="linear", num_steps=20, **kwargs)
    assert a.estimates["ais"].log_z == b.estimates["ais"].log_z
    assert list(a.fractions) == list(np.linspace(0, 1, 21))
    with pytest.raises(logz.InvalidArgument, match=r"^logz.anneal: schedule: expected strictly increasing values, "
                                                   r"got 0.2 after 0.5 \(fractions\[2\]\)"):
        logz.anneal(t, schedule=[0.0, 0.5, 0.2, 1.0], **kwargs)
    with pytest.raises(logz.InvalidArgument, match=r"^logz.anneal: num_steps: expected None"):
        logz.anneal(t, schedule=[0.0, 1.0], num_steps=5, **kwargs)


def test_from_log_prob_gives_the_energy_target_bit_for_bit():
    """Target.from_log_prob(log p~, grad log p~) is Target(-log p~, -grad log p~): the same run
    to the bit, its functions see the same particles, and a wrong argument is named."""
    scale = np.array([1.0, 0.5, 2.0])
    energy = lambda X: 0.5 * ((X / scale) ** 2).sum(axis=1)  # noqa: E731
    grad = lambda X: X / scale ** 2  # noqa: E731
    exact = 0.5 * 3 * np.log(2 * np.pi) + np.log(scale).sum()
    kwargs = dict(num_paths=32, num_steps=50, seed=5, progress=False, step_size=0.3)
    a = logz.anneal(logz.Target(3, energy, grad, exact_log_z=exact), **kwargs)
    t = logz.Target.from_log_prob(3, lambda X: -energy(X), lambda X: -grad(X), exact_log_z=exact)
    b = logz.anneal(t, **kwargs)
    assert a.estimates["ais"].log_z == b.estimates["ais"].log_z
    assert np.array_equal(a.forward_works, b.forward_works)
    both = logz.Target.from_log_prob(3, lambda X: -energy(X),
                                     log_prob_and_grad=lambda X: (-energy(X), -grad(X)))
    c = logz.anneal(both, **kwargs)
    assert np.array_equal(a.forward_works, c.forward_works)
    with pytest.raises(logz.InvalidArgument, match=r"^logz.Target.from_log_prob: grad_log_prob: expected a function"):
        logz.Target.from_log_prob(3, lambda X: -energy(X), 5)


def test_positions_that_diverged_to_infinity_are_not_passed_to_the_functions():
    """HMC with a fixed step far too long on a quartic energy: trajectories leave for 1e308 and
    beyond, where this energy answers NaN (inf - inf) and logz refused it as the user's error.
    Positions with a non-finite coordinate now get energy +inf without a call, and are rejected."""
    def energy(X):
        assert np.isfinite(X).all(), "asked at a non-finite position"
        with np.errstate(all="ignore"):
            return 0.25 * (X ** 4).sum(axis=1) + 0.5 * (X[:, 0] - X[:, 1]) ** 2

    def grad(X):
        assert np.isfinite(X).all(), "asked at a non-finite position"
        with np.errstate(all="ignore"):
            g = X ** 3
            d = X[:, 0] - X[:, 1]
            g[:, 0] += d
            g[:, 1] -= d
            return g

    r = logz.anneal(logz.Target(2, energy, grad), kernel="hmc", step_size=3.0, leapfrog_steps=10,
                    step_size_adaptation="fixed", num_paths=50, schedule={"type": "linear", "num_steps": 50},
                    directions=["forward"], seed=1, progress=False)
    ais = r.estimates["ais"]
    assert math.isfinite(ais.log_z)
    assert "frozen_sampler" in ais.flags, ais.flags  # the step size is still far too long, and said so

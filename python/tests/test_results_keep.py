"""Results that numpy, joblib and multiprocessing users can keep: logz.Estimate, logz.Result and
logz.MbarResult survive pickle.dumps/loads with every property equal to the bit (NaN included),
also back from worker processes; float(estimate) is its log_z; to_dict() holds the JSON's
content; MbarResult's repr shows the numbers."""
import concurrent.futures
import json
import math
import multiprocessing
import pickle

import numpy as np
import pytest

import logz

# Small runs that fill most of a Result: both directions, an adaptive schedule's pilot,
# repetitions and the budget; a tempering run's summary; the ground-state integration's.
KEEP_ANNEALING = {
    "model": {"type": "ising", "rows": 4, "cols": 4, "beta": 0.3},
    "schedule": {"type": "adaptive", "num_steps": 20, "pilot_paths": 8, "pilot_steps": 20},
    "kernel": {"type": "metropolis", "steps_per_temperature": 16},
    "run": {"num_paths": 8, "directions": ["forward", "reverse"], "seed": 3, "repetitions": 2},
    "estimators": {"methods": ["ais", "raise", "bar", "bounds"]},
}
KEEP_TEMPERING = {
    "model": {"type": "ising", "rows": 4, "cols": 4, "beta": 0.3},
    "kernel": {"type": "metropolis", "steps_per_temperature": 16},
    "run": {"method": "tempering", "seed": 5},
    "tempering": {"num_temperatures": 6, "num_chains": 4, "num_sweeps": 40,
                  "sweeps_per_iteration": 5, "max_initial_iterations": 3},
    "estimators": {"methods": ["rts", "ts", "ti_trapezoid"]},
}
KEEP_GROUND_STATE = {
    "model": {"type": "ising", "rows": 4, "cols": 4, "beta": 0.6},
    "kernel": {"type": "metropolis", "steps_per_temperature": 16},
    "run": {"method": "ground_state_integration", "seed": 6},
    "integration": {"intervals": 8, "num_chains": 2, "start_steps": 5, "equilibration_steps": 2,
                    "measurement_steps": 5},
}


def keep_same(a, b):
    """a and b hold the same values to the bit: NaN equals NaN, -0.0 differs from 0.0, an
    array's dtype and shape count, Estimates compare by everything they show."""
    if isinstance(a, logz.Estimate):
        return isinstance(b, logz.Estimate) and repr(a) == repr(b) and keep_same(a.to_dict(), b.to_dict())
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
                and a.tobytes() == b.tobytes())
    if isinstance(a, float):
        return isinstance(b, float) and np.float64(a).tobytes() == np.float64(b).tobytes()
    if isinstance(a, dict):
        return (isinstance(b, dict) and list(a) == list(b)
                and all(keep_same(a[k], b[k]) for k in a))
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(keep_same, a, b))
    return type(a) is type(b) and a == b


def keep_properties(obj):
    """The names of the class's properties: what a user reads off the result."""
    names = [name for name, v in vars(type(obj)).items() if isinstance(v, property)]
    assert names
    return names


def assert_kept(original, copy):
    assert type(copy) is type(original)
    for name in keep_properties(original):
        assert keep_same(getattr(original, name), getattr(copy, name)), name
    assert repr(copy) == repr(original)
    if hasattr(original, "to_dict"):
        assert keep_same(original.to_dict(), copy.to_dict())
    if hasattr(original, "to_json"):
        assert copy.to_json() == original.to_json()


def round_trip(obj):
    return pickle.loads(pickle.dumps(obj))


def test_estimates_survive_pickle_and_float_is_log_z():
    w = np.random.default_rng(0).normal(1.0, 0.5, 200)
    flagged = logz.bar(np.full(50, 1.0), np.full(50, -1.0))  # zero variance: NaN error, a flag
    assert math.isnan(flagged.std_error) and flagged.flags
    for e in [logz.ais(w), logz.estimate("bar", w, -w), flagged,
              *logz.estimate("bounds", w, -w).estimates.values()]:
        assert_kept(e, round_trip(e))
        assert float(e) == e.log_z and float(round_trip(e)) == e.log_z
    assert float(flagged) == pytest.approx(-1.0, abs=1e-12)  # every W_f is 1
    # A run's estimate: float() is the absolute log Z, the base's log Z0 added.
    r = logz.run(KEEP_ANNEALING, progress=False)
    bar = r.estimates["bar"]
    assert r.base_log_z != 0 and float(bar) == bar.log_z == bar.evidence + r.base_log_z
    assert_kept(bar, round_trip(bar))
    assert np.array([float(e) for e in r.estimates.values()]).dtype == np.float64


@pytest.mark.parametrize("config", [KEEP_ANNEALING, KEEP_TEMPERING, KEEP_GROUND_STATE],
                         ids=["annealing", "tempering", "ground_state"])
def test_results_survive_pickle(config):
    r = logz.run(config, progress=False)
    copy = round_trip(r)
    assert_kept(r, copy)
    doc = json.loads(r.to_json())
    if config is KEEP_ANNEALING:
        assert {"adaptive_schedule", "repetitions"} <= set(doc["details"]) and "budget" in doc
        assert copy.forward_works is not None and copy.reverse_works is not None
    if config is KEEP_TEMPERING:
        assert "tempering" in doc["details"] and len(copy.fractions) == 6
    if config is KEEP_GROUND_STATE:
        assert "ground_state_integration" in doc["details"]
    # Every pickle protocol numpy users meet (joblib uses the highest).
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert_kept(r, pickle.loads(pickle.dumps(r, protocol=protocol)))


def test_result_to_dict_is_its_json():
    r = logz.run(KEEP_ANNEALING, progress=False)
    d = r.to_dict()
    assert d == json.loads(r.to_json())
    assert d["estimates"]["bar"]["log_z"] == r.estimates["bar"].log_z
    assert d["forward"]["works"] == r.forward_works.tolist()
    assert d["runtime_s"] == r.runtime_s


def keep_harmonic(num_states, seed=3, n=200):
    """K harmonic oscillators u_k(x) = k_k x^2 / 2 with springs 1 .. 4, n samples each."""
    rng = np.random.default_rng(seed)
    springs = np.linspace(1.0, 4.0, num_states)
    x = np.concatenate([rng.normal(0.0, 1.0 / math.sqrt(k), n) for k in springs])
    return 0.5 * springs[:, None] * x[None, :] ** 2, np.full(num_states, n)


def keep_disconnected():
    """States 1 and 2 have no overlap path to state 0 (test_mbar.py): NaN log Z and errors."""
    rng = np.random.default_rng(5)
    mu = np.array([0.0, 1000.0, 1000.5])
    x = np.concatenate([rng.normal(m, 1.0, 300) for m in mu])
    return 0.5 * (x[None, :] - mu[:, None]) ** 2, np.full(3, 300)


def test_mbar_results_survive_pickle():
    u_kn, N_k = keep_harmonic(4)
    cases = [logz.mbar(u_kn, N_k), logz.mbar(u_kn, N_k, max_iterations=1), logz.mbar(*keep_disconnected())]
    assert cases[1].flags == ["not_converged"] and cases[2].flags == ["disconnected"]
    assert np.isnan(cases[2].covariance).any()
    for m in cases:
        assert_kept(m, round_trip(m))


def test_mbar_to_dict():
    m = logz.mbar(*keep_disconnected())
    d = m.to_dict()
    assert list(d) == ["log_z", "std_error", "overlap", "covariance", "delta_log_z", "delta_std_error",
                       "overlap_eigenvalues", "converged", "iterations", "disconnected", "flags"]
    for name in ["log_z", "std_error", "overlap", "covariance", "delta_log_z", "delta_std_error",
                 "overlap_eigenvalues"]:
        assert isinstance(d[name], list) and keep_same(d[name], getattr(m, name).tolist()), name
    assert d["converged"] is m.converged and d["iterations"] == m.iterations
    assert d["disconnected"] == [1, 2] and d["flags"] == ["disconnected"]
    assert math.isnan(d["log_z"][1])


def test_mbar_repr_shows_the_numbers():
    m = logz.mbar(*keep_harmonic(3))
    z, se = m.log_z, m.std_error
    assert repr(m) == (f"MbarResult(K=3, log_z=[0, {z[1]:.6g} ± {se[1]:.6g}, {z[2]:.6g} ± {se[2]:.6g}]"
                       ", converged=True)")
    # Many states: the first three and the last two.
    big = logz.mbar(*keep_harmonic(10, n=50))
    text = repr(big)
    assert text.startswith("MbarResult(K=10, log_z=[0, ") and ", ...," in text
    assert text.count("±") == 4 and f"{big.log_z[9]:.6g} ± {big.std_error[9]:.6g}]" in text
    assert f"{big.log_z[5]:.6g} ±" not in text
    cut = repr(logz.mbar(*keep_disconnected()))
    assert "nan ± nan" in cut and cut.endswith("disconnected=[1, 2], flags=['disconnected'])")


def test_a_corrupted_state_is_an_input_error():
    state = logz.ais(np.zeros(10)).__getstate__()
    blank = logz.Estimate.__new__(logz.Estimate)  # as pickle.loads makes it
    with pytest.raises(logz.InputError, match="logz.Estimate: not a pickle of this version of logz"):
        blank.__setstate__(state[:-3])
    with pytest.raises(logz.InputError, match='logz.MbarResult: a pickle of "logz.Estimate 1", expected'):
        logz.MbarResult.__new__(logz.MbarResult).__setstate__(state)


# What a worker process computes; run in this process too, it must give the same bits back.
def keep_worker_results(seed):
    w = np.random.default_rng(seed).normal(1.0, 0.5, 300)
    run = logz.run({**KEEP_ANNEALING, "run": {**KEEP_ANNEALING["run"], "seed": seed, "repetitions": 1}},
                   progress=False)
    return logz.bar(w, -w), logz.mbar(*keep_harmonic(3, seed=seed)), run


def test_results_come_back_from_worker_processes():
    """concurrent.futures with 2 spawned workers (what joblib and multiprocessing do)."""
    context = multiprocessing.get_context("spawn")  # a fork of a threaded process may deadlock
    with concurrent.futures.ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        remote = list(pool.map(keep_worker_results, [1, 2]))
    for seed, results in zip([1, 2], remote):
        for here, there in zip(keep_worker_results(seed), results):
            there_props = {name: getattr(there, name) for name in keep_properties(there)}
            for name in keep_properties(here):
                if name == "runtime_s":  # the one value a rerun does not repeat
                    continue
                assert keep_same(getattr(here, name), there_props[name]), name

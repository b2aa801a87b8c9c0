"""logz.estimate and friends on numpy arrays: the same bits as `logz estimate` on the same
works, pymbar's BAR to 1e-8, and one-line errors for bad input."""
import json
import math
import os
import signal
import threading
import time

import numpy as np
import pytest

import logz

METHODS = ["ais", "raise", "bar", "bounds", "cumulant", "histogram", "histogram_posterior", "crossing"]


def gaussian_works(n=400, seed=5):
    """Works of a Gaussian pair (mean mu, variance 2 mu: log Z1/Z0 = 0 exactly)."""
    rng = np.random.default_rng(seed)
    mu = 1.5
    return rng.normal(mu, math.sqrt(2 * mu), n), rng.normal(mu, math.sqrt(2 * mu), n + 37)


def as_dict(result):
    """{method: Estimate} for both shapes of estimate's answer."""
    return result if isinstance(result, dict) else {result.method: result}


def same(a, b):
    """Bitwise equality of two floats, NaN equal to NaN (the JSON writes NaN as null)."""
    if b is None:
        return math.isnan(a)
    return a == b


@pytest.mark.parametrize("method", METHODS)
def test_every_estimator_matches_the_command_line_bitwise(method, cli, tmp_path):
    forward, reverse = gaussian_works()
    np.save(tmp_path / "f.npy", forward)
    np.save(tmp_path / "r.npy", reverse)
    out = tmp_path / "out.json"
    cli("estimate", "-f", tmp_path / "f.npy", "-r", tmp_path / "r.npy", "-m", method, "-o", out)
    expected = json.loads(out.read_text())["estimates"]
    got = as_dict(logz.estimate(method, forward=forward, reverse=reverse))
    assert sorted(got) == sorted(expected)
    for name, e in got.items():
        assert same(e.log_z, expected[name]["log_z"]), name
        assert same(e.std_error, expected[name]["std_error"]), name
        assert e.se_method == expected[name]["se_method"]
        assert e.flags == expected[name]["diagnostics"]["flags"]


def test_estimates_are_within_error_of_the_exact_answer():
    forward, reverse = gaussian_works(4000)
    for e in [logz.ais(forward), logz.reverse_ais(reverse), logz.bar(forward, reverse)]:
        assert abs(e.log_z - 0.0) <= 5 * e.std_error, e


def test_convenience_functions_are_the_named_estimators():
    forward, reverse = gaussian_works()
    assert logz.ais(forward).log_z == logz.estimate("ais", forward=forward).log_z
    assert logz.reverse_ais(reverse).log_z == logz.estimate("raise", reverse=reverse).log_z
    assert logz.bar(forward, reverse).log_z == logz.estimate("bar", forward, reverse).log_z


def test_bar_equals_pymbar_to_1e8():
    pymbar = pytest.importorskip("pymbar")  # python3-pymbar, installed by scripts/install-deps
    forward, reverse = gaussian_works(2000, seed=11)
    delta_f, d_delta_f = pymbar.BAR(forward, reverse, relative_tolerance=1e-14, maximum_iterations=1000)
    e = logz.bar(forward, reverse)
    assert abs(e.log_z - (-delta_f)) < 1e-8
    assert abs(e.std_error - d_delta_f) < 1e-8


def test_other_dtypes_and_lists_are_converted_once():
    forward, _ = gaussian_works()
    exact = logz.ais(forward).log_z
    assert logz.ais(list(forward)).log_z == exact
    assert logz.ais(np.asfortranarray(forward)).log_z == exact
    assert logz.ais(forward[::-1].copy()[::-1]).log_z == exact  # a strided view
    f32 = forward.astype(np.float32)
    assert logz.ais(f32).log_z == logz.ais(f32.astype(np.float64)).log_z


def test_estimate_and_its_fields():
    forward, reverse = gaussian_works()
    e = logz.bar(forward, reverse)
    assert e.method == "bar" and e.se_method
    assert e.evidence == e.log_z  # on works there is no base log Z0 to add
    d = e.to_dict()
    assert d["log_z"] == e.log_z and d["std_error"] == e.std_error and d["flags"] == e.flags
    assert "converged" in e.diagnostics and "ess" in e.diagnostics
    assert repr(e).startswith("Estimate(method='bar', log_z=")


def test_nan_standard_error_comes_with_a_flag():
    e = logz.ais(np.array([0.5]))  # one path: no error estimate
    assert math.isnan(e.std_error)
    assert e.flags


@pytest.mark.parametrize("call, message", [
    (lambda f, r: logz.estimate("nope", f), 'method: expected one of "ais"'),
    (lambda f, r: logz.estimate("bar", forward=f), 'method "bar" needs forward and reverse works'),
    (lambda f, r: logz.estimate("ais", np.zeros((2, 3))), "forward: expected an array of shape (N,), got shape (2, 3)"),
    (lambda f, r: logz.estimate("raise", reverse="abc"), "reverse: expected an array of numbers"),
    (lambda f, r: logz.estimate("histogram_posterior", f, r, posterior_draws=1),
     "logz.estimate: posterior_draws: expected an integer in [2, 2^30], got 1"),
    (lambda f, r: logz.estimate("histogram", f, r, histogram_bins=2 ** 40),
     "logz.estimate: histogram_bins: expected an integer in [0, 2^30], got 1099511627776"),
    (lambda f, r: logz.estimate("histogram_posterior", f, r, posterior_draws=2 ** 40),
     "logz.estimate: posterior_draws: expected an integer in [2, 2^30]"),
    (lambda f, r: logz.estimate("histogram_posterior", f, r, posterior_burn_in=2 ** 31),
     "logz.estimate: posterior_burn_in: expected an integer in [0, 2^30]"),
    (lambda f, r: logz.estimate("ais", np.array([])), "logz.estimate: forward: expected at least one value"),
    (lambda f, r: logz.estimate("ais", np.array([1.0, np.nan])), "logz.estimate: forward[1]: expected finite values, got nan"),
    (lambda f, r: logz.estimate("raise", reverse=np.array([np.inf])), "logz.estimate: reverse[0]: expected finite values"),
    (lambda f, r: logz.estimate("bar", f, np.r_[r, np.nan]), "logz.estimate: reverse[437]: expected finite"),
    (lambda f, r: logz.estimate("crossing", np.r_[np.nan, f], r), "logz.estimate: forward[0]: expected finite"),
    (lambda f, r: logz.ais(np.array([1.0, np.nan])), "logz.ais: forward[1]: expected finite values, got nan"),
    (lambda f, r: logz.reverse_ais(np.zeros((2, 2))), "logz.reverse_ais: reverse: expected an array of shape (N,)"),
    (lambda f, r: logz.bar(f, np.array([np.nan])), "logz.bar: reverse[0]: expected finite values"),
])
def test_bad_input_is_an_invalid_argument_with_one_line(call, message):
    forward, reverse = gaussian_works()
    with pytest.raises(ValueError) as info:
        call(forward, reverse)
    assert isinstance(info.value, logz.Error)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert "_works" not in str(info.value)  # the Python argument's name, not the library's


def test_histogram_bins_out_of_range_or_memory_are_refused(monkeypatch):
    # Once a MemoryError (std::bad_alloc) after trying to allocate 2^40 bins; the CLI's range.
    forward, reverse = gaussian_works()
    with pytest.raises(logz.InvalidArgument, match=r"logz.estimate: histogram_bins: expected an integer in \[0, 2\^30\]"):
        logz.estimate("histogram", forward, reverse, histogram_bins=2 ** 40)
    monkeypatch.setenv("LOGZ_MEMORY_LIMIT", "1G")  # read at the call
    with pytest.raises(logz.InvalidArgument, match=r"logz.estimate: histogram_bins: expected .*fits in memory"):
        logz.estimate("histogram", forward, reverse, histogram_bins=2 ** 30)


def test_ctrl_c_stops_the_posterior_draws_within_a_second():
    # 10^6 distinct works: every Gibbs sweep draws 10^6 gammas, and 10^7 sweeps would take days.
    w = np.random.default_rng(1).normal(1.0, 1.0, 10 ** 6)
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(1.0, interrupt)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        logz.estimate("histogram_posterior", w, w, posterior_draws=10 ** 7)
    timer.join()
    assert time.monotonic() - sent[0] < 1.0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError):
        logz.estimate("ais", np.zeros(3), bins=4)

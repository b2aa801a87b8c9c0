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
    """{name: Estimate} for every kind of estimate's answer (Estimate, Bounds, Cumulant)."""
    return result.estimates if isinstance(result, (logz.Bounds, logz.Cumulant)) else {result.method: result}


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


def as_text(d):
    """A dict as JSON text, NaN written as NaN: equal dicts with NaN values compare equal."""
    return json.dumps(d, sort_keys=True)


def test_bounds_hold_the_sandwich_as_estimates():
    """estimate("bounds") is a logz.Bounds (issue 43: an Estimate-like result, never a dict)."""
    forward, reverse = gaussian_works()
    b = logz.estimate("bounds", forward, reverse)
    assert isinstance(b, logz.Bounds) and not isinstance(b, dict)
    assert b.lower.method == "lower_bound" and b.upper.method == "upper_bound"
    assert b.lower.log_z == pytest.approx(-forward.mean(), rel=1e-12)
    assert b.upper.log_z == pytest.approx(reverse.mean(), rel=1e-12)
    assert b.lower.log_z <= 0.0 <= b.upper.log_z  # log Z1/Z0 = 0 for these works
    assert b.width == b.upper.log_z - b.lower.log_z > 0
    assert b.estimates == {"lower_bound": b.lower, "upper_bound": b.upper}
    d = b.to_dict()
    assert d["method"] == "bounds"
    assert as_text(d["lower"]) == as_text(b.lower.to_dict()) and as_text(d["upper"]) == as_text(b.upper.to_dict())
    text = repr(b)
    assert text.startswith("Bounds(lower=") and format(b.lower.log_z, ".6g") in text
    assert format(b.upper.std_error, ".6g") in text


def test_cumulant_holds_the_estimates_the_works_allow():
    forward, reverse = gaussian_works()
    both = logz.estimate("cumulant", forward, reverse)
    assert isinstance(both, logz.Cumulant)
    assert both.forward.method == "cumulant_forward" and both.reverse.method == "cumulant_reverse"
    assert both.two_sided.method == "cumulant"
    assert both.forward.log_z == pytest.approx(-forward.mean() + forward.var(ddof=1) / 2, rel=1e-6)
    only_forward = logz.estimate("cumulant", forward=forward)
    assert only_forward.reverse is None and only_forward.two_sided is None
    assert only_forward.forward.log_z == both.forward.log_z
    assert list(only_forward.estimates) == ["cumulant_forward"]
    assert only_forward.to_dict()["reverse"] is None
    assert as_text(only_forward.to_dict()["forward"]) == as_text(only_forward.forward.to_dict())
    text = repr(only_forward)
    assert "reverse=None" in text and format(only_forward.forward.log_z, ".6g") in text


@pytest.mark.parametrize("method", ["bounds", "cumulant"])
def test_grouped_results_pickle_with_every_number(method):
    import pickle
    forward, reverse = gaussian_works()
    r = logz.estimate(method, forward, reverse)
    copy = pickle.loads(pickle.dumps(r))
    assert type(copy) is type(r) and repr(copy) == repr(r)
    assert as_text({n: e.to_dict() for n, e in copy.estimates.items()}) == \
        as_text({n: e.to_dict() for n, e in r.estimates.items()})


def test_grouped_results_keep_dict_access_for_one_release_with_a_warning():
    forward, reverse = gaussian_works()
    b = logz.estimate("bounds", forward, reverse)
    with pytest.warns(DeprecationWarning, match=r"logz.Bounds: dict-style access .* use .lower / .upper"):
        assert b["lower_bound"] is b.lower
    with pytest.warns(DeprecationWarning):
        assert sorted(b) == ["lower_bound", "upper_bound"] and len(b) == 2
    with pytest.warns(DeprecationWarning):
        assert [e.method for e in b.values()] == ["lower_bound", "upper_bound"]
    c = logz.estimate("cumulant", reverse=reverse)
    with pytest.warns(DeprecationWarning, match="logz.Cumulant"):
        assert "cumulant_reverse" in c and "cumulant" not in c
    with pytest.warns(DeprecationWarning), pytest.raises(KeyError):
        c["cumulant_forward"]


def test_every_method_of_several_estimates_has_a_result_type(cli):
    """A works estimator of several outputs added to the registry needs its type in logz.estimates."""
    registry = json.loads(cli("list", "--json"))["estimators"]
    works = [name for name, e in registry.items() if e["family"] == "works"]
    assert "bounds" in works and "cumulant" in works
    forward, reverse = gaussian_works()
    for method in works:
        r = logz.estimate(method, forward, reverse)
        assert isinstance(r, (logz.Estimate, logz.Bounds, logz.Cumulant)), method
        if not isinstance(r, logz.Estimate):
            assert r.method == method and len(r.estimates) >= 2


def test_grouped_result_types_refuse_what_is_not_an_estimate():
    with pytest.raises(TypeError, match="logz.Bounds: upper: expected a logz.Estimate, got float"):
        logz.Bounds(logz.ais(np.zeros(3)), 1.0)
    with pytest.raises(TypeError, match="logz.Cumulant: two_sided: expected a logz.Estimate or None"):
        logz.Cumulant(two_sided="x")

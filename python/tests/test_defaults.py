"""One set of defaults: `logz run`, logz.run and logz.anneal give bitwise the same numbers for
the same model when given nothing but the model (or the seed), and the Python signatures' None
stands for the config key's default, which logz._logz._defaults() reads from the registry."""
import inspect
import json

import pytest

import logz

from test_run import to_toml

# Small enough for the defaults (100 paths each way, 1000 steps): an 8 x 8 Ising at beta 0.4.
MODEL = logz.models.Ising(8, 8, beta=0.4)


def cli_estimates(cli, tmp_path, config, *seed):
    (tmp_path / "model.toml").write_text(to_toml(config))
    cli("run", tmp_path / "model.toml", *seed, "--output", tmp_path / "out.json")
    return json.loads((tmp_path / "out.json").read_text())


def assert_same(result, expected):
    assert sorted(result.estimates) == sorted(expected["estimates"])
    for name, e in result.estimates.items():
        assert (e.log_z, e.std_error) == (expected["estimates"][name]["log_z"],
                                          expected["estimates"][name]["std_error"]), name
    assert result.forward_works.tolist() == expected["forward"]["works"]
    assert result.reverse_works.tolist() == expected["reverse"]["works"]


@pytest.mark.longer  # the next test runs the same three paths with a cheaper kernel
def test_the_defaults_give_the_same_numbers_everywhere(cli, tmp_path):
    expected = cli_estimates(cli, tmp_path, MODEL.config())
    assert_same(logz.run(MODEL.config(), progress=False), expected)
    assert_same(logz.anneal(MODEL, progress=False), expected)


def test_the_same_seed_gives_the_same_numbers_everywhere(cli, tmp_path):
    # A cheaper kernel, given to all three alike; [run] and [schedule] keep their defaults.
    config = MODEL.config() | {"kernel": {"steps_per_temperature": 64}}
    expected = cli_estimates(cli, tmp_path, config, "--seed", 7)
    assert_same(logz.run(config, seed=7, progress=False), expected)
    assert_same(logz.anneal(MODEL, seed=7, steps_per_temperature=64, progress=False), expected)


def test_the_defaults_are_the_registrys():
    defaults = logz._logz._defaults()
    assert defaults["run"]["seed"] == 1
    assert defaults["run"]["directions"] == ["forward", "reverse"]
    assert defaults["tempering"]["num_temperatures"] == 100
    # What logz list --json shows (as TOML text) for the same keys.
    for section in ("run", "schedule", "tempering"):
        for key, value in defaults[section].items():
            assert value is not None, (section, key)
    for function in (logz.anneal, logz.temper, logz.run):
        parameters = inspect.signature(function).parameters
        for name in ("seed", "num_steps", "num_paths", "directions", "num_temperatures",
                     "num_chains"):
            if name in parameters:
                assert parameters[name].default is None, (function.__name__, name)
    # The docstrings show the actual values.
    assert "The Philox key of every random number (default 1)" in logz.anneal.__doc__
    assert "K levels of the ladder (default 100)" in logz.temper.__doc__


def test_every_parameter_after_the_first_is_keyword_only():
    # (test_signatures.py walks every public callable; these three with their first argument.)
    for function, positional in ((logz.anneal, 1), (logz.temper, 1), (logz.run, 1)):
        parameters = list(inspect.signature(function).parameters.values())
        assert all(p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD
                   for p in parameters[:positional])
        for p in parameters[positional:]:
            assert p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD), \
                (function.__name__, p.name)
    with pytest.raises(TypeError):
        logz.anneal(MODEL, None)

"""Result.to_dataframe() (pandas) and Result.to_xarray() (xarray): optional packages, imported
when called; without them a one-line ImportError says what to install (issue 43). The real
conversions are tested where the packages are installed (python3-pandas, python3-xarray)."""
import math
import sys

import numpy as np
import pytest

import logz

CONFIG = {"model": {"type": "ising", "rows": 4, "cols": 4, "beta": 0.4},
          "run": {"num_paths": 20, "directions": ["forward", "reverse"]},
          "schedule": {"num_steps": 20}, "estimators": {"methods": ["ais", "raise", "bar"]}}


@pytest.fixture(scope="module")
def result():
    return logz.run(CONFIG, seed=3, progress=False)


@pytest.mark.parametrize("method, package", [("to_dataframe", "pandas"), ("to_xarray", "xarray")])
def test_a_missing_package_is_a_one_line_import_error(result, monkeypatch, method, package):
    monkeypatch.setitem(sys.modules, package, None)  # import package then raises ImportError
    with pytest.raises(ImportError) as error:
        getattr(result, method)()
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"logz.Result.{method} needs {package}, which is not installed")
    assert f"python3-{package}" in message


def test_to_dataframe_has_a_row_per_estimate(result):
    pytest.importorskip("pandas")
    frame = result.to_dataframe()
    assert list(frame.index) == list(result.estimates) and frame.index.name == "method"
    for method, e in result.estimates.items():
        assert frame.loc[method, "log_z"] == e.log_z and frame.loc[method, "evidence"] == e.evidence
        assert frame.loc[method, "std_error"] == e.std_error and frame.loc[method, "se_method"] == e.se_method
        assert frame.loc[method, "flags"] == e.flags
    assert frame.attrs["reference_log_z"] == result.reference_log_z


def test_to_xarray_has_the_estimates_and_the_per_temperature_arrays(result):
    pytest.importorskip("xarray")
    ds = result.to_xarray()
    assert list(ds["method"].values) == list(result.estimates)
    assert ds["log_z"].sel(method="bar").item() == result.estimates["bar"].log_z
    assert np.array_equal(ds["fractions"].values, result.fractions)
    assert np.array_equal(ds["forward_works"].values, result.forward_works)
    assert np.array_equal(ds["reverse_works"].values, result.reverse_works)
    assert ds.attrs["reference_log_z"] == result.reference_log_z and not math.isnan(ds.attrs["base_log_z"])

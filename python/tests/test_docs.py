"""Every Python example of docs/python.md runs, and so do the examples in the docstrings."""
import doctest
import os
import re

import pytest

import logz

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "python.md")


def examples():
    with open(DOC) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_the_page_has_examples():
    assert len(examples()) >= 5


@pytest.mark.parametrize("index", range(len(examples())))
def test_example_runs(index, capsys):
    exec(compile(examples()[index], f"docs/python.md example {index + 1}", "exec"), {})
    assert capsys.readouterr().out  # every example prints what it computed


@pytest.mark.parametrize("name", ["estimate", "mbar", "run", "ais", "anneal", "temper", "Target", "models"])
def test_docstring_examples(name):
    finder = doctest.DocTestFinder()
    tests = finder.find(getattr(logz, name), name, globs={})
    assert tests and any(t.examples for t in tests), f"logz.{name} has no example"
    runner = doctest.DocTestRunner()
    for t in tests:
        runner.run(t)
    assert runner.failures == 0


def public_classes():
    """Every public class of logz and logz.models."""
    for module in (logz, logz.models):
        for name in dir(module):
            value = getattr(module, name)
            if not name.startswith("_") and isinstance(value, type) and not issubclass(value, BaseException):
                yield f"{module.__name__}.{name}", value


def test_every_public_property_has_a_docstring():
    missing = [f"{where}.{name}" for where, cls in public_classes() for name in dir(cls)
               if not name.startswith("_") and isinstance(getattr(cls, name, None), property)
               and not (getattr(cls, name).__doc__ or "").strip()]
    assert not missing, missing

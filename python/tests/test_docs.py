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

"""Run pymbar's own tests (test_mbar.py, test_bar.py of the installed pymbar) against
logz.compat.pymbar.

The two files are copied into a temporary folder with their estimator imports (MBAR, BAR,
BARoverlap, EXP, EXPGauss) redirected to logz.compat.pymbar; pymbar's test helpers
(pymbar.testsystems, pymbar.utils, pymbar.utils_for_testing) stay pymbar's. The rewrite is
checked twice, in the text and by an assertion appended to each copy, so that the run can never
silently test pymbar itself. Exits with pytest's code.

Usage: PYTHONPATH=build/python /usr/bin/python3 python/tests/run_pymbar_tests.py [pytest args]
"""
import os
import re
import subprocess
import sys
import tempfile

TEST_FILES = ("test_mbar.py", "test_bar.py")
ESTIMATORS = {"MBAR", "BAR", "BARoverlap", "EXP", "EXPGauss"}
COMPAT = "logz.compat.pymbar"

# `from pymbar import A, B` (the package's top level only, not pymbar.testsystems etc.)
TOP_LEVEL_IMPORT = re.compile(r"^from pymbar import (?P<names>[\w ,]+)$", re.MULTILINE)


def redirect_imports(source, name):
    """The test's source with the estimators imported from logz.compat.pymbar."""
    def rewrite(match):
        names = [n.strip() for n in match.group("names").split(",")]
        ours = [n for n in names if n in ESTIMATORS]
        theirs = [n for n in names if n not in ESTIMATORS]
        lines = []
        if ours:
            lines.append(f"from {COMPAT} import {', '.join(ours)}")
        if theirs:
            lines.append(f"from pymbar import {', '.join(theirs)}")
        return "\n".join(lines)

    rewritten, count = TOP_LEVEL_IMPORT.subn(rewrite, source)
    imported = sorted({n for m in re.finditer(rf"^from {re.escape(COMPAT)} import ([\w ,]+)$",
                                              rewritten, re.MULTILINE)
                       for n in (x.strip() for x in m.group(1).split(","))})
    # Nothing may still reach pymbar's estimators: not by import, not as pymbar.MBAR(...).
    leftover = re.findall(r"^from pymbar(?:\.(?:mbar|bar|exp))? import .*\b(?:%s)\b.*$"
                          % "|".join(sorted(ESTIMATORS)), rewritten, re.MULTILINE)
    leftover += re.findall(r"\bpymbar\.(?:%s)\b" % "|".join(sorted(ESTIMATORS)), rewritten)
    if count == 0 or not imported or leftover:
        raise SystemExit(f"run_pymbar_tests.py: could not redirect {name}'s imports to "
                         f"{COMPAT} (rewrote {count} lines, imports {imported}, "
                         f"left over {leftover})")
    checks = "".join(f"assert {n}.__module__ == {COMPAT!r}, {n!r}\n" for n in imported)
    return rewritten + "\n\n# Added by run_pymbar_tests.py: these tests must run on logz.\n" \
        + checks


def main(argv):
    import logz.compat.pymbar  # fail here, clearly, if logz is not importable
    import pymbar

    # pytest runs in the temporary folder: give it the logz found here, by absolute path
    # (PYTHONPATH=build/python is relative to the checkout).
    logz_root = os.path.dirname(os.path.dirname(os.path.dirname(logz.compat.pymbar.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [logz_root] + [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep)
                       if p])

    tests = os.path.join(os.path.dirname(pymbar.__file__), "tests")
    with tempfile.TemporaryDirectory(prefix="logz-pymbar-tests-") as folder:
        paths = []
        for name in TEST_FILES:
            with open(os.path.join(tests, name), encoding="utf-8") as f:
                source = f.read()
            path = os.path.join(folder, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(redirect_imports(source, name))
            paths.append(path)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   f"--rootdir={folder}", *argv, *paths]
        return subprocess.call(command, cwd=folder, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

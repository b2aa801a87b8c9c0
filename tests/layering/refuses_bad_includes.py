#!/usr/bin/python3
"""scripts/check-layering on small trees of its own: a tree in its order passes; an include of a
higher module, a cycle and a module missing from the order each fail with a line that names
them. Usage: refuses_bad_includes.py PATH/TO/check-layering"""
import os
import subprocess
import sys
import tempfile

ORDER = "# Design\n\n<!-- layering -->\n    apps   the front end\n    high   a library module\n" \
        "    low    the module below it\n<!-- /layering -->\n"


def write(root, path, text):
    os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
    with open(os.path.join(root, path), "w", encoding="utf-8") as f:
        f.write(text)


def check(script, root):
    run = subprocess.run([sys.executable, script, "--root", root], capture_output=True, text=True)
    return run.returncode, run.stdout


def main():
    script = sys.argv[1]
    failures = []

    def expect(what, condition):
        if not condition:
            failures.append(what)

    with tempfile.TemporaryDirectory() as root:
        write(root, "docs/design.md", ORDER)
        write(root, "include/logz/low/l.hpp", "#pragma once\n")
        write(root, "include/logz/high/h.hpp", '#pragma once\n#include "logz/low/l.hpp"\n')
        write(root, "src/high/h.cpp", '#include "logz/high/h.hpp"\n#include "private.hpp"\n')
        write(root, "src/high/private.hpp", '#include "logz/low/l.hpp"\n')
        write(root, "apps/logz/main.cpp", '#include "logz/high/h.hpp"\n')
        code, out = check(script, root)
        expect(f"a tree in its order passes (exit {code}: {out!r})", code == 0)

        write(root, "src/low/l.cpp", '#include "logz/low/l.hpp"\n\n#include "logz/high/h.hpp"\n')
        code, out = check(script, root)
        expect(f"an upward include fails (exit {code})", code == 1)
        expect(f"the line names file:line and both modules ({out!r})",
               "src/low/l.cpp:3: low includes high" in out)
        expect(f"the cycle low <-> high is named ({out!r})",
               "cycle between modules high, low" in out)
        os.remove(os.path.join(root, "src/low/l.cpp"))

        write(root, "src/low/l.cpp", '#include "../high/private.hpp"\n')
        code, out = check(script, root)
        expect(f"a private header of a higher module counts too ({out!r})",
               code == 1 and "src/low/l.cpp:1: low includes high" in out)
        os.remove(os.path.join(root, "src/low/l.cpp"))

        write(root, "include/logz/middle/m.hpp", "#pragma once\n")
        code, out = check(script, root)
        expect(f"a module missing from the order fails ({out!r})",
               code == 1 and "module middle of the tree is not in the layering block" in out)
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

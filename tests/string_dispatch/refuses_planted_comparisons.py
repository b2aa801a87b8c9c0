#!/usr/bin/python3
"""scripts/check-string-dispatch on small trees of its own, with the names of the built tool: a
tree that compares no registered name passes; a registered name compared as a literal (either
side, == or !=, in C++ or Python) fails with file:line, but not in a comment, not in a
registration file and not for a name nobody registered.
Usage: refuses_planted_comparisons.py PATH/TO/check-string-dispatch PATH/TO/logz"""
import os
import subprocess
import sys
import tempfile

CLEAN = ('#include "logz/x.hpp"\n'
         "// the rule \"ti_rb\" == the default; never method == \"ti_rb\"\n"
         'int f(const std::string& s) { return s == "not_registered" ? 1 : 0; }\n'
         'const char* g() { return "\\"rts\\" or \\"tan\\""; }\n')


def write(root, path, text):
    os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
    with open(os.path.join(root, path), "w", encoding="utf-8") as f:
        f.write(text)


def check(script, logz, root):
    run = subprocess.run([sys.executable, script, "--root", root, logz], capture_output=True,
                         text=True)
    return run.returncode, run.stdout


def main():
    script, logz = sys.argv[1], sys.argv[2]
    failures = []

    def expect(what, condition):
        if not condition:
            failures.append(what)

    with tempfile.TemporaryDirectory() as root:
        write(root, "src/estimators/x.cpp", CLEAN)
        write(root, "include/logz/x.hpp", "#pragma once\n")
        write(root, "python/src/y.py", "# method == 'ais' in a comment\nx = 1\n")
        # A registration file may compare its names.
        write(root, "src/services/schedule_registry.cpp", 'bool f(s) { return s == "linear"; }\n')
        code, out = check(script, logz, root)
        expect(f"a tree without comparisons passes (exit {code}: {out!r})", code == 0)

        planted = {
            "src/estimators/a.cpp": ('int a;\nbool b(m) { return m == "ti_rb"; }\n', 2, "ti_rb"),
            "include/logz/b.hpp": ('#pragma once\nbool c(m) {\n  return "linear" != m;\n}\n', 3,
                                   "linear"),
            "apps/logz/c.cpp": ('bool d(t) { return t.method!="rts"; }  // rts\n', 1, "rts"),
            "python/src/d.py": ("def e(k):\n    return k == 'hmc'\n", 2, "hmc"),
        }
        for path, (text, line, name) in planted.items():
            write(root, path, text)
            code, out = check(script, logz, root)
            expect(f"a comparison with \"{name}\" in {path} fails (exit {code})", code == 1)
            expect(f"the finding names {path}:{line} and \"{name}\" ({out!r})",
                   f'{path}:{line}: "{name}" compared as a string' in out)
            expect(f"only that line is named ({out!r})", out.count("compared as a string") == 1)
            os.remove(os.path.join(root, path))
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

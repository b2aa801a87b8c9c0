#!/usr/bin/python3
"""Every config key the registries know is documented: each key [section] name that `logz list
--json` lists for a model or `logz train rbm` appears in backquotes (`name` or `[section] name`)
in docs/config.md or a page docs/config.md links to (the model's own page, tempering, training,
...). Every model, kernel, estimator and schedule name is named there too.

Usage: config_keys_documented.py LOGZ_BINARY REPOSITORY_ROOT
"""
import json
import os
import re
import subprocess
import sys


def main():
    logz, root = sys.argv[1], sys.argv[2]
    registry = json.loads(subprocess.run([logz, "list", "--json"], capture_output=True, text=True, check=True).stdout)

    def page(name):
        with open(os.path.join(root, name)) as f:
            return f.read()

    config_md = page("docs/config.md")
    linked = sorted(set(re.findall(r"\]\(([a-z_\-]+\.md)", config_md)))
    docs = [config_md] + [page("docs/" + name) for name in linked]
    missing = []

    def documented(name, pages, section=None):
        prefix = r"(\[" + re.escape(section) + r"\] )?" if section else ""
        needle = re.compile(r"`" + prefix + re.escape(name) + r"`")
        return any(needle.search(p) for p in pages)

    for model, entry in registry["models"].items():
        if not documented(model, docs) and not any(f'"{model}"' in p for p in docs):
            missing.append(f"model {model}: not named in docs/config.md or the pages it links to")
        for section, keys in entry["keys"].items():
            for key in keys:
                if not documented(key, docs, section):
                    missing.append(f"model {model}: [{section}] {key}: not documented")
    for family, kernels in registry["kernels"].items():
        for name in kernels:
            if not any(f'"{name}"' in p for p in docs):
                missing.append(f"kernel {family} {name}: not named")
    for name in registry["estimators"]:
        if not documented(name, docs) and not any(f'"{name}"' in p for p in docs):
            missing.append(f"estimator {name}: not named")
    for name in registry["schedules"]:
        if not any(f'"{name}"' in p for p in docs):
            missing.append(f"schedule {name}: not named")
    for section, keys in registry["training"]["rbm"]["keys"].items():
        for key in keys:
            if not documented(key, docs, section):
                missing.append(f"logz train rbm: [{section}] {key}: not documented")
    for m in missing:
        print(m)
    print(f"{len(missing)} undocumented" if missing else "every registered key and name is documented")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

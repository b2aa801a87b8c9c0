#!/usr/bin/python3
"""Every config key the registries know is documented: each key [section] name that `logz list
--json` lists for a model or `logz train rbm` appears in backquotes (`name` or `[section] name`)
in docs/config.md or a page docs/config.md links to (the model's own page, tempering, training,
...). Every model, kernel, estimator and schedule name is named there too. The lists written out
by hand name exactly the registry's: the models of `[model] type` (docs/config.md: those `logz
run` runs; docs/hmc.md: those `logz sample` samples) and the estimators of `[estimators]
methods` (docs/config.md, docs/tempering.md), with the ones run by default.

Usage: config_keys_documented.py LOGZ_BINARY REPOSITORY_ROOT
"""
import json
import os
import re
import subprocess
import sys


def table_row(page, heading, key):
    """The cells of the row of `key` in the first table after the line `heading`."""
    lines = page.splitlines()
    start = lines.index(heading)
    for line in lines[start + 1:]:
        if line.startswith(f"| `{key}` |"):
            return [cell.strip() for cell in line.strip("|").split(" | ")]
    raise SystemExit(f"no row `{key}` under {heading!r}")


def differences(what, listed, registered):
    """One line for each name in only one of the two lists."""
    listed, registered = set(listed), set(registered)
    return ([f'{what}: lists "{n}", which the registry lacks' for n in sorted(listed - registered)]
            + [f'{what}: does not list "{n}"' for n in sorted(registered - listed)])


def hand_written_lists(registry, page):
    """Every list of names written out in the docs that must equal a list of the registry."""
    models, estimators = registry["models"], registry["estimators"]

    def with_command(command):
        return [m for m, e in models.items() if command in e["commands"]]

    def of_family(family, default_only=False):
        return [n for n, e in estimators.items()
                if e["family"] == family and (e["default"] or not default_only)]

    def quoted(text):  # `"name"`
        return re.findall(r'`"(\w+)"`', text)

    def backquoted(text):  # `name`
        return re.findall(r"`(\w+)`", text)

    run_models = table_row(page("docs/config.md"), "## [model]", "type")[2]
    sample_models = table_row(page("docs/hmc.md"), "### [model]", "type")[2]
    out = differences("docs/config.md [model] type", quoted(run_models), with_command("run"))
    out += differences("docs/hmc.md [model] type", quoted(sample_models), with_command("sample"))
    _, default, meaning = table_row(page("docs/config.md"), "## [estimators]", "methods")
    works, tempered = meaning.split('With `[run] method = "tempering"`:')
    what = "docs/config.md [estimators] methods"
    out += differences(what, quoted(works), of_family("works"))
    out += differences(what + " (tempering)", backquoted(tempered), of_family("tempered"))
    out += differences(what + "' default", backquoted(default),
                       of_family("works", default_only=True))
    sentence = r"`\[estimators\] methods` for tempering: any of (.*?) \(default (.*?)\)\."
    listed = re.search(sentence, page("docs/tempering.md"), re.S)
    if not listed:
        return out + ["docs/tempering.md: no sentence \"`[estimators] methods` for tempering: "
                      "any of ... (default ...).\""]
    what = "docs/tempering.md [estimators] methods"
    out += differences(what, backquoted(listed.group(1)), of_family("tempered"))
    out += differences(what + "' default", re.findall(r"\w+", listed.group(2)),
                       of_family("tempered", default_only=True))
    return out


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
    wrong = hand_written_lists(registry, page)
    for m in missing + wrong:
        print(m)
    print(f"{len(missing)} undocumented" if missing else "every registered key and name is documented")
    print(f"{len(wrong)} differences in lists" if wrong
          else "every list of names in the docs is the registry's")
    return 1 if missing or wrong else 0


if __name__ == "__main__":
    sys.exit(main())

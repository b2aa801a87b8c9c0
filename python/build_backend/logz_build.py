"""The PEP 517 build backend of `pip install .`: CMake builds the Python module (the target
logz_python) and its pure-Python files land in build/python/logz; this packs that folder into a
wheel. Nothing but the standard library and CMake is needed, so pip's isolated build needs no
package from PyPI (pyproject.toml's `requires` is empty): the C++ dependencies are Debian's
(scripts/install-deps).

The build folder is `build` under the source (the one `make build` uses: a built tree is reused
and only brought up to date), or `--config-settings build-dir=PATH`. A folder configured without
the Python module gets it (-DLOGZ_BUILD_PYTHON=ON); a new one is configured for Release without
tests or benchmarks.
"""
import base64
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import zipfile

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _version():
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as f:
        found = re.search(r"project\(logz VERSION ([0-9.]+)", f.read())
    if not found:
        raise RuntimeError("logz_build: CMakeLists.txt: expected project(logz VERSION x.y.z)")
    return found.group(1)


def _tag():
    """cp311-cp311-linux_x86_64: the interpreter the module is built for, and the machine."""
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{python}-{python}-{platform}"


def _cached(build_dir, key):
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
            found = re.search(rf"^{key}:\w+=(.*)$", f.read(), re.MULTILINE)
    except FileNotFoundError:
        return None
    return found.group(1) if found else None


def _build(config_settings):
    settings = config_settings or {}
    build_dir = os.path.abspath(settings.get("build-dir", os.path.join(SOURCE, "build")))
    # The interpreter the module is for: the one running pip (a venv's base interpreter is
    # the same Python, with its headers).
    python = getattr(sys, "_base_executable", sys.executable)
    configure = ["cmake", "-S", SOURCE, "-B", build_dir]
    if _cached(build_dir, "CMAKE_HOME_DIRECTORY") is None:
        configure += ["-DCMAKE_BUILD_TYPE=Release", "-DLOGZ_BUILD_TESTS=OFF",
                      "-DLOGZ_BUILD_BENCH=OFF", f"-DLOGZ_PYTHON={python}"]
        if subprocess.run(["ninja", "--version"], capture_output=True).returncode == 0:
            configure += ["-G", "Ninja"]
    # A tree configured with the module is left to the build, which re-configures when needed.
    if _cached(build_dir, "LOGZ_BUILD_PYTHON") != "ON":
        subprocess.run(configure + ["-DLOGZ_BUILD_PYTHON=ON"], check=True, stdout=sys.stderr)
    subprocess.run(["cmake", "--build", build_dir, "--target", "logz_python", "-j",
                    str(os.cpu_count() or 1)], check=True, stdout=sys.stderr)
    package = os.path.join(build_dir, "python", "logz")
    if not os.path.isdir(package):
        raise RuntimeError(f"logz_build: {package}: expected the built package after the build")
    return package


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _metadata(version):
    return (f"Metadata-Version: 2.1\nName: logz\nVersion: {version}\n"
            "Summary: log partition functions, log-likelihoods and Bayesian model evidence by "
            "Monte Carlo\nRequires-Python: >=3.9\nRequires-Dist: numpy\n")


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = f"logz-{_version()}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(_version()))
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = _build(config_settings)
    version, tag = _version(), _tag()
    info = f"logz-{version}.dist-info"
    name = f"logz-{version}-{tag}.whl"
    files = []
    for folder, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith((".py", ".so", ".pyi", ".typed")):
                path = os.path.join(folder, n)
                files.append((os.path.join("logz", os.path.relpath(path, package)), path))
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for arcname, path in files:
            with open(path, "rb") as f:
                data = f.read()
            wheel.writestr(arcname, data)
            record.append(_record_line(arcname, data))
        wheel_text = (f"Wheel-Version: 1.0\nGenerator: logz_build\nRoot-Is-Purelib: false\n"
                      f"Tag: {tag}\n").encode()
        for arcname, data in ((f"{info}/METADATA", _metadata(version).encode()),
                              (f"{info}/WHEEL", wheel_text)):
            wheel.writestr(arcname, data)
            record.append(_record_line(arcname, data))
        record.append(f"{info}/RECORD,,")
        wheel.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return name

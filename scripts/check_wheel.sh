#!/usr/bin/env bash
# Build the wheel and check it the way a user gets it: installed in clean virtual
# environments, away from the source tree.
#
#   1. no extras (plus pytest and hypothesis): `import marrakech` loads from the
#      environment's site-packages, `marrakech perft 3` runs, and tests/core passes
#      against the installed package;
#   2. the `web` extra: `marrakech serve` answers `/` with the app's page and serves
#      its static files.
#
# Usage: scripts/check_wheel.sh        (or `make wheel-check`)
#   PYTHON=python3.12 scripts/check_wheel.sh   the interpreter of the environments
#   KEEP=1 scripts/check_wheel.sh              keep the temporary directory
# Needs the network to reach PyPI (build requirements, pytest, hypothesis, the web extra).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/marrakech-wheel-check.XXXXXX")"
SERVER_PID=""
STEP="setting up"
REPORTED=0
BEGAN=$SECONDS
unset PYTHONPATH PYTHONHOME PYTHONSTARTUP  # nothing may lead Python back to src/
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

fail() {
    echo "check_wheel: FAILED while $STEP: $*" >&2
    REPORTED=1
    exit 1
}

cleanup() {
    local status=$?
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -KILL "$SERVER_PID" 2>/dev/null || true
    fi
    if [[ $status -ne 0 && $REPORTED -eq 0 ]]; then
        echo "check_wheel: FAILED while $STEP (exit status $status)" >&2
    fi
    if [[ "${KEEP:-0}" == 1 ]]; then
        echo "check_wheel: kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

step() {
    STEP="$1"
    printf '==> %s  (%ds)\n' "$1" $((SECONDS - BEGAN))
}

# ---------------------------------------------------------------------------------------
step "copying the sources (building in place would leave build/ and *.egg-info behind)"
mkdir -p "$WORK/source" "$WORK/dist"
cp -R "$ROOT/pyproject.toml" "$ROOT/README.md" "$ROOT/LICENSE" "$ROOT/src" "$WORK/source/"
find "$WORK/source" \( -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +

step "creating a clean virtual environment (no extras)"
"$PYTHON" -m venv "$WORK/core" \
    || fail "$PYTHON -m venv did not work (Debian: apt-get install python3-venv)"
CORE="$WORK/core/bin/python"
"$CORE" -m pip install --quiet --upgrade pip || fail "cannot upgrade pip"

step "building the wheel"
"$CORE" -m pip wheel --quiet --no-deps --wheel-dir "$WORK/dist" "$WORK/source" \
    || fail "pip wheel could not build the project"
shopt -s nullglob
wheels=("$WORK"/dist/marrakech-*-py3-none-any.whl)
shopt -u nullglob
[[ ${#wheels[@]} -eq 1 ]] \
    || fail "expected one marrakech-*-py3-none-any.whl, found: $(ls "$WORK/dist")"
WHEEL="${wheels[0]}"
echo "    $(basename "$WHEEL")"

step "checking the wheel's metadata and files"
version="$(cd "$WORK" && "$CORE" - "$ROOT/src/marrakech/__init__.py" <<'EOF'
import ast, sys

# The one place the version is written: `__version__ = "X.Y.Z"` in marrakech/__init__.py.
for node in ast.parse(open(sys.argv[1], encoding="utf-8").read()).body:
    if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__version__":
        print(ast.literal_eval(node.value))
EOF
)"
[[ -n "$version" ]] || fail "no __version__ = \"...\" in src/marrakech/__init__.py"
(cd "$WORK" && "$CORE" - "$WHEEL" "$version" <<'EOF'
import sys, zipfile
from email.parser import Parser

wheel, version = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as archive:
    names = set(archive.namelist())
    info = f"marrakech-{version}.dist-info"
    if f"{info}/METADATA" not in names:
        sys.exit(f"no {info}/METADATA in the wheel: is its version {version}?")
    meta = Parser().parsestr(archive.read(f"{info}/METADATA").decode())
expected = {"Name": "marrakech", "Version": version, "License-Expression": "MIT"}
for key, value in expected.items():
    if meta.get(key) != value:
        sys.exit(f"METADATA {key}: expected {value!r}, found {meta.get(key)!r}")
needed = [
    f"{info}/licenses/LICENSE",
    f"{info}/entry_points.txt",
    "marrakech/__init__.py",
    "marrakech/py.typed",
    "marrakech/tui/marrakech.tcss",
    "marrakech/web/static/index.html",
    "marrakech/web/static/js/app.js",
]
missing = [name for name in needed if name not in names]
if missing:
    sys.exit(f"missing from the wheel: {', '.join(missing)}")
strays = sorted(n for n in names if not n.startswith(("marrakech/", f"{info}/")))
if strays:
    sys.exit(f"unexpected files in the wheel: {', '.join(strays[:10])}")
print(f"    version {version}, license MIT, {len(names)} files")
EOF
) || fail "the wheel's metadata or files are wrong (see above)"

step "installing the wheel without extras, with pytest and hypothesis"
"$CORE" -m pip install --quiet "$WHEEL" pytest hypothesis || fail "cannot install the wheel"
SITE="$("$CORE" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
for extra in numpy numba fastapi textual gymnasium; do
    if (cd "$WORK" && "$CORE" -c "import $extra" 2>/dev/null); then
        fail "$extra is installed: the wheel without extras must not pull it in"
    fi
done

step "importing marrakech from site-packages"
found="$(cd "$WORK" && "$CORE" -c 'import marrakech as m; print(m.__file__, m.__version__)')"
[[ "$found" == "$SITE/marrakech/__init__.py $version" ]] \
    || fail "import marrakech gave '$found', expected '$SITE/marrakech/__init__.py $version'"

step "running marrakech perft 3"
perft="$(cd "$WORK" && "$WORK/core/bin/marrakech" perft 3)" \
    || fail "marrakech perft 3 exited with an error"
[[ "$perft" == $'perft 1 3\nperft 2 12\nperft 3 111' ]] || fail "marrakech perft 3 printed: $perft"
[[ "$(cd "$WORK" && "$WORK/core/bin/marrakech" --version)" == "marrakech $version" ]] \
    || fail "marrakech --version does not say $version"

step "running tests/core against the installed wheel"
# A copy of the tests, outside the source tree, with a configuration of its own: the
# project's pytest settings (doctests of src/, docs/) would reach for the sources.
mkdir -p "$WORK/run/tests"
cp "$ROOT/tests/__init__.py" "$ROOT/tests/layers.py" "$WORK/run/tests/"
cp -R "$ROOT/tests/core" "$ROOT/tests/reference" "$WORK/run/tests/"
find "$WORK/run" -name __pycache__ -prune -exec rm -rf {} +
cat >"$WORK/run/pytest.ini" <<'EOF'
[pytest]
addopts = -ra --strict-markers -m "not slow and not browser"
markers =
    slow: long runs
    browser: end-to-end tests in a browser
EOF
cat >"$WORK/run/tests/test_installed_wheel.py" <<EOF
"""Written by scripts/check_wheel.sh: the tests run against the installed wheel."""

import sysconfig
from pathlib import Path

import marrakech


def test_marrakech_is_the_installed_wheel() -> None:
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert Path(marrakech.__file__).resolve() == site / "marrakech" / "__init__.py"
    assert marrakech.__version__ == "$version"
EOF
(cd "$WORK/run" && "$CORE" -m pytest -q -p no:cacheprovider --rootdir "$WORK/run" \
    -c "$WORK/run/pytest.ini" tests/test_installed_wheel.py tests/core) \
    || fail "tests/core failed against the installed wheel"

step "installing the wheel with the web extra in a second clean environment"
"$PYTHON" -m venv "$WORK/web" || fail "$PYTHON -m venv did not work"
WEB="$WORK/web/bin/python"
"$WEB" -m pip install --quiet --upgrade pip || fail "cannot upgrade pip"
"$WEB" -m pip install --quiet "${WHEEL}[web]" || fail "cannot install the wheel with [web]"
WEB_SITE="$("$WEB" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"

step "starting marrakech serve"
# --port 0: the server binds a free port itself and prints it (no race for the port).
(cd "$WORK" && exec "$WORK/web/bin/marrakech" serve --host 127.0.0.1 --port 0 \
    --db "$WORK/store.sqlite3" >"$WORK/serve.log" 2>&1) &
SERVER_PID=$!
address=""
for _ in $(seq 600); do  # 60 s
    address="$(sed -n 's/^Marrakech is ready at \(http:[^ ]*\).*/\1/p' "$WORK/serve.log")"
    [[ -n "$address" ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || fail "the server exited: $(cat "$WORK/serve.log")"
    sleep 0.1
done
[[ -n "$address" ]] || fail "the server did not say it was ready in 60 s: $(cat "$WORK/serve.log")"
echo "    $address"

step "fetching / and a static file"
(cd "$WORK" && "$WEB" - "$address" "$WEB_SITE/marrakech/web/static" <<'EOF'
import re
import sys
import urllib.request
from pathlib import Path

address, static = sys.argv[1], Path(sys.argv[2])


def get(path: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(address + path, timeout=10) as reply:
        if reply.status != 200:
            sys.exit(f"GET /{path}: status {reply.status}")
        return reply.headers.get("Content-Type", ""), reply.read()


kind, page = get("")
if not kind.startswith("text/html"):
    sys.exit(f"GET /: expected HTML, found {kind!r}")
# The page names its files under a content-hash folder (/static/v-HASH/...).
found = re.search(rb'src="/(static/v-[0-9a-f]+)/js/app\.js"', page)
original = (static / "index.html").read_bytes()
if found is None or page != original.replace(b'"/static/', b'"/' + found.group(1) + b"/"):
    sys.exit(f"GET /: not the app's page: {page[:300]!r}")
script_path = found.group(1).decode() + "/js/app.js"
kind, script = get(script_path)
if "javascript" not in kind or script != (static / "js" / "app.js").read_bytes():
    sys.exit(f"GET /{script_path}: not the app's script ({kind!r}, {len(script)} bytes)")
print(f"    / ({len(page)} bytes of HTML), /{script_path} ({len(script)} bytes)")
EOF
) || fail "the web app did not serve its page (server log: $(cat "$WORK/serve.log"))"

step "stopping the server"
# SIGTERM, as a service manager stops it: uvicorn shuts down cleanly (the app's shutdown
# closes the store), then re-raises the signal, so the exit status is 143 (or 0).
kill -TERM "$SERVER_PID"
for _ in $(seq 200); do  # 20 s
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$SERVER_PID" 2>/dev/null && fail "the server did not stop within 20 s of SIGTERM"
code=0
wait "$SERVER_PID" || code=$?
SERVER_PID=""
[[ $code -eq 0 || $code -eq 143 ]] \
    || fail "the server exited with status $code: $(cat "$WORK/serve.log")"
grep -q "Application shutdown complete" "$WORK/serve.log" \
    || fail "the server did not shut down cleanly: $(cat "$WORK/serve.log")"

STEP="done"
printf 'check_wheel: %s passed every check in %ds\n' "$(basename "$WHEEL")" $((SECONDS - BEGAN))

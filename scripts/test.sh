#!/usr/bin/env bash
# sigboard's whole test suite, in one idempotent command:
#   ./scripts/test.sh [--fast] [extra pytest arguments]
# 1. creates .venv (if missing) and installs requirements-test.txt into it;
# 2. installs Debian's chromium (if /usr/bin/chromium is missing) for the browser tests;
# 3. starts the local PostgreSQL cluster (if installed but not listening);
# 4. compiles the engine's Numba kernels (`sigboard warm`, cached), runs ruff on the whole
#    tree, mypy (engine/, app/, tests/), then pytest (2 workers).
# --fast is the local loop: step 1 only when requirements*.txt or pyproject.toml changed, no
# steps 2 and 3, and pytest leaves out the tests marked slow (simulations, subprocesses,
# concurrency) or browser; the postgres tests still run when a server is listening. CI
# (.ci/run) never passes it.
# Environment: SIGBOARD_REQUIRE_POSTGRES=1 / SIGBOARD_REQUIRE_BROWSER=1 turn a missing
# PostgreSQL / Chromium into a failure instead of a skip (.ci/run sets both);
# SIGBOARD_TEST_WORKERS (default 2) sets pytest-xdist's worker count; a test that runs
# longer than SIGBOARD_TEST_TIMEOUT seconds (default 600) fails instead of hanging.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY=${PYTHON:-python3}
VENV="$ROOT/.venv"
# Bytecode caching on (some shells export PYTHONDONTWRITEBYTECODE): without it every pytest
# worker and every subprocess test recompiles and re-rewrites the project's modules (~6 s of
# a --fast run's collection).
unset PYTHONDONTWRITEBYTECODE

fast=0
pytest_args=()
for arg in "$@"; do
    if [ "$arg" = "--fast" ]; then fast=1; else pytest_args+=("$arg"); fi
done

step() { printf '\n==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

step "Python environment ($VENV)"
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
# --fast skips the install when nothing it reads changed since the last one
installed="$VENV/.test-sh-installed"
if [ "$fast" -eq 1 ] && [ -f "$installed" ] \
        && [ -z "$(find requirements.txt requirements-test.txt pyproject.toml -newer "$installed")" ]; then
    echo "requirements and pyproject.toml unchanged since the last install: not reinstalling"
else
    "$VENV/bin/python" -m pip install -qq --disable-pip-version-check -r requirements-test.txt -e .
    touch "$installed"
fi

if [ "$fast" -eq 1 ]; then
    step "--fast: no chromium or PostgreSQL setup; tests marked slow or browser left out"
else
    step "Chromium (Debian package, for the browser tests)"
    if [ ! -x /usr/bin/chromium ]; then
        if command -v apt-get >/dev/null 2>&1; then
            as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
            as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
        else
            echo "apt-get not found: cannot install chromium; browser tests will skip (or fail in CI)"
        fi
    fi
    if [ -x /usr/bin/chromium ]; then /usr/bin/chromium --version 2>/dev/null || true; fi

    step "PostgreSQL (for the postgres tests)"
    pg_listening() {
        if command -v pg_isready >/dev/null 2>&1; then
            pg_isready -q -h 127.0.0.1 -p 5432
        else
            "$VENV/bin/python" - <<'PYEOF'
import socket, sys
s = socket.socket()
s.settimeout(1)
sys.exit(0 if s.connect_ex(("127.0.0.1", 5432)) == 0 else 1)
PYEOF
        fi
    }
    if pg_listening; then
        echo "PostgreSQL is listening on 127.0.0.1:5432"
    elif command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
        for version in $(ls /etc/postgresql); do
            as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
        done
        for _ in $(seq 1 20); do pg_listening && break; sleep 0.5; done
        if pg_listening; then echo "PostgreSQL started"; else echo "PostgreSQL did not start"; fi
    else
        echo "PostgreSQL is not installed here: postgres tests will skip (or fail in CI)"
    fi
fi

status=0

# every Numba kernel compiled once (or loaded from its cache: ~1 s), before the test workers
# and the test servers would each compile them while running
step "sigboard warm (the engine's compiled kernels)"
"$VENV/bin/python" -m engine warm || status=1

step "ruff check ."
"$VENV/bin/ruff" check . || status=1

step "mypy (engine/, app/, tests/)"
"$VENV/bin/mypy" || status=1

selection=()
if [ "$fast" -eq 1 ]; then selection=(-m "not slow and not browser"); fi
step "pytest${selection[*]:+ ${selection[*]}}"
set +e
"$VENV/bin/python" -m pytest -n "${SIGBOARD_TEST_WORKERS:-2}" \
    --timeout "${SIGBOARD_TEST_TIMEOUT:-600}" ${selection[@]+"${selection[@]}"} \
    ${pytest_args[@]+"${pytest_args[@]}"}
rc=$?
set -e
case $rc in
    0) ;;
    5) echo "pytest collected no tests: that is a failure"; status=1 ;;
    *) status=1 ;;
esac

if [ "$status" -eq 0 ]; then
    step "all checks passed"
else
    step "FAILED (ruff, mypy or pytest above)"
fi
exit "$status"

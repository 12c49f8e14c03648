#!/usr/bin/env bash
# Set up from nothing and run the whole test suite.
#
#   bash scripts/test.sh            # fresh .venv-test, all five backends, pinned frameworks
#   VENV=.venv bash scripts/test.sh # reuse another environment
#
# Steps: a new virtual environment; build the wheelhouse (the six distributions);
# install polyops[all] from it with the pinned framework versions of
# ci/constraints.txt (the installed wheels are what the tests import); run pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv-test}
PYTHON_BIN=${PYTHON_BIN:-python3.11}
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON_BIN" -m venv "$VENV"
fi
PY="$VENV/bin/python"
"$PY" -m pip install --quiet --upgrade pip setuptools wheel
PYTHON="$PY" bash scripts/wheelhouse.sh >/dev/null
"$PY" -m pip install --quiet -c ci/constraints.txt --find-links wheelhouse \
    --force-reinstall --no-deps polyops polyops-numpy polyops-jax polyops-tensorflow \
    polyops-torch polyops-openvino
"$PY" -m pip install --quiet -c ci/constraints.txt --find-links wheelhouse \
    'polyops[all]' -r ci/test-requirements.txt
"$PY" -m polyops backends
exec "$PY" -m pytest -n "${PYTEST_WORKERS:-2}" -p no:cacheprovider --durations=40 "$@"

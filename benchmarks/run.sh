#!/usr/bin/env bash
# Set up the benchmark environment from nothing and run the benchmark suite.
#
#   bash benchmarks/run.sh                  # fresh .venv-bench, all five backends, pinned frameworks
#   bash benchmarks/run.sh --compile-torch  # arguments go to benchmarks/suite.py
#   VENV=.venv bash benchmarks/run.sh --quick --backend numpy   # reuse another environment
#
# Steps (as scripts/test.sh): a new virtual environment; build the wheelhouse (the six
# distributions); install polyops[all] from it with the pinned framework versions of
# ci/constraints.txt, plus benchmarks/requirements.txt (keras, autoray, matplotlib); run
# benchmarks/suite.py, which writes benchmarks/RESULTS.md, overhead.png and results.json.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv-bench}
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
    'polyops[all]' -r benchmarks/requirements.txt
"$PY" -m polyops backends
exec "$PY" benchmarks/suite.py "$@"

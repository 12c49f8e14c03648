#!/usr/bin/env bash
# Build the six polyops distributions and the test fixture plugins into ./wheelhouse,
# and fetch the wheels of core's own dependencies, so that
#     pip install --find-links wheelhouse 'polyops[torch]'
# works from a checkout exactly as 'pip install polyops[torch]' would from an index.
#
# The pyprojects need setuptools>=77 (`license` as an SPDX string). A Python whose own
# setuptools is that recent builds with it; an older one (a fresh `python3.11 -m venv`
# bundles 65.5, a 3.12 venv has none) builds in pip's isolated build environments instead,
# with the setuptools wheel fetched into ./wheelhouse first. Either way the build step uses
# no index and installs nothing into $PYTHON's environment.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
rm -rf wheelhouse
mkdir -p wheelhouse
# core's dependencies, for offline installs in the tests' throwaway environments (scipy:
# some op records compute their expected values with it, see polyops.testing), and
# setuptools, for isolated builds from ./wheelhouse (`pip install ./core` offline too)
"$PY" -m pip download --quiet -d wheelhouse -c ci/constraints.txt \
    numpy pluggy ml_dtypes pytest scipy 'setuptools>=77'
if "$PY" -c 'import sys; from importlib.metadata import version
sys.exit(int(version("setuptools").split(".")[0]) < 77)' 2>/dev/null; then
    isolation=--no-build-isolation
else
    isolation=--use-pep517  # pip's default: one isolated build environment per project
fi
"$PY" -m pip wheel --quiet --no-deps "$isolation" --no-index --find-links wheelhouse -w wheelhouse \
    ./core ./plugins/numpy ./plugins/jax ./plugins/tensorflow ./plugins/torch ./plugins/openvino ./examples/polyops-arrayapi \
    ./tests/fixtures/*/
ls wheelhouse

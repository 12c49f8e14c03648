#!/usr/bin/env bash
# Build the six polyops distributions and the test fixture plugins into ./wheelhouse,
# and fetch the wheels of core's own dependencies, so that
#     pip install --find-links wheelhouse 'polyops[torch]'
# works from a checkout exactly as 'pip install polyops[torch]' would from an index.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
rm -rf wheelhouse
mkdir -p wheelhouse
"$PY" -m pip wheel --quiet --no-deps --no-build-isolation -w wheelhouse \
    ./core ./plugins/numpy ./plugins/jax ./plugins/tensorflow ./plugins/torch ./plugins/openvino ./examples/polyops-arrayapi \
    ./tests/fixtures/*/
# core's dependencies, for offline installs in the tests' throwaway environments (scipy:
# some op records compute their expected values with it, see polyops.testing)
"$PY" -m pip download --quiet -d wheelhouse -c ci/constraints.txt numpy pluggy ml_dtypes pytest scipy
ls wheelhouse

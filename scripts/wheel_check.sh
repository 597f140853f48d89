#!/usr/bin/env bash
# The wheel as a user of another machine meets it: the manylinux wheel `make wheel` left in
# dist/ is installed into a new virtual environment (binary wheels only: nothing is compiled),
# then `gpukit info` and the demo run from outside the source tree, with that environment's
# Python alone (no PYTHONPATH): on PoCL where there is no GPU. Called by `make wheel-check`.
set -euo pipefail
python=${1:?usage: scripts/wheel_check.sh PYTHON}
repo=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
wheels=("$repo"/dist/gpukit-*manylinux*.whl)
if [ ${#wheels[@]} -ne 1 ]; then
    echo "wheel_check: expected one manylinux wheel in dist/ (make wheel), found ${#wheels[@]}" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --only-binary :all: "${wheels[0]}"
cd "$work"
unset PYTHONPATH
"$work/venv/bin/python" -m gpukit info
"$work/venv/bin/python" "$repo/examples/python/demo.py"
echo "wheel_check: $(basename "${wheels[0]}") ($(du -k "${wheels[0]}" | cut -f1) KiB) installed and ran the demo"

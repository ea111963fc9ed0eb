#!/usr/bin/env bash
# lfslab's tests: the Rust workspace, then the Python package built from
# crates/lfslab-py and its pytest suite (which checks it against the CLI the
# Rust tests built). Needs Python >= 3.9 with the packages in
# crates/lfslab-py/requirements-test.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --workspace --locked
python3 -m pip install --quiet ./crates/lfslab-py
LFSLAB_BIN="$PWD/target/release/lfslab" python3 -m pytest -q -p no:cacheprovider crates/lfslab-py/tests

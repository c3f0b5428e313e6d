#!/usr/bin/env bash
# The test command: installs what the tests need, then runs every test
# (unit tests, simulator tests, loader-level tests through the Khronos loader).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo test --locked

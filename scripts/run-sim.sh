#!/usr/bin/env bash
# The main job, on the simulated Mali-G52: build the driver and run
# vulkaninfo through the Khronos loader against the built manifest.
# Extra arguments go to vulkaninfo (default: --summary).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo build --locked
manifest="$PWD/target/debug/bifrost_vk_icd.json"
export VK_ICD_FILENAMES="$manifest"
export BIFROST_VK_DEVICE="${BIFROST_VK_DEVICE:-sim}"
# vulkaninfo's WSI probing complains without a runtime dir; give it one.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
if [ $# -eq 0 ]; then
    set -- --summary
fi
exec vulkaninfo "$@"

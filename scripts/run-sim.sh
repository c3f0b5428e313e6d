#!/usr/bin/env bash
# The main job, on the simulated Mali-G52: build the driver, run vulkaninfo
# through the Khronos loader against the built manifest, then capture a
# triangle strip and a fan with VK_EXT_transform_feedback
# (examples/xfb_capture.rs) and print them beside what the spec requires.
# Extra arguments go to vulkaninfo alone (default: --summary, then the capture).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo build --locked --example xfb_capture
manifest="$PWD/target/debug/bifrost_vk_icd.json"
export VK_ICD_FILENAMES="$manifest"
export BIFROST_VK_DEVICE="${BIFROST_VK_DEVICE:-sim}"
# vulkaninfo's WSI probing complains without a runtime dir; give it one.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
if [ $# -gt 0 ]; then
    exec vulkaninfo "$@"
fi
vulkaninfo --summary
echo
echo "== transform feedback capture (examples/xfb_capture.rs)"
exec target/debug/examples/xfb_capture

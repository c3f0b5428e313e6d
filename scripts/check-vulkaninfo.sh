#!/usr/bin/env bash
# CI check: vulkaninfo (full and --summary) through the Khronos loader must
# list the simulated Mali-G52 and VK_EXT_transform_feedback with its
# feature and properties (and the other extensions and features claimed), exit 0, and log no driver errors; with
# VK_LOADER_DEBUG=error,warn the loader must report nothing about our ICD.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked
manifest="$PWD/target/debug/bifrost_vk_icd.json"
test -f "$manifest" || { echo "FAIL: $manifest was not written by build.rs"; exit 1; }
export VK_ICD_FILENAMES="$manifest"
export BIFROST_VK_DEVICE=sim
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
out=$(mktemp -d)
fail=0

for args in "" "--summary"; do
    name=${args#--}
    name=${name:-full}
    # shellcheck disable=SC2086
    if ! vulkaninfo $args >"$out/$name.out" 2>"$out/$name.err"; then
        echo "FAIL: vulkaninfo $args exited non-zero"; cat "$out/$name.err"; fail=1
    fi
    if ! grep -q "Mali-G52 (simulated)" "$out/$name.out"; then
        echo "FAIL: vulkaninfo $args does not list 'Mali-G52 (simulated)'"; fail=1
    fi
    # Our own log lines look like "[ERROR bifrost_vk..." / "[WARN  bifrost_vk...".
    if grep -E '^\[(ERROR|WARN) +bifrost_vk' "$out/$name.err"; then
        echo "FAIL: the driver logged errors or warnings during vulkaninfo $args"; fail=1
    fi
    if grep -i -E '^ERROR' "$out/$name.out"; then
        echo "FAIL: vulkaninfo $args printed errors"; fail=1
    fi
done

# The full report lists the extension and its properties.
for want in "VK_EXT_transform_feedback" "transformFeedback *= true" \
            "maxTransformFeedbackBuffers *= 4" "transformFeedbackQueries" \
            "transformFeedbackDraw *= true" "multiDrawIndirect *= true" \
            "VK_KHR_timeline_semaphore" "timelineSemaphore *= true" \
            "VK_EXT_provoking_vertex" "transformFeedbackPreservesProvokingVertex *= true" \
            "VK_KHR_draw_indirect_count" \
            "VK_EXT_host_query_reset" "hostQueryReset *= true" \
            "VK_KHR_create_renderpass2" "VK_KHR_multiview" "multiview *= true" \
            "VK_KHR_maintenance2" "VK_KHR_shader_draw_parameters" \
            "VK_EXT_scalar_block_layout" "scalarBlockLayout *= true" \
            "VK_KHR_16bit_storage" "storageBuffer16BitAccess *= true" \
            "VK_KHR_8bit_storage" "storageBuffer8BitAccess *= true" \
            "VK_KHR_shader_non_semantic_info"; do
    if ! grep -q -E "$want" "$out/full.out"; then
        echo "FAIL: vulkaninfo does not show '$want'"; fail=1
    fi
done

VK_LOADER_DEBUG=error,warn vulkaninfo --summary >"$out/loader.out" 2>"$out/loader.err" || true
if cat "$out/loader.out" "$out/loader.err" | grep -E -i '(error|warn)' | grep -i -E 'bifrost|'"$(dirname "$manifest")"; then
    echo "FAIL: the loader reports problems with our ICD"; fail=1
fi

if [ $fail -ne 0 ]; then
    echo "vulkaninfo check FAILED (logs in $out)"; exit 1
fi
echo "vulkaninfo check passed:$(grep -m1 deviceName "$out/summary.out" | sed 's/^[[:space:]]*/ /')"
rm -rf "$out"

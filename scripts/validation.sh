#!/usr/bin/env bash
# Runs the loader-level suite once with the Khronos validation layer
# (Debian's vulkan-validationlayers) and fails on any validation error.
# Not run: the tests whose point is invalid input (instance, properties2,
# memory, panic_guard, device_lost: unknown structures, zero-sized or
# oversized allocations, double maps, a recorded GPU fault; the layer is
# right to report those), and in the files run, the malformed-SPIR-V test
# (the layer's SPIR-V parser aborts on garbage), the descriptor-pool
# exhaustion test, and the two tests of undefined but survivable misuse
# (secondary.rs: a primary submitted after its secondary was freed;
# events.rs: a recording naming a destroyed event; query.rs: a host reset
# past the pool's end). pipeline_cache.rs is
# not run either: its hidden test hook (vkBifrostTestPipelineCacheStats) is
# unknown to the layer, which then passes its own wrapped handles through to
# the driver.
#
# Usage: scripts/validation.sh          (after scripts/install-deps.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

layer_json=/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json
test -f "$layer_json" || {
    echo "validation.sh: $layer_json missing (scripts/install-deps.sh installs vulkan-validationlayers)" >&2
    exit 1
}
tests=(sync query multiview draw_parameters scalar_layout small_storage non_semantic xfb_loader xfb_queries transfer vk_lifetimes vk_extensions secondary events timeline vertex_stores array_length robust_access int64)
args=()
for t in "${tests[@]}"; do args+=(--test "$t"); done
log=$(mktemp)
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
    cargo test --locked "${args[@]}" -- --skip bad_shaders_are_errors --skip shaders_sampling_images_are_refused --skip descriptor_pool_exhaustion \
        --skip invalid_secondary_use_is_survived --skip host_reset_past_the_end_is_ignored --skip destroyed_event_in_a_recording_is_survived 2>&1 | tee "$log" |
    grep -E '^test result|FAILED' || true
# Deliberate invalid usage inside otherwise valid tests: a Begin/End of
# transform-feedback streams 1 and 3 (Zink issues them; the driver must
# refuse them cleanly, xfb_queries.rs checks that it does).
allowed='VUID-vkCmdBeginQueryIndexedEXT-queryType-02339|VUID-vkCmdEndQueryIndexedEXT-queryType-02346'
if grep -E 'Validation (Error|Warning)' "$log" | grep -q -v -E "$allowed"; then
    echo "validation.sh: the validation layer reported problems:"
    grep -E 'Validation (Error|Warning)' "$log" | grep -v -E "$allowed" |
        sed 's/msgNum.*MessageID = [^|]*|//' | sort | uniq -c | head -40
    exit 1
fi
if grep -q -E '^test result: FAILED|error: test failed' "$log"; then
    echo "validation.sh: tests failed with the layer enabled"; exit 1
fi
echo "validation.sh: no validation errors over ${tests[*]}"
rm -f "$log"

#!/bin/sh
# Regenerate the SPIR-V of the front-end corpus and validate it.
#
#   tests/shaders/regen.sh
#
# Needs glslangValidator (glslang-tools) and spirv-as/spirv-val (spirv-tools).
# GLSL sources compile for Vulkan 1.0 (SPIR-V 1.0) unless their name starts
# with vk13_ (Vulkan 1.3, SPIR-V 1.6); hand-written *.spvasm files are
# assembled for the environment named on their first line ("; env: vulkan1.0").
# graphics/ holds shaders of the graphics-job tests (not the corpus), vk/
# those of the loader-level tests.
# reject/ holds valid modules the front end must reject with a clear error.
set -eu
cd "$(dirname "$0")"
for src in *.vert *.frag *.comp reject/*.comp reject/*.frag; do
    base=$(basename "$src")
    case "$base" in
        vk13_*) env=vulkan1.3 ;;
        *) env=vulkan1.0 ;;
    esac
    glslangValidator --quiet -V --target-env "$env" "$src" -o "$src.spv"
    case "$base" in
        *scalar*) spirv-val --target-env "$env" --scalar-block-layout "$src.spv" ;;
        *) spirv-val --target-env "$env" "$src.spv" ;;
    esac
done
for src in graphics/*.vert graphics/*.frag; do
    glslangValidator --quiet -V --target-env vulkan1.0 "$src" -o "$src.spv"
    spirv-val --target-env vulkan1.0 "$src.spv"
done
# vk/ holds the shaders of the loader-level tests (not the corpus).
for src in vk/*.vert vk/*.comp; do
    case "$src" in
        # With NonSemantic.Shader.DebugInfo.100 (tests/non_semantic.rs).
        *debug_info*) debug=-gV ;;
        *) debug= ;;
    esac
    glslangValidator --quiet -V $debug --target-env vulkan1.0 "$src" -o "$src.spv"
    case "$src" in
        *scalar*) spirv-val --target-env vulkan1.0 --scalar-block-layout "$src.spv" ;;
        *) spirv-val --target-env vulkan1.0 "$src.spv" ;;
    esac
done
# vk/small_storage.comp again with its storage buffers in the StorageBuffer
# storage class, as a SPIR-V 1.0 module (VK_KHR_storage_buffer_storage_class):
# glslang emits that class for Vulkan 1.1; the disassembly gets the two
# extensions SPIR-V 1.0 needs and is assembled for Vulkan 1.0.
glslangValidator --quiet -V --target-env vulkan1.1 vk/small_storage.comp -o vk/small_storage_sb.tmp.spv
spirv-dis vk/small_storage_sb.tmp.spv |
    sed 's/^\( *\)OpExtension "SPV_KHR_8bit_storage"/\1OpExtension "SPV_KHR_8bit_storage"\n\1OpExtension "SPV_KHR_16bit_storage"\n\1OpExtension "SPV_KHR_storage_buffer_storage_class"/' |
    spirv-as --target-env vulkan1.0 -o vk/small_storage_sb.comp.spv -
rm vk/small_storage_sb.tmp.spv
spirv-val --target-env vulkan1.0 vk/small_storage_sb.comp.spv
for src in *.spvasm; do
    [ -e "$src" ] || continue
    env=$(sed -n '1s/^; env: //p' "$src")
    spirv-as --target-env "${env:-vulkan1.0}" "$src" -o "${src%.spvasm}.spv"
    spirv-val --target-env "${env:-vulkan1.0}" "${src%.spvasm}.spv"
done
echo "regenerated $(ls *.spv | wc -l) modules"

#!/usr/bin/env bash
# Debian 12 packages the driver's scripts and tests need: the Khronos loader
# (libvulkan1), its headers and vk.xml (libvulkan-dev), vulkaninfo
# (vulkan-tools) and valgrind (scripts/valgrind.sh, run by CI). Runs apt-get
# non-interactively; uses sudo when not root.
set -euo pipefail

packages=(libvulkan1 libvulkan-dev vulkan-tools valgrind vulkan-validationlayers)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
if [ "${BIFROST_VK_SKIP_APT:-0}" = 1 ]; then
    echo "install-deps: BIFROST_VK_SKIP_APT=1, not touching apt (missing: ${missing[*]:-none})"
    exit 0
fi
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"

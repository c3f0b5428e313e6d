//! VkBuffer: a size, a usage and (once bound) a GPU address.

use std::sync::OnceLock;

use ash::vk;

use super::memory::DeviceMemory;
use crate::kmod::BoHandle;
use crate::vk::VkResult;
use crate::vk::handle::Object;

/// Buffer alignment: 64 bytes covers every Bifrost descriptor that points at
/// buffer memory (attribute buffers, uniform buffers).
pub const BUFFER_ALIGNMENT: u64 = 64;

/// `minUniformBufferOffsetAlignment`, `minStorageBufferOffsetAlignment` and
/// `minTexelBufferOffsetAlignment` (the limit the 1.0 spec asks of them is
/// at most 256).
pub const DESCRIPTOR_OFFSET_ALIGNMENT: u64 = 256;

pub struct Buffer {
    pub size: u64,
    pub usage: vk::BufferUsageFlags,
    /// Once bound: GPU VA of the first byte, and the memory's BO (what a
    /// submit lists when recorded jobs touch the buffer). Set once
    /// (vkBindBufferMemory), read lock-free by every command that names the
    /// buffer.
    binding: OnceLock<(u64, BoHandle)>,
}

impl Object for Buffer {
    const TAG: u64 = 0x6276_6b5f_6275_6666; // "bvk_buff"
}

impl Buffer {
    pub fn new(info: &vk::BufferCreateInfo<'_>) -> VkResult<Buffer> {
        if info.size == 0 {
            log::warn!("vkCreateBuffer: size is 0 (invalid usage)");
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        if !info.flags.is_empty() {
            // Sparse and protected buffers need features we do not report.
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        Ok(Buffer {
            size: info.size,
            usage: info.usage,
            binding: OnceLock::new(),
        })
    }

    /// The alignment of the buffer's memory: a buffer that descriptors
    /// can name gets the descriptor offset limits' (the spec's
    /// vkGetBufferMemoryRequirements: for uniform, storage and texel buffer
    /// usage, `alignment` is a multiple of the matching `min*OffsetAlignment`).
    pub fn alignment(&self) -> u64 {
        let described = vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
            | vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER;
        if self.usage.intersects(described) {
            DESCRIPTOR_OFFSET_ALIGNMENT
        } else {
            BUFFER_ALIGNMENT
        }
    }

    pub fn requirements(&self) -> vk::MemoryRequirements {
        vk::MemoryRequirements {
            size: self.size.next_multiple_of(BUFFER_ALIGNMENT),
            alignment: self.alignment(),
            memory_type_bits: 1,
        }
    }

    pub fn bind(&self, memory: &DeviceMemory, offset: u64) -> VkResult<()> {
        if !offset.is_multiple_of(self.alignment())
            || offset
                .checked_add(self.size)
                .is_none_or(|e| e > memory.size)
        {
            log::warn!("vkBindBufferMemory: offset {offset} does not fit (invalid usage)");
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        if self
            .binding
            .set((memory.gpu_va() + offset, memory.bo().handle()))
            .is_err()
        {
            log::warn!("vkBindBufferMemory: buffer already bound (invalid usage)");
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        Ok(())
    }

    /// GPU VA of the first byte and the BO, once bound.
    pub fn bound(&self) -> Option<(u64, BoHandle)> {
        self.binding.get().copied()
    }

    /// The bytes `[offset, offset + size)` of the buffer (`size` may be
    /// `VK_WHOLE_SIZE`), clamped to the buffer: GPU VA, length, BO. `None`
    /// when the buffer has no memory or `offset` lies beyond its end.
    pub fn range(&self, offset: u64, size: u64) -> Option<(u64, u64, BoHandle)> {
        let (va, bo) = self.bound()?;
        if offset > self.size {
            return None;
        }
        let len = if size == vk::WHOLE_SIZE {
            self.size - offset
        } else {
            size.min(self.size - offset)
        };
        Some((va + offset, len, bo))
    }
}

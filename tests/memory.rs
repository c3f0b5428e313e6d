//! Device memory and buffers through the loader: mapping round trips,
//! binding, and bad input that must fail cleanly without leaking BOs.

mod common;

use ash::vk;
use common::*;

fn allocate(gpu: &Gpu, size: u64) -> Result<vk::DeviceMemory, vk::Result> {
    let info = vk::MemoryAllocateInfo::default()
        .allocation_size(size)
        .memory_type_index(0);
    // SAFETY: valid device and info.
    unsafe { gpu.device.allocate_memory(&info, None) }
}

#[test]
fn map_write_unmap_remap_read() {
    let gpu = Gpu::new();
    let mem = allocate(&gpu, 10_000).unwrap();
    // SAFETY: valid handles; writes stay inside the allocation.
    unsafe {
        let p = gpu
            .device
            .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap();
        let bytes = std::slice::from_raw_parts_mut(p.cast::<u8>(), 10_000);
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i * 7) as u8;
        }
        let range = vk::MappedMemoryRange::default()
            .memory(mem)
            .offset(0)
            .size(vk::WHOLE_SIZE);
        gpu.device.flush_mapped_memory_ranges(&[range]).unwrap();
        gpu.device.unmap_memory(mem);

        let p = gpu
            .device
            .map_memory(mem, 4096, 100, vk::MemoryMapFlags::empty())
            .unwrap();
        gpu.device
            .invalidate_mapped_memory_ranges(&[range])
            .unwrap();
        let bytes = std::slice::from_raw_parts(p.cast::<u8>(), 100);
        assert!(
            bytes
                .iter()
                .enumerate()
                .all(|(i, &b)| b == ((i + 4096) * 7) as u8)
        );
        assert_eq!(
            gpu.device
                .map_memory(mem, 0, 16, vk::MemoryMapFlags::empty())
                .err(),
            Some(vk::Result::ERROR_MEMORY_MAP_FAILED),
            "already mapped"
        );
        gpu.device.unmap_memory(mem);
        assert_eq!(gpu.device.get_device_memory_commitment(mem), 10_000);
        gpu.device.free_memory(mem, None);
    }
}

#[test]
fn buffer_create_requirements_bind() {
    let gpu = Gpu::new();
    let info = vk::BufferCreateInfo::default()
        .size(1000)
        .usage(vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST);
    // SAFETY: valid handles throughout.
    unsafe {
        let buffer = gpu.device.create_buffer(&info, None).unwrap();
        let req = gpu.device.get_buffer_memory_requirements(buffer);
        assert!(req.size >= 1000);
        assert_eq!(req.memory_type_bits, 1);
        assert!(req.alignment.is_power_of_two());
        let mem = allocate(&gpu, req.size + req.alignment).unwrap();
        gpu.device
            .bind_buffer_memory(buffer, mem, req.alignment)
            .unwrap();
        let other = gpu.device.create_buffer(&info, None).unwrap();
        assert!(
            gpu.device.bind_buffer_memory(other, mem, 1).is_err(),
            "misaligned offset"
        );
        gpu.device.destroy_buffer(other, None);
        gpu.device.destroy_buffer(buffer, None);
        gpu.device.free_memory(mem, None);
    }
}

/// A buffer that descriptors can name asks for memory aligned to the
/// matching descriptor offset limit (vkGetBufferMemoryRequirements), and a
/// binding offset below it is refused.
#[test]
fn descriptor_buffers_align_to_the_offset_limits() {
    let gpu = Gpu::new();
    // SAFETY: valid handles throughout.
    let limits = unsafe {
        gpu.instance
            .get_physical_device_properties(gpu.physical_device)
            .limits
    };
    let usages = [
        (
            vk::BufferUsageFlags::UNIFORM_BUFFER,
            limits.min_uniform_buffer_offset_alignment,
        ),
        (
            vk::BufferUsageFlags::STORAGE_BUFFER,
            limits.min_storage_buffer_offset_alignment,
        ),
        (
            vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER,
            limits.min_texel_buffer_offset_alignment,
        ),
        (
            vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::STORAGE_BUFFER,
            limits.min_storage_buffer_offset_alignment,
        ),
    ];
    for (usage, limit) in usages {
        let info = vk::BufferCreateInfo::default().size(100).usage(usage);
        // SAFETY: valid handles throughout.
        unsafe {
            let buffer = gpu.device.create_buffer(&info, None).unwrap();
            let req = gpu.device.get_buffer_memory_requirements(buffer);
            assert!(req.alignment.is_power_of_two(), "{usage:?}");
            assert_eq!(
                req.alignment % limit,
                0,
                "{usage:?}: {} vs {limit}",
                req.alignment
            );
            let mem = allocate(&gpu, 4 * req.alignment).unwrap();
            assert!(
                gpu.device
                    .bind_buffer_memory(buffer, mem, req.alignment / 2)
                    .is_err(),
                "{usage:?}: offset below the alignment"
            );
            gpu.device
                .bind_buffer_memory(buffer, mem, 2 * req.alignment)
                .unwrap();
            gpu.device.destroy_buffer(buffer, None);
            gpu.device.free_memory(mem, None);
        }
    }
}

#[test]
fn bad_allocations_fail_cleanly_and_leak_nothing() {
    let gpu = Gpu::new();
    let baseline = gpu.bo_stats();

    // Invalid usage, but it must not crash: a sensible error instead.
    assert_eq!(
        allocate(&gpu, 0).err(),
        Some(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
    );
    // Far beyond the heap.
    assert_eq!(
        allocate(&gpu, 1 << 40).err(),
        Some(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
    );
    // Within the heap's size but more than is left once the heap is full.
    // SAFETY: valid handles.
    let heap = unsafe {
        gpu.instance
            .get_physical_device_memory_properties(gpu.physical_device)
    }
    .memory_heaps[0]
        .size;
    let big = allocate(&gpu, heap - (1 << 20)).unwrap();
    assert_eq!(
        allocate(&gpu, 2 << 20).err(),
        Some(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
    );
    // SAFETY: valid handle.
    unsafe { gpu.device.free_memory(big, None) };

    let mem = allocate(&gpu, 4096).unwrap();
    assert_eq!(gpu.bo_stats().0, baseline.0 + 1);
    // SAFETY: valid handle.
    unsafe { gpu.device.free_memory(mem, None) };
    assert_eq!(gpu.bo_stats(), baseline, "every BO is back");
}

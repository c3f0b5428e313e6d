//! Descriptor set layouts, pipeline layouts, descriptor pools and sets.
//!
//! Bifrost shaders of this driver reach buffers through FAU words: the
//! compiled shader lists the `(set, binding)` pairs it addresses
//! (`ShaderBinary::buffers`) and reads each one's 64-bit GPU address from
//! the push-uniform area. A descriptor set therefore holds, per buffer
//! descriptor, its GPU range (address, size) and BO on the host; draws and
//! dispatches copy the addresses into the job's push uniforms at record
//! time (descriptor sets must not change while a command buffer that uses
//! them is recording or pending, Vulkan spec "Descriptor Set Updates").
//!
//! Supported descriptor types: uniform and storage buffers and their
//! dynamic variants. Anything else is refused at layout creation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ash::vk;

use crate::kmod::BoHandle;
use crate::vk::VkResult;
use crate::vk::buffer::Buffer;
use crate::vk::handle::{self, Object};

/// Descriptor sets a pipeline layout may hold (`maxBoundDescriptorSets`).
pub const MAX_SETS: usize = 4;
/// Bytes of push constants (`maxPushConstantsSize`, the spec's minimum).
pub const MAX_PUSH_CONSTANTS: u32 = 128;

fn supported(ty: vk::DescriptorType) -> bool {
    matches!(
        ty,
        vk::DescriptorType::UNIFORM_BUFFER
            | vk::DescriptorType::STORAGE_BUFFER
            | vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC
            | vk::DescriptorType::STORAGE_BUFFER_DYNAMIC
    )
}

fn dynamic(ty: vk::DescriptorType) -> bool {
    matches!(
        ty,
        vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC | vk::DescriptorType::STORAGE_BUFFER_DYNAMIC
    )
}

#[derive(Clone, Debug)]
pub struct LayoutBinding {
    pub binding: u32,
    pub ty: vk::DescriptorType,
    pub count: u32,
    /// Index of its first element in the set's descriptor array.
    pub first: u32,
    /// Index of its first dynamic offset within the set (dynamic types).
    pub first_dynamic: u32,
}

#[derive(Debug, Default)]
pub struct SetLayoutInfo {
    pub bindings: Vec<LayoutBinding>,
    pub descriptors: u32,
    pub dynamic_count: u32,
}

impl SetLayoutInfo {
    pub fn binding(&self, binding: u32) -> Option<&LayoutBinding> {
        self.bindings.iter().find(|b| b.binding == binding)
    }
}

pub struct DescriptorSetLayout {
    pub info: Arc<SetLayoutInfo>,
}

impl Object for DescriptorSetLayout {
    const TAG: u64 = 0x6276_6b5f_6473_6c61; // "bvk_dsla"
}

impl DescriptorSetLayout {
    pub fn new(bindings: &[vk::DescriptorSetLayoutBinding<'_>]) -> VkResult<DescriptorSetLayout> {
        let mut sorted: Vec<_> = bindings.iter().filter(|b| b.descriptor_count > 0).collect();
        sorted.sort_by_key(|b| b.binding);
        let mut info = SetLayoutInfo::default();
        for b in sorted {
            if !supported(b.descriptor_type) {
                log::error!(
                    "vkCreateDescriptorSetLayout: {:?} descriptors are not supported",
                    b.descriptor_type
                );
                return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
            }
            info.bindings.push(LayoutBinding {
                binding: b.binding,
                ty: b.descriptor_type,
                count: b.descriptor_count,
                first: info.descriptors,
                first_dynamic: info.dynamic_count,
            });
            info.descriptors += b.descriptor_count;
            if dynamic(b.descriptor_type) {
                info.dynamic_count += b.descriptor_count;
            }
        }
        Ok(DescriptorSetLayout {
            info: Arc::new(info),
        })
    }
}

/// A pipeline layout: its set layouts and push-constant size.
pub struct PipelineLayout {
    pub sets: Vec<Option<Arc<SetLayoutInfo>>>,
    pub push_constant_size: u32,
}

impl Object for PipelineLayout {
    const TAG: u64 = 0x6276_6b5f_706c_6179; // "bvk_play"
}

impl PipelineLayout {
    pub fn new(info: &vk::PipelineLayoutCreateInfo<'_>) -> VkResult<PipelineLayout> {
        // SAFETY: the arrays of a valid create info.
        let layouts = unsafe { crate::util::c_slice(info.p_set_layouts, info.set_layout_count) };
        // SAFETY: as above.
        let ranges = unsafe {
            crate::util::c_slice(info.p_push_constant_ranges, info.push_constant_range_count)
        };
        if layouts.len() > MAX_SETS {
            log::error!(
                "vkCreatePipelineLayout: {} sets (at most {MAX_SETS})",
                layouts.len()
            );
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        let mut sets = Vec::new();
        for &l in layouts {
            if l == vk::DescriptorSetLayout::null() {
                sets.push(None);
                continue;
            }
            use ash::vk::Handle;
            // SAFETY: a live layout handle (valid usage).
            let layout = unsafe { handle::handle::<DescriptorSetLayout>(l.as_raw()) }?;
            sets.push(Some(layout.info.clone()));
        }
        let push_constant_size = ranges.iter().map(|r| r.offset + r.size).max().unwrap_or(0);
        if push_constant_size > MAX_PUSH_CONSTANTS {
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        Ok(PipelineLayout {
            sets,
            push_constant_size,
        })
    }
}

/// One buffer descriptor: the range the shader sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferDescriptor {
    pub address: u64,
    pub range: u64,
    pub bo: BoHandle,
}

pub struct DescriptorSet {
    pub layout: Arc<SetLayoutInfo>,
    pub descriptors: Mutex<Vec<Option<BufferDescriptor>>>,
}

impl Object for DescriptorSet {
    const TAG: u64 = 0x6276_6b5f_6473_6574; // "bvk_dset"
}

impl DescriptorSet {
    /// The descriptor of `binding`, array element `element`.
    pub fn get(&self, binding: u32, element: u32) -> Option<BufferDescriptor> {
        let b = self.layout.binding(binding)?;
        if element >= b.count {
            return None;
        }
        self.descriptors.lock().unwrap()[(b.first + element) as usize]
    }

    fn slot(&self, binding: u32, element: u32) -> Option<usize> {
        let b = self.layout.binding(binding)?;
        (element < b.count).then_some((b.first + element) as usize)
    }

    /// vkUpdateDescriptorSets' write of buffer infos, starting at
    /// (`binding`, `element`) and rolling over into following bindings as
    /// the spec describes for consecutive bindings.
    pub fn write_buffers(
        &self,
        mut binding: u32,
        mut element: u32,
        infos: &[vk::DescriptorBufferInfo],
    ) -> VkResult<()> {
        for info in infos {
            while let Some(b) = self.layout.binding(binding)
                && element >= b.count
            {
                element -= b.count;
                binding = self
                    .layout
                    .bindings
                    .iter()
                    .find(|n| n.binding > binding)
                    .map_or(u32::MAX, |n| n.binding);
            }
            let slot = self.slot(binding, element).ok_or_else(|| {
                log::error!("descriptor write beyond the set's bindings (invalid usage)");
                vk::Result::ERROR_OUT_OF_HOST_MEMORY
            })?;
            let d = if info.buffer == vk::Buffer::null() {
                None
            } else {
                use ash::vk::Handle;
                // SAFETY: a live buffer handle (valid usage).
                let buffer = unsafe { handle::handle::<Buffer>(info.buffer.as_raw()) }?;
                buffer
                    .range(info.offset, info.range)
                    .map(|(address, range, bo)| BufferDescriptor { address, range, bo })
            };
            self.descriptors.lock().unwrap()[slot] = d;
            element += 1;
        }
        Ok(())
    }

    /// vkUpdateDescriptorSets' copy.
    pub fn copy_from(
        &self,
        src: &DescriptorSet,
        src_binding: u32,
        src_element: u32,
        dst_binding: u32,
        dst_element: u32,
        count: u32,
    ) -> VkResult<()> {
        for i in 0..count {
            let (Some(s), Some(d)) = (
                src.slot(src_binding, src_element + i),
                self.slot(dst_binding, dst_element + i),
            ) else {
                log::error!("descriptor copy beyond a set's bindings (invalid usage)");
                return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
            };
            let value = src.descriptors.lock().unwrap()[s];
            self.descriptors.lock().unwrap()[d] = value;
        }
        Ok(())
    }
}

pub struct DescriptorPool {
    pub max_sets: u32,
    /// Descriptors of each type still available.
    available: Mutex<HashMap<i32, u32>>,
    /// Sets allocated from the pool (handles), freed with it.
    sets: Mutex<Vec<u64>>,
    pub free_individual: bool,
}

impl Object for DescriptorPool {
    const TAG: u64 = 0x6276_6b5f_6470_6f6f; // "bvk_dpoo"
}

impl DescriptorPool {
    pub fn new(info: &vk::DescriptorPoolCreateInfo<'_>) -> VkResult<DescriptorPool> {
        // SAFETY: the array of a valid create info.
        let sizes = unsafe { crate::util::c_slice(info.p_pool_sizes, info.pool_size_count) };
        let mut available = HashMap::new();
        for s in sizes {
            *available.entry(s.ty.as_raw()).or_insert(0) += s.descriptor_count;
        }
        Ok(DescriptorPool {
            max_sets: info.max_sets,
            available: Mutex::new(available),
            sets: Mutex::new(Vec::new()),
            free_individual: info
                .flags
                .contains(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET),
        })
    }

    /// Allocate one set (`VK_ERROR_OUT_OF_POOL_MEMORY` when the pool is exhausted).
    pub fn allocate(&self, layout: &Arc<SetLayoutInfo>) -> VkResult<u64> {
        let mut sets = self.sets.lock().unwrap();
        if sets.len() as u32 >= self.max_sets {
            return Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY);
        }
        let mut available = self.available.lock().unwrap();
        let mut need: HashMap<i32, u32> = HashMap::new();
        for b in &layout.bindings {
            *need.entry(b.ty.as_raw()).or_insert(0) += b.count;
        }
        for (ty, n) in &need {
            if available.get(ty).copied().unwrap_or(0) < *n {
                return Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY);
            }
        }
        for (ty, n) in need {
            *available.get_mut(&ty).expect("checked above") -= n;
        }
        let set = DescriptorSet {
            layout: layout.clone(),
            descriptors: Mutex::new(vec![None; layout.descriptors as usize]),
        };
        let h = handle::new_handle(set);
        sets.push(h);
        Ok(h)
    }

    /// Free one set back to the pool.
    pub fn free(&self, set: u64) {
        let mut sets = self.sets.lock().unwrap();
        let Some(i) = sets.iter().position(|&s| s == set) else {
            return;
        };
        sets.swap_remove(i);
        // SAFETY: allocated by `allocate` and still listed.
        if let Some(s) = unsafe { handle::free_handle::<DescriptorSet>(set) } {
            let mut available = self.available.lock().unwrap();
            for b in &s.layout.bindings {
                *available.entry(b.ty.as_raw()).or_insert(0) += b.count;
            }
        }
    }

    /// vkResetDescriptorPool: every set freed.
    pub fn reset(&self) {
        let all: Vec<u64> = self.sets.lock().unwrap().clone();
        for s in all {
            self.free(s);
        }
    }
}

impl Drop for DescriptorPool {
    fn drop(&mut self) {
        for s in self.sets.get_mut().unwrap().drain(..) {
            // SAFETY: allocated by `allocate`, freed only here or in `free`.
            drop(unsafe { handle::free_handle::<DescriptorSet>(s) });
        }
    }
}

/// One entry of a descriptor update template (VK_KHR_descriptor_update_template).
#[derive(Clone, Copy, Debug)]
pub struct TemplateEntry {
    pub binding: u32,
    pub element: u32,
    pub count: u32,
    pub ty: vk::DescriptorType,
    /// Byte offset of the first `VkDescriptorBufferInfo` in the data.
    pub offset: usize,
    pub stride: usize,
}

/// A descriptor update template of type DESCRIPTOR_SET: where in the
/// application's data each write's `VkDescriptorBufferInfo`s are.
pub struct DescriptorUpdateTemplate {
    pub entries: Vec<TemplateEntry>,
}

impl Object for DescriptorUpdateTemplate {
    const TAG: u64 = 0x6276_6b5f_6474_6d70; // "bvk_dtmp"
}

impl DescriptorUpdateTemplate {
    pub fn new(
        info: &vk::DescriptorUpdateTemplateCreateInfo<'_>,
    ) -> VkResult<DescriptorUpdateTemplate> {
        if info.template_type != vk::DescriptorUpdateTemplateType::DESCRIPTOR_SET {
            log::error!("vkCreateDescriptorUpdateTemplate: push descriptors are not supported");
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        // SAFETY: the array of a valid create info.
        let entries = unsafe {
            crate::util::c_slice(
                info.p_descriptor_update_entries,
                info.descriptor_update_entry_count,
            )
        };
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            if !supported(e.descriptor_type) {
                log::error!(
                    "vkCreateDescriptorUpdateTemplate: {:?} descriptors are not supported",
                    e.descriptor_type
                );
                return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
            }
            out.push(TemplateEntry {
                binding: e.dst_binding,
                element: e.dst_array_element,
                count: e.descriptor_count,
                ty: e.descriptor_type,
                offset: e.offset,
                stride: e.stride,
            });
        }
        Ok(DescriptorUpdateTemplate { entries: out })
    }

    /// vkUpdateDescriptorSetWithTemplate.
    ///
    /// # Safety
    /// `data` holds a `VkDescriptorBufferInfo` at `offset + i × stride` for
    /// every entry and element (the command's valid usage).
    pub unsafe fn apply(&self, set: &DescriptorSet, data: *const u8) -> VkResult<()> {
        for e in &self.entries {
            let infos: Vec<vk::DescriptorBufferInfo> = (0..e.count as usize)
                // SAFETY: per the contract; unaligned reads are allowed.
                .map(|i| unsafe {
                    data.add(e.offset + i * e.stride)
                        .cast::<vk::DescriptorBufferInfo>()
                        .read_unaligned()
                })
                .collect();
            set.write_buffers(e.binding, e.element, &infos)?;
        }
        Ok(())
    }
}

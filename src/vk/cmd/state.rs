//! The state tracker: what is bound when a draw or dispatch is recorded.
//! Binding only stores handles and ranges (O(1)); draws and dispatches read
//! what they need from here and emit descriptors for it.

use std::sync::Arc;

use ash::vk;

use crate::kmod::BoHandle;
use crate::vk::descriptor::{BufferDescriptor, DescriptorSet, MAX_PUSH_CONSTANTS, MAX_SETS};
use crate::vk::pipeline::{ComputePipeline, GraphicsPipeline, LayoutInfo, MAX_VERTEX_BINDINGS};

/// A bound descriptor set and its dynamic offsets.
#[derive(Clone)]
pub struct BoundSet {
    /// The set's handle (it outlives the command buffer's use of it,
    /// valid usage); read at draw time.
    pub set: u64,
    pub dynamic_offsets: Vec<u32>,
}

/// A bound range of a buffer: GPU address, bytes available, BO.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoundRange {
    pub address: u64,
    pub size: u64,
    pub bo: BoHandle,
}

#[derive(Clone, Copy, Debug)]
pub struct IndexBinding {
    pub range: BoundRange,
    /// Bytes per index: 1, 2 or 4.
    pub size: u32,
}

/// An active render pass instance.
#[derive(Clone, Debug)]
pub struct ActivePass {
    pub subpass: u32,
    pub subpasses: u32,
    /// The render pass's view mask per subpass (VK_KHR_multiview).
    pub view_masks: Arc<[u32]>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn view_indices_are_the_set_bits_or_view_zero() {
        let v = |m| super::view_indices(m).collect::<Vec<_>>();
        assert_eq!(v(0), [0]);
        assert_eq!(v(0b101), [0, 2]);
        assert_eq!(v(1 << 31 | 2), [1, 31]);
    }
}

impl ActivePass {
    /// The current subpass's view mask (0: no multiview).
    pub fn view_mask(&self) -> u32 {
        self.view_masks
            .get(self.subpass as usize)
            .copied()
            .unwrap_or(0)
    }
}

/// The views a draw runs for under `mask`: its set bits in increasing
/// order, or view 0 alone when multiview is off (Vulkan spec,
/// "Multiview": `ViewIndex` is 0 outside multiview).
pub fn view_indices(mask: u32) -> impl Iterator<Item = u32> {
    let mut left = if mask == 0 { 1 } else { mask };
    std::iter::from_fn(move || {
        (left != 0).then(|| {
            let view = left.trailing_zeros();
            left &= left - 1;
            view
        })
    })
}

#[derive(Default)]
pub struct State {
    pub graphics: Option<Arc<GraphicsPipeline>>,
    pub compute: Option<Arc<ComputePipeline>>,
    /// Descriptor sets per bind point: 0 graphics, 1 compute.
    pub sets: [[Option<BoundSet>; MAX_SETS]; 2],
    pub push_constants: PushConstants,
    pub vertex_buffers: [Option<BoundRange>; MAX_VERTEX_BINDINGS as usize],
    pub index: Option<IndexBinding>,
    pub render_pass: Option<ActivePass>,
}

pub struct PushConstants(pub [u8; MAX_PUSH_CONSTANTS as usize]);

impl Default for PushConstants {
    fn default() -> Self {
        PushConstants([0; MAX_PUSH_CONSTANTS as usize])
    }
}

pub fn bind_point_index(bp: vk::PipelineBindPoint) -> Option<usize> {
    match bp {
        vk::PipelineBindPoint::GRAPHICS => Some(0),
        vk::PipelineBindPoint::COMPUTE => Some(1),
        _ => None,
    }
}

impl State {
    /// The buffer descriptor a shader addresses as `(set, binding)`, with
    /// its dynamic offset applied, under `layout`. None when the set is not
    /// bound or the descriptor was never written (invalid usage: the
    /// shader then sees address 0).
    pub fn buffer_descriptor(
        &self,
        bind_point: usize,
        layout: &LayoutInfo,
        set: u32,
        binding: u32,
    ) -> Option<BufferDescriptor> {
        let bound = self.sets[bind_point].get(set as usize)?.as_ref()?;
        let _ = layout;
        // SAFETY: bound sets stay alive while the command buffer is used (valid usage).
        let ds = unsafe { crate::vk::handle::handle::<DescriptorSet>(bound.set) }.ok()?;
        let lb = ds.layout.binding(binding)?;
        let mut d = ds.get(binding, 0)?;
        if matches!(
            lb.ty,
            vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC | vk::DescriptorType::STORAGE_BUFFER_DYNAMIC
        ) {
            let off = bound
                .dynamic_offsets
                .get(lb.first_dynamic as usize)
                .copied()
                .unwrap_or(0);
            // The range is the static size for every dynamic offset (Vulkan
            // spec, VkDescriptorBufferInfo; VK_WHOLE_SIZE was resolved at
            // the update, from the static offset).
            d.address += u64::from(off);
        }
        Some(d)
    }
}

impl super::recording::Recording {
    /// vkCmdBindPipeline.
    pub fn bind_pipeline(&mut self, pipeline: &crate::vk::pipeline::Pipeline) {
        self.record(|r| {
            match pipeline {
                crate::vk::pipeline::Pipeline::Graphics(g) => r.state.graphics = Some(g.clone()),
                crate::vk::pipeline::Pipeline::Compute(c) => r.state.compute = Some(c.clone()),
            }
            Ok(())
        });
    }

    /// vkCmdBindDescriptorSets: `sets` are handles; dynamic offsets are
    /// consumed in set order, each set taking its layout's dynamic count.
    pub fn bind_descriptor_sets(
        &mut self,
        bind_point: usize,
        first: u32,
        sets: &[u64],
        mut dynamic_offsets: &[u32],
    ) {
        self.record(|r| {
            for (i, &set) in sets.iter().enumerate() {
                let index = first as usize + i;
                if index >= MAX_SETS {
                    log::warn!("descriptor set {index} beyond the limit (invalid usage)");
                    break;
                }
                // SAFETY: a live set handle (valid usage).
                let n = unsafe { crate::vk::handle::handle::<DescriptorSet>(set) }
                    .map_or(0, |s| s.layout.dynamic_count as usize);
                let take = n.min(dynamic_offsets.len());
                r.state.sets[bind_point][index] = Some(BoundSet {
                    set,
                    dynamic_offsets: dynamic_offsets[..take].to_vec(),
                });
                dynamic_offsets = &dynamic_offsets[take..];
            }
            Ok(())
        });
    }

    /// vkCmdPushConstants.
    pub fn push_constants(&mut self, offset: u32, bytes: &[u8]) {
        self.record(|r| {
            let start = offset as usize;
            match r.state.push_constants.0.get_mut(start..start + bytes.len()) {
                Some(dst) => dst.copy_from_slice(bytes),
                None => {
                    log::warn!("push constants beyond {MAX_PUSH_CONSTANTS} bytes (invalid usage)")
                }
            }
            Ok(())
        });
    }
}

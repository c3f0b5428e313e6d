//! VkRenderPass and VkFramebuffer without attachments (core and
//! VK_KHR_create_renderpass2), with VK_KHR_multiview view masks.
//!
//! No image format is supported yet, so a render pass has no attachments
//! and rasterizes nothing: it only counts subpasses. Render passes with
//! attachments are refused (an application cannot create the images for
//! them anyway).

use std::sync::Arc;

use ash::vk;

use crate::vk::VkResult;
use crate::vk::handle::Object;

pub struct RenderPass {
    pub subpasses: u32,
    /// Each subpass's view mask (VK_KHR_multiview; all zero without
    /// multiview): a draw in subpass `i` runs once per set bit of
    /// `view_masks[i]`.
    pub view_masks: Arc<[u32]>,
}

impl Object for RenderPass {
    const TAG: u64 = 0x6276_6b5f_7270_6173; // "bvk_rpas"
}

/// `maxMultiviewViewCount`: views per subpass (the spec's minimum). A
/// draw's vertex stage runs once per view.
pub const MAX_MULTIVIEW_VIEWS: u32 = 6;

impl RenderPass {
    /// A render pass of `subpasses` subpasses with these view masks
    /// (`view_masks` empty: no multiview).
    pub fn new(attachments: u32, subpasses: u32, view_masks: &[u32]) -> VkResult<RenderPass> {
        if attachments > 0 {
            log::error!("vkCreateRenderPass: attachments are not supported yet");
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        if subpasses == 0 {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        if !view_masks.is_empty() && view_masks.len() != subpasses as usize {
            log::warn!(
                "vkCreateRenderPass: {} view masks for {subpasses} subpasses (invalid usage)",
                view_masks.len()
            );
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        if let Some(m) = view_masks
            .iter()
            .find(|m| 32 - m.leading_zeros() > MAX_MULTIVIEW_VIEWS)
        {
            log::warn!(
                "vkCreateRenderPass: view mask {m:#x} names a view beyond maxMultiviewViewCount {MAX_MULTIVIEW_VIEWS} (invalid usage)"
            );
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        let view_masks: Arc<[u32]> = if view_masks.is_empty() {
            vec![0; subpasses as usize].into()
        } else {
            view_masks.into()
        };
        Ok(RenderPass {
            subpasses,
            view_masks,
        })
    }
}

pub struct Framebuffer {
    pub width: u32,
    pub height: u32,
    pub layers: u32,
}

impl Object for Framebuffer {
    const TAG: u64 = 0x6276_6b5f_6662_7566; // "bvk_fbuf"
}

impl Framebuffer {
    pub fn new(info: &vk::FramebufferCreateInfo<'_>) -> VkResult<Framebuffer> {
        let imageless = info.flags.contains(vk::FramebufferCreateFlags::IMAGELESS);
        if info.attachment_count > 0 && !imageless {
            log::error!("vkCreateFramebuffer: attachments are not supported yet");
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        Ok(Framebuffer {
            width: info.width,
            height: info.height,
            layers: info.layers,
        })
    }
}

//! VkRenderPass and VkFramebuffer without attachments.
//!
//! No image format is supported yet, so a render pass has no attachments
//! and rasterizes nothing: it only counts subpasses. Render passes with
//! attachments are refused (an application cannot create the images for
//! them anyway).

use ash::vk;

use crate::vk::VkResult;
use crate::vk::handle::Object;

pub struct RenderPass {
    pub subpasses: u32,
}

impl Object for RenderPass {
    const TAG: u64 = 0x6276_6b5f_7270_6173; // "bvk_rpas"
}

impl RenderPass {
    pub fn new(attachments: u32, subpasses: u32) -> VkResult<RenderPass> {
        if attachments > 0 {
            log::error!("vkCreateRenderPass: attachments are not supported yet");
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        if subpasses == 0 {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        Ok(RenderPass { subpasses })
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

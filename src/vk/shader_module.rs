//! VkShaderModule: the SPIR-V words, kept until pipelines are created from
//! them. Parsing happens at pipeline creation (a malformed module makes
//! that fail with an error and a logged reason); here only the container
//! is checked.

use ash::vk;

use crate::vk::VkResult;
use crate::vk::handle::Object;

/// SPIR-V's magic number (first word, host byte order).
const SPIRV_MAGIC: u32 = 0x0723_0203;

pub struct ShaderModule {
    /// The module's bytes, as given.
    pub code: Vec<u8>,
}

impl Object for ShaderModule {
    const TAG: u64 = 0x6276_6b5f_7368_6472; // "bvk_shdr"
}

impl ShaderModule {
    pub fn new(code: &[u8]) -> VkResult<ShaderModule> {
        if code.len() < 20 || !code.len().is_multiple_of(4) {
            log::error!(
                "vkCreateShaderModule: {} bytes is not a SPIR-V module",
                code.len()
            );
            return Err(vk::Result::ERROR_INVALID_SHADER_NV);
        }
        let magic = u32::from_le_bytes([code[0], code[1], code[2], code[3]]);
        if magic != SPIRV_MAGIC && magic.swap_bytes() != SPIRV_MAGIC {
            log::error!("vkCreateShaderModule: bad SPIR-V magic {magic:#010x}");
            return Err(vk::Result::ERROR_INVALID_SHADER_NV);
        }
        Ok(ShaderModule {
            code: code.to_vec(),
        })
    }
}

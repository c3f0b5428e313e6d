//! The shader side of a job: "Renderer State" (RSD, 64 B) and what it nests —
//! "Shader", "Renderer Properties", "Preload" (with its Compute, Vertex and
//! Fragment views of the same word), "Message Preload" (v7 only, with its
//! LD_VAR and VAR_TEX views), and the fragment-only "Multisample, Misc",
//! "Stencil Mask, Misc" and "Stencil" words.
//!
//! v6 and v7 differ here only: v6 Renderer Properties lacks the register
//! allocation and wait-dependency 6/7 fields, and v6 Renderer State lacks the
//! two Message Preload halves of word 15. Both are data: pick the table with
//! [`renderer_state()`] / [`renderer_properties()`] (or `hw::layouts(arch)`), and
//! reach a field that one arch lacks with [`Layout::lookup`], which returns
//! `None` there.
//!
//! This module must never compute a register count or a preload mask from a
//! shader; the compiler owns those values, this module only places them.

use super::Arch;
use super::genxml::{v6, v7};
use super::layout::Layout;

pub use super::genxml::common::{
    COMPUTE_PRELOAD, DEPTH_SOURCE as DEPTH_SOURCES, FRAGMENT_PRELOAD, FUNC as FUNCS,
    MULTISAMPLE_MISC, PIXEL_KILL as PIXEL_KILLS, PRELOAD, SHADER, STENCIL, STENCIL_MASK_MISC,
    STENCIL_OP as STENCIL_OPS, VERTEX_PRELOAD, WARP_LIMIT as WARP_LIMITS, compute_preload,
    fragment_preload, multisample_misc, preload, shader as shader_desc, stencil, stencil_mask_misc,
    vertex_preload,
};
pub use super::genxml::v6::{
    RENDERER_PROPERTIES as RENDERER_PROPERTIES_V6, RENDERER_STATE as RENDERER_STATE_V6,
};
pub use super::genxml::v7::{
    LD_VAR_PRELOAD, MESSAGE_PRELOAD,
    MESSAGE_PRELOAD_REGISTER_FORMAT as MESSAGE_PRELOAD_REGISTER_FORMATS,
    MESSAGE_TYPE as MESSAGE_TYPES, RENDERER_PROPERTIES as RENDERER_PROPERTIES_V7,
    RENDERER_STATE as RENDERER_STATE_V7, SHADER_REGISTER_ALLOCATION as SHADER_REGISTER_ALLOCATIONS,
    ld_var_preload, message_preload, renderer_properties as properties, var_tex_preload,
};

/// Bifrost v7 register allocation values.
pub const REGISTERS_64_PER_THREAD: u64 = 0;
pub const REGISTERS_32_PER_THREAD: u64 = 2;

/// The Renderer State fields (v7's; v6 lacks the Message Preloads and
/// reads Properties with its own table, `PROPERTIES_V6`).
pub mod renderer_state {
    use crate::hw::genxml::v7::renderer_properties as properties;
    pub use crate::hw::genxml::v7::renderer_state::*;
    use crate::hw::genxml::v7::{preload, shader as shader_desc};
    use crate::hw::layout::Field;

    // Nested fields the emitter sets most, at their absolute positions. Any
    // other nested field: `<view>::<FIELD>.at(<OUTER>.start)`, e.g.
    // `compute_preload::WORK_GROUP_X.at(PRELOAD.start)`, or a dotted path
    // through `renderer_state(arch).lookup(..)` for arch-dependent fields.
    pub const SHADER_ADDRESS: Field = shader_desc::SHADER.at(SHADER.start);
    pub const SAMPLER_COUNT: Field = shader_desc::SAMPLER_COUNT.at(SHADER.start);
    pub const TEXTURE_COUNT: Field = shader_desc::TEXTURE_COUNT.at(SHADER.start);
    pub const ATTRIBUTE_COUNT: Field = shader_desc::ATTRIBUTE_COUNT.at(SHADER.start);
    pub const VARYING_COUNT: Field = shader_desc::VARYING_COUNT.at(SHADER.start);
    pub const UNIFORM_BUFFER_COUNT: Field = properties::UNIFORM_BUFFER_COUNT.at(PROPERTIES.start);
    pub const SHADER_CONTAINS_BARRIER: Field =
        properties::SHADER_CONTAINS_BARRIER.at(PROPERTIES.start);
    pub const PRELOAD_UNIFORM_COUNT: Field = preload::UNIFORM_COUNT.at(PRELOAD.start);
    pub const SECONDARY_PRELOAD_UNIFORM_COUNT: Field =
        preload::UNIFORM_COUNT.at(SECONDARY_PRELOAD.start);

    /// Properties as a v6 table (the field position is the same).
    pub const PROPERTIES_V6: Field = crate::hw::genxml::v6::renderer_state::PROPERTIES;
}

/// The Renderer State table of an architecture.
pub fn renderer_state(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &v6::RENDERER_STATE,
        Arch::V7 => &v7::RENDERER_STATE,
    }
}

/// The Renderer Properties table of an architecture.
pub fn renderer_properties(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &v6::RENDERER_PROPERTIES,
        Arch::V7 => &v7::RENDERER_PROPERTIES,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_differences_are_data() {
        let v6 = renderer_state(Arch::V6);
        let v7 = renderer_state(Arch::V7);
        let path = "Properties.Shader register allocation";
        assert!(v6.lookup(path).is_none());
        let f = v7.lookup(path).unwrap();
        assert_eq!(f.start, 4 * 32 + 12);
        assert!(v6.lookup("Message Preload 1.Type").is_none());
        assert_eq!(
            v7.lookup("Message Preload 2.Type").unwrap().start,
            15 * 32 + 16
        );
        // Bits 12-15 of word 4 are reserved on v6 only.
        let mut w = v7.defaults();
        f.set(&mut w, REGISTERS_32_PER_THREAD).unwrap();
        assert!(v7.check_reserved(&w).is_ok());
        assert_eq!(v6.check_reserved(&w).unwrap_err().word, 4);
        assert_eq!(
            renderer_state::PRELOAD_UNIFORM_COUNT,
            v7.lookup("Preload.Uniform count").unwrap()
        );
        let wg_x = compute_preload::WORK_GROUP_X.at(renderer_state::PRELOAD.start);
        assert_eq!(wg_x, v6.lookup("Preload.Compute.Work group X").unwrap());
    }

    #[test]
    fn nested_dump_prints_sub_structures() {
        let mut w = RENDERER_STATE_V7.defaults();
        renderer_state::SHADER_ADDRESS
            .set(&mut w, 0xf7ff_b000)
            .unwrap();
        renderer_state::PRELOAD_UNIFORM_COUNT
            .set(&mut w, 4)
            .unwrap();
        let text = RENDERER_STATE_V7.dump(&w, 2);
        assert!(text.starts_with("  Shader:\n    Shader: 0xf7ffb000\n    Sampler count: 0\n"));
        assert!(text.contains("  Preload:\n    Compute:\n      PC: false\n"));
        assert!(text.contains("\n    Uniform count: 4\n"));
        assert!(text.contains("  Message Preload 2:\n    Type: Disabled\n    LD_VAR:\n"));
        assert!(text.contains("      Num Components: 1\n"));
        assert!(text.contains("    Shader register allocation: 64 Per Thread\n"));
        assert!(text.contains("  Depth units: 0.000000\n"));
    }
}

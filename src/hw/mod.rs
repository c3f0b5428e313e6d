//! Bifrost hardware layouts as data.
//!
//! Every descriptor the job manager reads (job headers, payloads, draw and
//! renderer-state descriptors, attributes ...) is described once here as a
//! table of named bit ranges ([`layout::Field`]); the job emitter (`jm/`) packs
//! with these tables, the simulator (`kmod/sim/`) unpacks with them, and the
//! dump tools print them. Per-architecture differences (v6/v7) are data.
//!
//! The tables are generated from Mesa's genxml (`genxml`, by
//! `tools/gen_hw.py`); the topic modules re-export them under the names the
//! driver uses. Where things are:
//! - `layout`: the table machinery (Field, Layout, nesting, dump, Aggregate);
//! - `genxml`: every genxml enum, struct and aggregate of v6 and v7
//!   (generated; `common` holds what both share);
//! - `job`: header, job types, Write Value / Cache Flush / Fragment
//!   payloads, job aggregates (byte offsets of each section);
//! - `compute`: Invocation, Compute Job Parameters, invocation packing;
//! - `draw`: Draw (DCD), Primitive, Primitive Size, Viewport;
//! - `shader`: Renderer State and what it nests (Shader, Properties,
//!   Preload views, Message Preload, stencil/multisample words);
//! - `attribute`: Attribute, Attribute Buffer, continuations;
//! - `storage`: Uniform Buffer, Local Storage;
//! - `texture`: Texture, surfaces, Sampler; `blend`: Blend and what it
//!   nests; `tiler`: Tiler Context, Tiler Heap; `fbd`: framebuffer
//!   descriptors of fragment jobs;
//! - `format`: pixel format words of vertex formats;
//! - `decode`: job-chain walker and pandecode-style printer;
//! - `snapshot`: PANSNAP1 files.
//!
//! [`layouts`] gives every table of one architecture, so callers never branch
//! on the architecture themselves.
//!
//! This module must never hold driver state or know about Vulkan: it is pure
//! description plus pack/unpack.

pub mod attribute;
pub mod blend;
pub mod compute;
pub mod decode;
pub mod draw;
pub mod fbd;
pub mod format;
pub mod genxml;
pub mod isa;
pub mod job;
pub mod layout;
pub mod pixel;
pub mod shader;
pub mod snapshot;
pub mod storage;
pub mod texture;
pub mod tiler;

use layout::Layout;

/// Bifrost architecture major version (v6: G71/G72, v7: G31/G51/G52/G76).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    V6,
    V7,
}

impl Arch {
    /// The architecture of a GPU product id (`GPU_PROD_ID`), if it is a Bifrost JM GPU.
    pub fn from_product_id(prod_id: u32) -> Option<Arch> {
        match prod_id >> 12 {
            6 => Some(Arch::V6),
            7 => Some(Arch::V7),
            _ => None,
        }
    }
}

/// Every descriptor table of one architecture. Tables that v6 and v7 share
/// are the same statics in both.
#[derive(Debug)]
pub struct Layouts {
    pub arch: Arch,
    pub job_header: &'static Layout,
    pub write_value_payload: &'static Layout,
    pub cache_flush_payload: &'static Layout,
    pub fragment_payload: &'static Layout,
    pub invocation: &'static Layout,
    pub compute_job_parameters: &'static Layout,
    pub draw: &'static Layout,
    pub primitive: &'static Layout,
    pub primitive_size: &'static Layout,
    pub viewport: &'static Layout,
    pub renderer_state: &'static Layout,
    pub shader: &'static Layout,
    pub renderer_properties: &'static Layout,
    pub preload: &'static Layout,
    /// v7 only.
    pub message_preload: Option<&'static Layout>,
    pub attribute: &'static Layout,
    pub attribute_buffer: &'static Layout,
    pub attribute_buffer_continuation_npot: &'static Layout,
    pub attribute_buffer_continuation_3d: &'static Layout,
    pub uniform_buffer: &'static Layout,
    pub local_storage: &'static Layout,
    pub blend: &'static Layout,
    pub texture: &'static Layout,
    pub sampler: &'static Layout,
    pub surface_with_stride: &'static Layout,
    /// v7 only (YUV textures).
    pub multiplanar_surface: Option<&'static Layout>,
    pub tiler_context: &'static Layout,
    pub tiler_heap: &'static Layout,
    pub framebuffer_parameters: &'static Layout,
    pub zs_crc_extension: &'static Layout,
    pub render_target: &'static Layout,
    pub compute_job: &'static job::Aggregate,
    pub tiler_job: &'static job::Aggregate,
    pub indexed_vertex_job: &'static job::Aggregate,
    pub formats: &'static format::FormatArch,
}

/// The `Layouts` of one architecture, every table from its generated module.
macro_rules! layouts_for {
    ($name:ident, $arch:expr, $g:ident, $msg:expr, $mps:expr, $fmt:expr) => {
        static $name: Layouts = Layouts {
            arch: $arch,
            job_header: &genxml::$g::JOB_HEADER,
            write_value_payload: &genxml::$g::WRITE_VALUE_JOB_PAYLOAD,
            cache_flush_payload: &genxml::$g::CACHE_FLUSH_JOB_PAYLOAD,
            fragment_payload: &genxml::$g::FRAGMENT_JOB_PAYLOAD,
            invocation: &genxml::$g::INVOCATION,
            compute_job_parameters: &genxml::$g::COMPUTE_JOB_PARAMETERS,
            draw: &genxml::$g::DRAW,
            primitive: &genxml::$g::PRIMITIVE,
            primitive_size: &genxml::$g::PRIMITIVE_SIZE,
            viewport: &genxml::$g::VIEWPORT,
            renderer_state: &genxml::$g::RENDERER_STATE,
            shader: &genxml::$g::SHADER,
            renderer_properties: &genxml::$g::RENDERER_PROPERTIES,
            preload: &genxml::$g::PRELOAD,
            message_preload: $msg,
            attribute: &genxml::$g::ATTRIBUTE,
            attribute_buffer: &genxml::$g::ATTRIBUTE_BUFFER,
            attribute_buffer_continuation_npot: &genxml::$g::ATTRIBUTE_BUFFER_CONTINUATION_NPOT,
            attribute_buffer_continuation_3d: &genxml::$g::ATTRIBUTE_BUFFER_CONTINUATION_3D,
            uniform_buffer: &genxml::$g::UNIFORM_BUFFER,
            local_storage: &genxml::$g::LOCAL_STORAGE,
            blend: &genxml::$g::BLEND,
            texture: &genxml::$g::TEXTURE,
            sampler: &genxml::$g::SAMPLER,
            surface_with_stride: &genxml::$g::SURFACE_WITH_STRIDE,
            multiplanar_surface: $mps,
            tiler_context: &genxml::$g::TILER_CONTEXT,
            tiler_heap: &genxml::$g::TILER_HEAP,
            framebuffer_parameters: &genxml::$g::FRAMEBUFFER_PARAMETERS,
            zs_crc_extension: &genxml::$g::ZS_CRC_EXTENSION,
            render_target: &genxml::$g::RENDER_TARGET,
            compute_job: &genxml::$g::COMPUTE_JOB,
            tiler_job: &genxml::$g::TILER_JOB,
            indexed_vertex_job: &genxml::$g::INDEXED_VERTEX_JOB,
            formats: $fmt,
        };
    };
}

layouts_for!(LAYOUTS_V6, Arch::V6, v6, None, None, &format::V6);
layouts_for!(
    LAYOUTS_V7,
    Arch::V7,
    v7,
    Some(&genxml::v7::MESSAGE_PRELOAD),
    Some(&genxml::v7::MULTIPLANAR_SURFACE),
    &format::V7
);

/// Every descriptor table of `arch`.
pub fn layouts(arch: Arch) -> &'static Layouts {
    match arch {
        Arch::V6 => &LAYOUTS_V6,
        Arch::V7 => &LAYOUTS_V7,
    }
}

impl Layouts {
    /// Every plain descriptor table (for tests and tools).
    pub fn all(&self) -> Vec<&'static Layout> {
        let mut v = vec![
            self.job_header,
            self.write_value_payload,
            self.cache_flush_payload,
            self.fragment_payload,
            self.invocation,
            self.compute_job_parameters,
            self.draw,
            self.primitive,
            self.primitive_size,
            self.viewport,
            self.renderer_state,
            self.shader,
            self.renderer_properties,
            self.preload,
            self.attribute,
            self.attribute_buffer,
            self.attribute_buffer_continuation_npot,
            self.attribute_buffer_continuation_3d,
            self.uniform_buffer,
            self.local_storage,
            self.blend,
            self.texture,
            self.sampler,
            self.surface_with_stride,
            self.tiler_context,
            self.tiler_heap,
            self.framebuffer_parameters,
            self.zs_crc_extension,
            self.render_target,
        ];
        v.extend(self.message_preload);
        v.extend(self.multiplanar_surface);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::layout::{self, get_bits, set_bits};
    use super::*;
    use proptest::prelude::*;

    fn every_layout() -> Vec<&'static Layout> {
        let mut v = layouts(Arch::V6).all();
        v.extend(layouts(Arch::V7).all());
        v.extend(genxml::v6::LAYOUTS);
        v.extend(genxml::v7::LAYOUTS);
        v
    }

    #[test]
    fn tables_are_sane() {
        for l in every_layout() {
            let leaves = l.leaves();
            for (path, f) in &leaves {
                assert!(f.width > 0, "{}: {path}", l.name);
                assert!(
                    f.start + f.width <= l.words * 32,
                    "{}: {path} out of range",
                    l.name
                );
                // Defaults fit their fields.
                if f.default != 0 {
                    assert!(f.encode(f.default).is_ok(), "{}: {path} default", l.name);
                }
            }
            assert!(l.check_reserved(&l.defaults()).is_ok(), "{}", l.name);
        }
        // Sizes from genxml.
        let v7 = layouts(Arch::V7);
        let sizes = [
            (v7.job_header, 32),
            (v7.write_value_payload, 24),
            (v7.invocation, 8),
            (v7.compute_job_parameters, 24),
            (v7.draw, 128),
            (v7.primitive, 24),
            (v7.renderer_state, 64),
            (v7.attribute, 8),
            (v7.attribute_buffer, 16),
            (v7.attribute_buffer_continuation_npot, 16),
            (v7.uniform_buffer, 8),
            (v7.local_storage, 32),
        ];
        for (l, bytes) in sizes {
            assert_eq!(l.bytes(), bytes, "{}", l.name);
        }
    }

    /// Setting any single reserved bit is reported at its word.
    #[test]
    fn every_reserved_bit_is_detected() {
        for l in every_layout() {
            let mask = l.reserved_mask();
            for bit in 0..l.words * 32 {
                if get_bits(&mask, bit, 1) == 0 {
                    continue;
                }
                let mut w = l.defaults();
                set_bits(&mut w, bit, 1, 1);
                let err = l.check_reserved(&w).unwrap_err();
                assert_eq!(err.word, bit / 32, "{} bit {bit}", l.name);
                assert_eq!(err.layout, l.name);
            }
        }
    }

    proptest! {
        /// unpack → pack → unpack: any descriptor without reserved bits set
        /// re-packs, field by field through the logical values, to the same
        /// words, and every field reads back its value.
        #[test]
        fn every_layout_round_trips(seed in proptest::collection::vec(any::<u32>(), 48)) {
            for l in every_layout() {
                let mask = l.reserved_mask();
                let mut words: Vec<u32> = (0..l.words as usize).map(|i| seed[i] & !mask[i]).collect();
                // Aligned fields hold aligned values (pack rounds up).
                for (_, f) in l.leaves() {
                    if let layout::Modifier::Align(n) = f.modifier {
                        set_bits(&mut words, f.start, n.trailing_zeros(), 0);
                    }
                }
                prop_assert!(l.check_reserved(&words).is_ok());
                let leaves = l.leaves();
                let values: Vec<u64> = leaves.iter().map(|(_, f)| f.get(&words)).collect();
                let mut packed = vec![0u32; l.words as usize];
                for ((path, f), v) in leaves.iter().zip(&values) {
                    let r = f.set(&mut packed, *v);
                    prop_assert!(r.is_ok(), "{}: {} = {:#x}", l.name, path, v);
                }
                prop_assert_eq!(&packed, &words, "{}", l.name);
                for ((path, f), v) in leaves.iter().zip(&values) {
                    prop_assert_eq!(f.get(&packed), *v, "{}: {}", l.name, path);
                    prop_assert_eq!(l.lookup(path).map(|g| g.get(&packed)), Some(*v));
                }
                // The dump never panics and has one line per field.
                let text = l.dump(&words, 0);
                prop_assert!(text.lines().count() >= leaves.len());
            }
        }
    }
}

//! Per-architecture descriptor templates, built once: the defaults of the
//! descriptors every job needs (renderer state, local storage, compute-job
//! payload, job header, attribute record), the compute job's section
//! offsets, and fields looked up by name. Emitting a job copies a template
//! instead of re-packing every default and searching tables by name, which
//! is most of a draw's recording cost (`benches/vk_record.rs`).
//!
//! The templates live in statics for the life of the process, so they hold
//! no heap memory: a driver unloaded with dlclose would leak it (valgrind
//! in CI reports definite leaks).

use std::sync::OnceLock;

use crate::hw::format::{FormatArch, VertexFormat};
use crate::hw::job::{JOB_HEADER, Section};
use crate::hw::layout::Field;
use crate::hw::{Arch, layouts};

/// Words of a descriptor template, without heap memory.
#[derive(Clone, Copy)]
pub struct Words {
    words: [u32; MAX_WORDS],
    len: usize,
}

/// The largest template: the compute job (header, Invocation,
/// Parameters, Draw: 48 words, `templates_fit`).
const MAX_WORDS: usize = 48;

impl Words {
    fn new(v: Vec<u32>) -> Words {
        assert!(
            v.len() <= MAX_WORDS,
            "descriptor template larger than {MAX_WORDS} words"
        );
        let mut words = [0; MAX_WORDS];
        words[..v.len()].copy_from_slice(&v);
        Words {
            words,
            len: v.len(),
        }
    }

    pub fn as_slice(&self) -> &[u32] {
        &self.words[..self.len]
    }

    /// The words to fill in (of a copy: `let mut w = *template;`).
    pub fn as_mut_slice(&mut self) -> &mut [u32] {
        &mut self.words[..self.len]
    }
}

/// Attribute formats remembered (more than the vertex formats there are).
const FORMAT_SLOTS: usize = 64;

/// (vertex format, its attribute format word) pairs.
type FormatSlots = [Option<(VertexFormat, Option<u64>)>; FORMAT_SLOTS];

pub struct Templates {
    pub renderer_state: Words,
    pub local_storage: Words,
    pub compute_job: Words,
    pub job_header: Words,
    pub attribute: Words,
    /// `Properties.Shader register allocation` where the RSD has it (v7).
    pub register_allocation: Option<Field>,
    pub invocation: &'static Section,
    pub parameters: &'static Section,
    pub draw: &'static Section,
    /// Attribute format words of the vertex formats seen so far.
    formats: std::sync::Mutex<(FormatSlots, usize)>,
}

impl Templates {
    fn build(arch: Arch) -> Templates {
        let l = layouts(arch);
        let section = |name: &str| {
            l.compute_job
                .section(name)
                .expect("the compute job has this section")
        };
        Templates {
            renderer_state: Words::new(l.renderer_state.defaults()),
            local_storage: Words::new(l.local_storage.defaults()),
            compute_job: Words::new(l.compute_job.defaults()),
            job_header: Words::new(JOB_HEADER.defaults()),
            attribute: Words::new(l.attribute.defaults()),
            register_allocation: l
                .renderer_state
                .lookup("Properties.Shader register allocation"),
            invocation: section("Invocation"),
            parameters: section("Parameters"),
            draw: section("Draw"),
            formats: std::sync::Mutex::new(([None; FORMAT_SLOTS], 0)),
        }
    }

    /// The attribute format word of `format` (`FormatArch::attribute_format`,
    /// remembered).
    pub fn attribute_format(&self, arch: Arch, format: VertexFormat) -> Option<u64> {
        let mut known = self.formats.lock().unwrap();
        let (slots, used) = &mut *known;
        if let Some((_, w)) = slots[..*used].iter().flatten().find(|(f, _)| *f == format) {
            return *w;
        }
        let w = FormatArch::for_arch(arch).attribute_format(format);
        if *used < FORMAT_SLOTS {
            slots[*used] = Some((format, w));
            *used += 1;
        }
        w
    }
}

/// The templates of `arch`.
pub fn templates(arch: Arch) -> &'static Templates {
    static V6: OnceLock<Templates> = OnceLock::new();
    static V7: OnceLock<Templates> = OnceLock::new();
    match arch {
        Arch::V6 => V6.get_or_init(|| Templates::build(Arch::V6)),
        Arch::V7 => V7.get_or_init(|| Templates::build(Arch::V7)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::format::ComponentType;

    #[test]
    fn templates_fit() {
        for arch in [Arch::V6, Arch::V7] {
            let l = layouts(arch);
            let biggest = [
                l.renderer_state.bytes(),
                l.local_storage.bytes(),
                l.compute_job.bytes,
                JOB_HEADER.bytes(),
                l.attribute.bytes(),
            ]
            .into_iter()
            .max()
            .unwrap();
            assert_eq!(biggest, 4 * MAX_WORDS, "{arch:?}");
        }
    }

    #[test]
    fn templates_are_the_layouts_defaults() {
        for arch in [Arch::V6, Arch::V7] {
            let t = templates(arch);
            let l = layouts(arch);
            assert_eq!(t.renderer_state.as_slice(), l.renderer_state.defaults());
            assert_eq!(t.compute_job.as_slice(), l.compute_job.defaults());
            assert_eq!(t.job_header.as_slice(), JOB_HEADER.defaults());
            assert_eq!(t.draw.offset, l.compute_job.section("Draw").unwrap().offset);
            let f = VertexFormat::new(ComponentType::F32, 4);
            let want = FormatArch::for_arch(arch).attribute_format(f);
            assert_eq!(t.attribute_format(arch, f), want);
            assert_eq!(t.attribute_format(arch, f), want);
        }
    }
}

//! Per-architecture descriptor templates, built once: the defaults of the
//! descriptors every job needs (renderer state, local storage, compute-job
//! payload, job header, attribute record), the compute job's section
//! offsets, and fields looked up by name. Emitting a job copies a template
//! instead of re-packing every default and searching tables by name, which
//! is most of a draw's recording cost (`benches/vk_record.rs`).

use std::sync::OnceLock;

use crate::hw::format::{FormatArch, VertexFormat};
use crate::hw::job::{JOB_HEADER, Section};
use crate::hw::layout::Field;
use crate::hw::{Arch, layouts};

pub struct Templates {
    pub renderer_state: Vec<u32>,
    pub local_storage: Vec<u32>,
    pub compute_job: Vec<u32>,
    pub job_header: Vec<u32>,
    pub attribute: Vec<u32>,
    /// `Properties.Shader register allocation` where the RSD has it (v7).
    pub register_allocation: Option<Field>,
    pub invocation: &'static Section,
    pub parameters: &'static Section,
    pub draw: &'static Section,
    /// Attribute format words of the vertex formats seen so far.
    formats: std::sync::Mutex<Vec<(VertexFormat, Option<u64>)>>,
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
            renderer_state: l.renderer_state.defaults(),
            local_storage: l.local_storage.defaults(),
            compute_job: l.compute_job.defaults(),
            job_header: JOB_HEADER.defaults(),
            attribute: l.attribute.defaults(),
            register_allocation: l
                .renderer_state
                .lookup("Properties.Shader register allocation"),
            invocation: section("Invocation"),
            parameters: section("Parameters"),
            draw: section("Draw"),
            formats: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The attribute format word of `format` (`FormatArch::attribute_format`,
    /// remembered).
    pub fn attribute_format(&self, arch: Arch, format: VertexFormat) -> Option<u64> {
        let mut known = self.formats.lock().unwrap();
        if let Some(&(_, w)) = known.iter().find(|(f, _)| *f == format) {
            return w;
        }
        let w = FormatArch::for_arch(arch).attribute_format(format);
        known.push((format, w));
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
    fn templates_are_the_layouts_defaults() {
        for arch in [Arch::V6, Arch::V7] {
            let t = templates(arch);
            let l = layouts(arch);
            assert_eq!(t.renderer_state, l.renderer_state.defaults());
            assert_eq!(t.compute_job, l.compute_job.defaults());
            assert_eq!(t.job_header, JOB_HEADER.defaults());
            assert_eq!(t.draw.offset, l.compute_job.section("Draw").unwrap().offset);
            let f = VertexFormat::new(ComponentType::F32, 4);
            let want = FormatArch::for_arch(arch).attribute_format(f);
            assert_eq!(t.attribute_format(arch, f), want);
            assert_eq!(t.attribute_format(arch, f), want);
        }
    }
}

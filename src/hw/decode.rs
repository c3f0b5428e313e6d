//! Job-chain walker and pandecode-style printer.
//!
//! [`walk_chain`] follows a chain from its first job header through `Next`
//! (with cycle and bounds checks) and is what the simulator's job manager and
//! the dump tool share. [`decode_chain`] / [`decode_snapshot`] print every job
//! and what its descriptors point to in the text format of Mesa's pandecode
//! (`Job Header (addr):` headings, `  Field: value` lines, the same order,
//! headings and value formats), so a listing of ours can be compared with
//! pandecode's line by line. Reserved bits found while unpacking are reported
//! on the separate error stream as `XXX: Invalid field of <struct> unpacked at
//! word N`, once per unpack, as pandecode does.
//!
//! Decoded: job headers, Write Value and Cache Flush payloads, Compute/Vertex
//! jobs (Invocation, Parameters, Draw and what it points to: Local Storage,
//! Renderer State with Shader/Properties/Preload/Message Preload, Viewport,
//! Attributes and Attribute Buffers with continuations, Varyings, Uniform
//! Buffers, push uniforms), Tiler and Indexed Vertex jobs (Primitive,
//! Primitive Size, Draw, Tiler Context and Heap, Blend of render target 0),
//! Textures with their surfaces, Samplers, Fragment jobs (framebuffer
//! parameters, sample locations, frame-shader DCDs, ZS CRC extension, render
//! targets, payload). Not decoded: the shader disassembly itself (another
//! module's job: pass [`Options::disassemble`]; a placeholder line names the
//! code address otherwise).
//!
//! This module must never panic on malformed memory (cycles, pointers outside
//! every block, truncated descriptors, huge counts): every failure is a
//! [`DecodeError`] returned with the listing printed so far. It must never
//! write to GPU memory.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::compute::WorkSize;
use super::draw::{dcd, primitive};
use super::job::{self, JobType, header};
use super::layout::{Layout, words_from_bytes};
use super::shader::renderer_state;
use super::snapshot::Snapshot;
use super::{Arch, Layouts, layouts};

/// GPU memory as the decoder sees it: blocks of bytes at GPU VAs.
pub trait GpuMemory {
    /// The block containing `va`: its base VA and its bytes.
    fn block(&self, va: u64) -> Option<(u64, &[u8])>;
}

impl GpuMemory for Snapshot {
    fn block(&self, va: u64) -> Option<(u64, &[u8])> {
        self.blocks
            .iter()
            .find(|b| va >= b.gpu_va && va - b.gpu_va < b.bytes.len() as u64)
            .map(|b| (b.gpu_va, &b.bytes[..]))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A pointer lands outside every block (pandecode aborts the same way).
    #[error("Access to unknown memory {0:x}")]
    UnknownMemory(u64),
    /// A descriptor starts inside a block but runs past its end.
    #[error("Access to {len} bytes at {va:#x} runs past the end of its block")]
    Truncated { va: u64, len: usize },
    /// `Next` leads back to a job already visited.
    #[error("Job list has a cycle (job {0:#x} visited twice)")]
    Cycle(u64),
    /// The snapshot's GPU is not a Bifrost JM GPU.
    #[error("GPU id {0:#x} is not a Bifrost (v6/v7) GPU")]
    UnsupportedGpu(u32),
}

/// Read `len` bytes at `va`; they must lie inside one block.
pub fn read_bytes(mem: &dyn GpuMemory, va: u64, len: usize) -> Result<&[u8], DecodeError> {
    let (base, bytes) = mem.block(va).ok_or(DecodeError::UnknownMemory(va))?;
    let off = (va - base) as usize;
    off.checked_add(len)
        .and_then(|end| bytes.get(off..end))
        .ok_or(DecodeError::Truncated { va, len })
}

/// Read `words` 32-bit words at `va` (e.g. a whole job of `aggregate.bytes`).
pub fn read_words(mem: &dyn GpuMemory, va: u64, words: usize) -> Result<Vec<u32>, DecodeError> {
    Ok(words_from_bytes(read_bytes(mem, va, words * 4)?))
}

/// Read the `layout.words` words of a descriptor at `va`.
pub fn read_descriptor(
    mem: &dyn GpuMemory,
    va: u64,
    layout: &Layout,
) -> Result<Vec<u32>, DecodeError> {
    Ok(words_from_bytes(read_bytes(mem, va, layout.bytes())?))
}

/// One job of a chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobRef {
    /// GPU VA of the job header.
    pub va: u64,
    /// The header's eight words.
    pub header: Vec<u32>,
    /// `None` for an unknown type value.
    pub job_type: Option<JobType>,
}

impl JobRef {
    pub fn next(&self) -> u64 {
        header::NEXT.get(&self.header)
    }
}

/// The jobs of the chain starting at `jc`, in list order.
pub fn walk_chain(mem: &dyn GpuMemory, jc: u64) -> Result<Vec<JobRef>, DecodeError> {
    let mut jobs = Vec::new();
    let mut seen = HashSet::new();
    let mut va = jc;
    while va != 0 {
        if !seen.insert(va) {
            return Err(DecodeError::Cycle(va));
        }
        let header = read_descriptor(mem, va, &job::JOB_HEADER)?;
        let job_type = JobType::from_raw(header::TYPE.get(&header));
        let job = JobRef {
            va,
            header,
            job_type,
        };
        va = job.next();
        jobs.push(job);
    }
    Ok(jobs)
}

/// What the printer produced: pandecode's stdout and stderr.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    pub text: String,
    /// Reserved-bit reports, one line each.
    pub errors: String,
}

/// A shader disassembler: code bytes (from the shader address to the end of
/// its block) → text printed in place of pandecode's disassembly.
pub type Disassembler<'a> = &'a dyn Fn(&[u8]) -> String;

/// Printer options.
#[derive(Clone, Copy, Default)]
pub struct Options<'a> {
    /// Disassembles shader code (the bytes from the shader address to the
    /// end of its block); `None` prints a placeholder line.
    pub disassemble: Option<Disassembler<'a>>,
}

/// Decode the chain of a snapshot (architecture from its GPU id).
pub fn decode_snapshot(snap: &Snapshot, opts: &Options) -> (Listing, Result<(), DecodeError>) {
    match Arch::from_product_id(snap.gpu_id) {
        Some(arch) => decode_chain(snap, arch, snap.jc, opts),
        None => (
            Listing::default(),
            Err(DecodeError::UnsupportedGpu(snap.gpu_id)),
        ),
    }
}

/// Decode the chain at `jc`. The listing holds everything printed up to the
/// first error.
pub fn decode_chain(
    mem: &dyn GpuMemory,
    arch: Arch,
    jc: u64,
    opts: &Options,
) -> (Listing, Result<(), DecodeError>) {
    let mut p = Printer {
        mem,
        l: layouts(arch),
        out: Listing::default(),
        indent: 0,
        opts,
    };
    let result = p.chain(jc);
    (p.out, result)
}

struct Printer<'a> {
    mem: &'a dyn GpuMemory,
    l: &'static Layouts,
    out: Listing,
    indent: usize,
    opts: &'a Options<'a>,
}

type Result<T = (), E = DecodeError> = std::result::Result<T, E>;

impl Printer<'_> {
    /// A line at the current indentation (pandecode_log).
    fn log(&mut self, text: &str) {
        let _ = write!(self.out.text, "{:1$}{text}", "", self.indent * 2);
    }

    /// Unpack: read and report reserved bits (what pan_unpack does).
    fn unpack(&mut self, va: u64, layout: &Layout) -> Result<Vec<u32>> {
        let words = read_descriptor(self.mem, va, layout)?;
        self.check(layout, &words);
        Ok(words)
    }

    fn check(&mut self, layout: &Layout, words: &[u32]) {
        for w in layout.reserved_words(words) {
            let _ = writeln!(
                self.out.errors,
                "XXX: Invalid field of {} unpacked at word {w}",
                layout.name
            );
        }
    }

    /// Heading at the current indentation, fields one level deeper.
    fn dump(&mut self, heading: &str, layout: &Layout, words: &[u32]) {
        self.log(heading);
        self.out.text += &layout.dump(words, (self.indent + 1) * 2);
    }

    fn chain(&mut self, jc: u64) -> Result {
        let mut seen = HashSet::new();
        let mut va = jc;
        loop {
            if !seen.insert(va) {
                self.out.text += "Job list has a cycle\n";
                return Err(DecodeError::Cycle(va));
            }
            let h = self.unpack(va, &job::JOB_HEADER)?;
            self.dump(&format!("Job Header ({va:x}):\n"), &job::JOB_HEADER, &h);
            self.log("\n");
            match JobType::from_raw(header::TYPE.get(&h)) {
                Some(JobType::WriteValue) => self.payload(va, "Write Value Payload:\n")?,
                Some(JobType::CacheFlush) => self.payload(va, "Cache Flush Payload:\n")?,
                Some(t @ (JobType::Compute | JobType::Vertex)) => self.compute_job(va, t)?,
                Some(JobType::Tiler) => self.tiler_job(va)?,
                Some(JobType::IndexedVertex) => self.indexed_vertex_job(va)?,
                Some(JobType::Fragment) => self.fragment_job(va)?,
                _ => {}
            }
            va = header::NEXT.get(&h);
            if va == 0 {
                return Ok(());
            }
        }
    }

    /// Write Value / Cache Flush: header + one payload, unpacked twice by
    /// pandecode (so reserved bits are reported twice, as there).
    fn payload(&mut self, job_va: u64, heading: &str) -> Result {
        let layout = match heading {
            "Write Value Payload:\n" => self.l.write_value_payload,
            _ => self.l.cache_flush_payload,
        };
        let va = job_va.wrapping_add(job::PAYLOAD_OFFSET);
        self.unpack(va, layout)?;
        let w = self.unpack(va, layout)?;
        self.dump(heading, layout, &w);
        self.log("\n");
        Ok(())
    }

    fn section(&mut self, job_va: u64, agg: &job::Aggregate, name: &str) -> Result<Vec<u32>> {
        let s = agg
            .section(name)
            .expect("aggregate tables name their sections");
        self.unpack(job_va.wrapping_add(s.offset as u64), s.layout)
    }

    fn compute_job(&mut self, va: u64, t: JobType) -> Result {
        let agg = self.l.compute_job;
        let draw = self.section(va, agg, "Draw")?;
        self.dcd(&draw, t)?;
        self.log("Vertex Job Payload:\n");
        self.indent += 1;
        self.invocation(va, agg)?;
        let params = self.section(va, agg, "Parameters")?;
        self.dump(
            "Vertex Job Parameters:\n",
            self.l.compute_job_parameters,
            &params,
        );
        self.dump("Draw:\n", self.l.draw, &draw);
        self.indent -= 1;
        self.log("\n");
        Ok(())
    }

    fn tiler_job(&mut self, va: u64) -> Result {
        let agg = self.l.tiler_job;
        let draw = self.section(va, agg, "Draw")?;
        self.dcd(&draw, JobType::Tiler)?;
        self.log("Tiler Job Payload:\n");
        self.indent += 1;
        self.invocation(va, agg)?;
        self.primitive(va, agg)?;
        self.dump("Draw:\n", self.l.draw, &draw);
        let size = self.section(va, agg, "Primitive Size")?;
        self.dump("Primitive Size:\n", self.l.primitive_size, &size);
        let tiler = self.section(va, agg, "Tiler")?;
        self.tiler(job::tiler_pointer::ADDRESS.get(&tiler))?;
        self.section(va, agg, "Padding")?;
        self.indent -= 1;
        self.log("\n");
        Ok(())
    }

    fn indexed_vertex_job(&mut self, va: u64) -> Result {
        let agg = self.l.indexed_vertex_job;
        self.log("Vertex:\n");
        let vert = self.section(va, agg, "Vertex Draw")?;
        self.dcd(&vert, JobType::IndexedVertex)?;
        self.dump("Vertex Draw:\n", self.l.draw, &vert);
        self.log("Fragment:\n");
        let frag = self.section(va, agg, "Fragment Draw")?;
        self.dcd(&frag, JobType::Fragment)?;
        self.dump("Fragment Draw:\n", self.l.draw, &frag);
        let tiler = self.section(va, agg, "Tiler")?;
        self.log("Tiler Job Payload:\n");
        self.indent += 1;
        self.tiler(job::tiler_pointer::ADDRESS.get(&tiler))?;
        self.indent -= 1;
        self.invocation(va, agg)?;
        self.primitive(va, agg)?;
        let size = self.section(va, agg, "Primitive Size")?;
        self.dump("Primitive Size:\n", self.l.primitive_size, &size);
        self.section(va, agg, "Padding")?;
        Ok(())
    }

    fn fragment_job(&mut self, va: u64) -> Result {
        use super::fbd::framebuffer_pointer as ptr;
        let payload = self.l.fragment_payload;
        let w = self.unpack(va.wrapping_add(job::PAYLOAD_OFFSET), payload)?;
        let fb = [
            job::fragment::FRAMEBUFFER.get(&w) as u32,
            (job::fragment::FRAMEBUFFER.get(&w) >> 32) as u32,
        ];
        self.check(&super::fbd::FRAMEBUFFER_POINTER, &fb);
        let (rt_count, has_extra) = self.fbd(ptr::POINTER.get(&fb), true)?;
        if ptr::TYPE.get(&fb) == 0
            || ptr::ZS_CRC_EXTENSION_PRESENT.get(&fb) != u64::from(has_extra)
            || ptr::RENDER_TARGET_COUNT.get(&fb) != rt_count
        {
            self.log("invalid FBD tag\n");
        }
        self.dump("Fragment Job Payload:\n", payload, &w);
        self.log("\n");
        Ok(())
    }

    /// pandecode_fbd: parameters, sample locations, frame shaders, tiler,
    /// ZS CRC extension and (for fragment jobs) the render targets. Returns
    /// the render target count and whether a ZS CRC extension is present.
    fn fbd(&mut self, va: u64, is_fragment: bool) -> Result<(u64, bool)> {
        use super::fbd::{self, framebuffer_parameters as fp};
        let l = self.l;
        let params = self.unpack(va, l.framebuffer_parameters)?;
        self.dump("Parameters:\n", l.framebuffer_parameters, &params);

        let locations = fp::SAMPLE_LOCATIONS.get(&params);
        self.log(&format!("Sample locations @{locations:x}:\n"));
        for i in 0..33u64 {
            let xy = read_bytes(self.mem, locations.wrapping_add(4 * i), 4)?;
            let x = i32::from(u16::from_le_bytes([xy[0], xy[1]])) - 128;
            let y = i32::from(u16::from_le_bytes([xy[2], xy[3]])) - 128;
            self.log(&format!("  ({x}, {y}),\n"));
        }

        let dcds = fp::FRAME_SHADER_DCDS.get(&params);
        let dcd_size = l.draw.bytes() as u64;
        let frames = [
            (fp::PRE_FRAME_0.get(&params), 0u64),
            (fp::PRE_FRAME_1.get(&params), 1),
            (fp::POST_FRAME.get(&params), 2),
        ];
        for (mode, i) in frames {
            if mode == fbd::FRAME_SHADER_NEVER {
                continue;
            }
            let at = dcds.wrapping_add(i * dcd_size);
            let draw = self.unpack(at, l.draw)?;
            match i {
                0 => self.log(&format!("Pre frame 0 @{dcds:x} (mode={mode}):\n")),
                1 => self.log(&format!("Pre frame 1 @{at:x}:\n")),
                _ => self.log("Post frame:\n"),
            }
            self.dcd(&draw, JobType::Fragment)?;
        }

        self.log(&format!("Framebuffer @{va:x}:\n"));
        self.indent += 1;
        self.dump("Parameters:\n", l.framebuffer_parameters, &params);
        let tiler = fp::TILER.get(&params);
        if tiler != 0 {
            self.tiler(tiler)?;
        }
        self.indent -= 1;
        self.log("\n");

        let mut at = va.wrapping_add(fbd::FRAMEBUFFER_BYTES);
        let has_extra = fp::HAS_ZS_CRC_EXTENSION.get(&params) != 0;
        if has_extra {
            let zs = self.unpack(at, l.zs_crc_extension)?;
            self.dump("ZS CRC Extension:\n", l.zs_crc_extension, &zs);
            self.log("\n");
            at = at.wrapping_add(l.zs_crc_extension.bytes() as u64);
        }
        let rt_count = fp::RENDER_TARGET_COUNT.get(&params);
        if is_fragment {
            self.log(&format!("Color Render Targets @{at:x}:\n"));
            self.indent += 1;
            for i in 0..rt_count {
                let rt_va = at.wrapping_add(i * l.render_target.bytes() as u64);
                let rt = self.unpack(rt_va, l.render_target)?;
                self.dump(&format!("Color Render Target {i}:\n"), l.render_target, &rt);
            }
            self.indent -= 1;
            self.log("\n");
        }
        Ok((rt_count, has_extra))
    }

    /// pandecode_tiler: the heap (if any), then the context.
    fn tiler(&mut self, address: u64) -> Result {
        let l = self.l;
        let ctx = self.unpack(address, l.tiler_context)?;
        let heap = super::tiler::tiler_context::HEAP.get(&ctx);
        if heap != 0 {
            let h = self.unpack(heap, l.tiler_heap)?;
            self.dump("Tiler Heap:\n", l.tiler_heap, &h);
        }
        self.dump(
            &format!("Tiler Context @{address:x}:\n"),
            l.tiler_context,
            &ctx,
        );
        Ok(())
    }

    fn invocation(&mut self, va: u64, agg: &job::Aggregate) -> Result {
        let w = self.section(va, agg, "Invocation")?;
        let ws = WorkSize::unpack(&w);
        let [sx, sy, sz] = ws.size.map(|v| v as i32);
        let [cx, cy, cz] = ws.count.map(|v| v as i32);
        self.log(&format!(
            "Invocation ({sx}, {sy}, {sz}) x ({cx}, {cy}, {cz})\n"
        ));
        self.dump("Invocation:\n", self.l.invocation, &w);
        Ok(())
    }

    fn primitive(&mut self, va: u64, agg: &job::Aggregate) -> Result {
        let w = self.section(va, agg, "Primitive")?;
        self.dump("Primitive:\n", self.l.primitive, &w);
        let indices = primitive::INDICES.get(&w);
        let index_type = primitive::INDEX_TYPE.get(&w);
        if indices != 0 {
            // UINT32 (3) is 4 bytes; UINT8/UINT16 (1, 2) are their own sizes.
            let size = if index_type == 3 { 4 } else { index_type };
            if size == 0 {
                self.log("// XXX: index size missing\n");
            } else {
                let count = primitive::INDEX_COUNT.get(&w) & 0xffff_ffff;
                self.validate_buffer(indices, count.wrapping_mul(size));
            }
        } else if index_type != 0 {
            self.log("// XXX: unexpected index size\n");
        }
        Ok(())
    }

    /// pandecode_validate_buffer: a comment line when `addr` is null,
    /// unmapped, or `size` bytes overrun its block.
    fn validate_buffer(&mut self, addr: u64, size: u64) {
        if addr == 0 {
            self.log("// XXX: null pointer deref\n");
            return;
        }
        let Some((base, bytes)) = self.mem.block(addr) else {
            self.log("// XXX: invalid memory dereference\n");
            return;
        };
        let offset = addr - base;
        let total = offset.saturating_add(size);
        let len = bytes.len() as u64;
        if total > len {
            self.log(&format!(
                "// XXX: buffer overrun. Chunk of size {size} at offset {offset} in buffer of size {len}. Overrun by {} bytes. \n",
                total - len
            ));
        }
    }

    /// pointer_as_memory_reference: `memory_<block va> + <offset>` or the
    /// raw address.
    fn memory_reference(&self, addr: u64) -> String {
        match self.mem.block(addr) {
            Some((base, _)) => format!("memory_{base:x} + {}", (addr - base) as i32),
            None => format!("0x{addr:x}"),
        }
    }

    fn shader(&mut self, addr: u64) -> Result {
        let (base, bytes) = self
            .mem
            .block(addr)
            .ok_or(DecodeError::UnknownMemory(addr))?;
        let code = &bytes[(addr - base) as usize..];
        let _ = write!(
            self.out.text,
            "\nShader <host-ptr> (GPU VA {addr:x}) sz {}\n",
            code.len()
        );
        match self.opts.disassemble {
            Some(disassemble) => self.out.text += &disassemble(code),
            None => {
                let _ = writeln!(
                    self.out.text,
                    "// disassembly of the shader at 0x{addr:x} not available"
                );
            }
        }
        self.out.text += "\n\n";
        Ok(())
    }

    /// pandecode_dcd: what a Draw descriptor points to.
    fn dcd(&mut self, draw: &[u32], job_type: JobType) -> Result {
        let l = self.l;
        let ts = dcd::THREAD_STORAGE.get(draw) & !1;
        let w = self.unpack(ts, l.local_storage)?;
        self.dump("Local Storage:\n", l.local_storage, &w);

        let (mut attribute_count, mut varying_count) = (0, 0);
        let (mut texture_count, mut sampler_count) = (0u64, 0u64);
        let (mut ubo_count, mut uniform_count) = (0, 0);
        let state = dcd::STATE.get(draw);
        if state != 0 {
            let rsd = self.unpack(state, l.renderer_state)?;
            let code = renderer_state::SHADER_ADDRESS.get(&rsd) & !0xf;
            if code != 0 {
                self.shader(code)?;
            }
            let secondary = renderer_state::SECONDARY_SHADER.get(&rsd);
            if job_type == JobType::IndexedVertex && secondary != 0 {
                self.shader(secondary)?;
            }
            self.dump("State:\n", l.renderer_state, &rsd);
            attribute_count = renderer_state::ATTRIBUTE_COUNT.get(&rsd);
            varying_count = renderer_state::VARYING_COUNT.get(&rsd);
            texture_count = renderer_state::TEXTURE_COUNT.get(&rsd);
            sampler_count = renderer_state::SAMPLER_COUNT.get(&rsd);
            ubo_count = renderer_state::UNIFORM_BUFFER_COUNT.get(&rsd);
            uniform_count = renderer_state::PRELOAD_UNIFORM_COUNT.get(&rsd);
            self.log("\n");
            if matches!(job_type, JobType::Tiler | JobType::Fragment) {
                // One render target: pandecode does not know the count here.
                let va = state.wrapping_add(l.renderer_state.bytes() as u64);
                let b = self.unpack(va, l.blend)?;
                self.dump("Blend RT 0:\n", l.blend, &b);
                let mode = l.blend.get(&b, "Internal.Mode").unwrap_or(0);
                let pc = l.blend.get(&b, "Internal.Shader.PC").unwrap_or(0);
                let frag = renderer_state::SHADER_ADDRESS.get(&rsd);
                if mode == super::blend::MODE_SHADER && frag != 0 {
                    let blend_shader = (frag & 0xffff_ffff_0000_0000) | pc;
                    if blend_shader & !0xf != 0 {
                        self.shader(blend_shader)?;
                    }
                }
            }
        } else {
            self.log("// XXX: missing shader descriptor\n");
        }

        let viewport = dcd::VIEWPORT.get(draw);
        if viewport != 0 {
            let w = self.unpack(viewport, l.viewport)?;
            self.dump("Viewport:\n", l.viewport, &w);
            self.log("\n");
        }

        let mut max_attr_index = 0;
        let attributes = dcd::ATTRIBUTES.get(draw);
        if attributes != 0 {
            max_attr_index = self.attribute_meta(attribute_count, attributes, "Attribute")?;
        }
        let attribute_buffers = dcd::ATTRIBUTE_BUFFERS.get(draw);
        if attribute_buffers != 0 {
            self.attribute_buffers(attribute_buffers, max_attr_index, "Attribute")?;
        }
        let varyings = dcd::VARYINGS.get(draw);
        if varyings != 0 {
            varying_count = self.attribute_meta(varying_count, varyings, "Varying")?;
        }
        let varying_buffers = dcd::VARYING_BUFFERS.get(draw);
        if varying_buffers != 0 {
            self.attribute_buffers(varying_buffers, varying_count, "Varying")?;
        }

        let ubos = dcd::UNIFORM_BUFFERS.get(draw);
        if ubos != 0 {
            if ubo_count != 0 {
                self.uniform_buffers(ubos, ubo_count)?;
            } else {
                self.log("// warn: UBOs specified but not referenced\n");
            }
        } else if ubo_count != 0 {
            self.log("// XXX: UBOs referenced but not specified\n");
        }

        let push = dcd::PUSH_UNIFORMS.get(draw);
        if push != 0 {
            if uniform_count != 0 {
                self.validate_buffer(push, uniform_count * 16);
                let r = self.memory_reference(push);
                self.log(&format!("vec4 uniforms[{uniform_count}] = {r};\n"));
                self.log("\n");
            } else {
                self.log("// warn: Uniforms specified but not referenced\n");
            }
        } else if uniform_count != 0 {
            self.log("// XXX: Uniforms referenced but not specified\n");
        }

        let textures = dcd::TEXTURES.get(draw);
        if textures != 0 {
            self.textures(textures, texture_count)?;
        }
        let samplers = dcd::SAMPLERS.get(draw);
        if samplers != 0 {
            self.samplers(samplers, sampler_count)?;
        }
        Ok(())
    }

    /// pandecode_textures: a packed array of Texture descriptors, each
    /// followed (through `Surfaces`) by its surface records.
    fn textures(&mut self, va: u64, count: u64) -> Result {
        use super::texture::{self, texture_desc as t};
        let l = self.l;
        self.log(&format!("Textures {va:x}:\n"));
        self.indent += 1;
        let size = l.texture.bytes() as u64;
        read_bytes(self.mem, va, (size * count) as usize)?;
        for i in 0..count {
            let w = self.unpack(va.wrapping_add(i * size), l.texture)?;
            self.dump("Texture:\n", l.texture, &w);
            self.indent += 1;
            let surfaces = t::SURFACES.get(&w);
            if surfaces != 0 {
                let samples = if t::DIMENSION.get(&w) == texture::DIMENSION_3D {
                    1
                } else {
                    t::SAMPLE_COUNT.get(&w)
                };
                let faces = if t::DIMENSION.get(&w) == texture::DIMENSION_CUBE {
                    6
                } else {
                    1
                };
                let count = t::LEVELS.get(&w) * faces * samples * t::ARRAY_SIZE.get(&w);
                let format = l.texture.get(&w, "Format").unwrap_or(0) >> 12 & 0xff;
                let (surface, name) = match l.multiplanar_surface {
                    Some(mp) if texture::V7_YUV_FORMATS.contains(&format) => (mp, "Surface YUV"),
                    _ => (l.surface_with_stride, "Surface With Stride"),
                };
                for j in 0..count {
                    let at = surfaces.wrapping_add(j.wrapping_mul(surface.bytes() as u64));
                    let sw = self.unpack(at, surface)?;
                    self.dump(&format!("{name} @{at:x}:\n"), surface, &sw);
                }
            }
            self.indent -= 1;
        }
        self.indent -= 1;
        self.log("\n");
        Ok(())
    }

    /// pandecode_samplers.
    fn samplers(&mut self, va: u64, count: u64) -> Result {
        let l = self.l;
        self.log(&format!("Samplers {va:x}:\n"));
        self.indent += 1;
        let size = l.sampler.bytes() as u64;
        for i in 0..count {
            let w = self.unpack(va.wrapping_add(i * size), l.sampler)?;
            self.dump(&format!("Sampler {i}:\n"), l.sampler, &w);
        }
        self.indent -= 1;
        self.log("\n");
        Ok(())
    }

    /// Attribute or varying records; returns the number of buffer records
    /// they use (highest buffer index + 1, at most 256).
    fn attribute_meta(&mut self, count: u64, mut va: u64, prefix: &str) -> Result<u64> {
        let layout = self.l.attribute;
        let mut max = 0;
        for _ in 0..count {
            let w = self.unpack(va, layout)?;
            self.dump(&format!("{prefix}:\n"), layout, &w);
            max = max.max(super::attribute::attribute_desc::BUFFER_INDEX.get(&w));
            va = va.wrapping_add(layout.bytes() as u64);
        }
        self.log("\n");
        Ok((max + 1).min(256))
    }

    fn attribute_buffers(&mut self, va: u64, count: u64, prefix: &str) -> Result {
        if count == 0 {
            self.log(&format!("// warn: No {prefix} records\n"));
            return Ok(());
        }
        let l = self.l;
        let stride = l.attribute_buffer.bytes() as u64;
        let mut i = 0;
        while i < count {
            let w = self.unpack(va.wrapping_add(i * stride), l.attribute_buffer)?;
            self.dump(&format!("{prefix}:\n"), l.attribute_buffer, &w);
            use super::attribute::attribute_type as ty;
            let continuation = match super::attribute::attribute_buffer::TYPE.get(&w) {
                ty::NPOT_DIVISOR_1D | ty::NPOT_DIVISOR_WRITE_REDUCTION_1D => {
                    Some(l.attribute_buffer_continuation_npot)
                }
                ty::LINEAR_3D | ty::INTERLEAVED_3D => Some(l.attribute_buffer_continuation_3d),
                _ => None,
            };
            if let Some(cont) = continuation {
                i += 1;
                let c = self.unpack(va.wrapping_add(i * stride), cont)?;
                self.out.text += &cont.dump(&c, (self.indent + 1) * 2);
            }
            i += 1;
        }
        self.log("\n");
        Ok(())
    }

    /// Uniform buffer table entries, printed the way pandecode reads them:
    /// address = (entry >> 10) << 2 and size = ((entry & 0x3ff) + 1) * 16,
    /// which equals the genxml fields for tables the driver writes
    /// (entries ≤ 1024, 16-byte aligned pointers).
    fn uniform_buffers(&mut self, va: u64, count: u64) -> Result {
        read_bytes(self.mem, va, 8)?;
        for i in 0..count {
            let entry = read_bytes(self.mem, va.wrapping_add(8 * i), 8)?;
            let raw = u64::from_le_bytes(entry.try_into().expect("8 bytes"));
            let addr = (raw >> 10) << 2;
            let size = if addr != 0 {
                ((raw & 0x3ff) + 1) * 16
            } else {
                0
            };
            self.validate_buffer(addr, size);
            let r = self.memory_reference(addr);
            self.log(&format!("ubuf_{i}[{size}] = {r};\n"));
        }
        self.log("\n");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::snapshot::Block;

    fn snap(blocks: Vec<(u64, Vec<u8>)>, jc: u64) -> Snapshot {
        Snapshot {
            gpu_id: 0x7212,
            flags: 0,
            jc,
            blocks: blocks
                .into_iter()
                .map(|(gpu_va, bytes)| Block { gpu_va, bytes })
                .collect(),
        }
    }

    fn null_job(next: u64, index: u64) -> Vec<u8> {
        let mut w = job::JOB_HEADER.defaults();
        header::TYPE.set(&mut w, JobType::Null as u64).unwrap();
        header::INDEX.set(&mut w, index).unwrap();
        header::NEXT.set(&mut w, next).unwrap();
        crate::hw::layout::bytes_from_words(&w)
    }

    #[test]
    fn cycles_are_errors_not_hangs() {
        let mut mem = null_job(0x1040, 1);
        mem.resize(0x40, 0);
        mem.extend(null_job(0x1000, 2));
        let s = snap(vec![(0x1000, mem)], 0x1000);
        assert_eq!(walk_chain(&s, 0x1000), Err(DecodeError::Cycle(0x1000)));
        let (listing, r) = decode_snapshot(&s, &Options::default());
        assert_eq!(r, Err(DecodeError::Cycle(0x1000)));
        assert!(listing.text.ends_with("Job list has a cycle\n"));
        assert_eq!(listing.text.matches("Job Header").count(), 2);
    }

    #[test]
    fn wild_and_truncated_pointers_are_errors() {
        let s = snap(vec![(0x1000, null_job(0xdead_0000, 1))], 0x1000);
        assert_eq!(
            walk_chain(&s, 0x1000),
            Err(DecodeError::UnknownMemory(0xdead_0000))
        );
        let s = snap(vec![(0x1000, null_job(0x1010, 1))], 0x1000);
        assert_eq!(
            walk_chain(&s, 0x1000),
            Err(DecodeError::Truncated {
                va: 0x1010,
                len: 32
            })
        );
        assert_eq!(
            DecodeError::UnknownMemory(0xdead_0000).to_string(),
            "Access to unknown memory dead0000"
        );
    }

    #[test]
    fn compute_job_with_wild_pointers_does_not_panic() {
        // A compute job whose Draw points everywhere and nowhere.
        let mut w = job::COMPUTE_JOB.defaults();
        header::TYPE.set(&mut w, JobType::Compute as u64).unwrap();
        let draw = job::COMPUTE_JOB.section("Draw").unwrap();
        let d = draw.words_mut(&mut w);
        dcd::THREAD_STORAGE.set(d, 0x1000 + 0xb0).unwrap(); // runs past the block
        let mut bytes = crate::hw::layout::bytes_from_words(&w);
        bytes.resize(0xc0, 0xff);
        let s = snap(vec![(0x1000, bytes)], 0x1000);
        let (_, r) = decode_snapshot(&s, &Options::default());
        assert_eq!(
            r,
            Err(DecodeError::Truncated {
                va: 0x10b0,
                len: 32
            })
        );
    }

    /// A vertex job built with the tables, with attributes (one NPOT
    /// divisor buffer and its continuation), a UBO and push uniforms.
    #[test]
    fn vertex_job_with_attributes_and_ubos() {
        use crate::hw::attribute::attribute_type;
        use crate::hw::format::{ComponentType, V7, VertexFormat};
        use crate::hw::layout::bytes_from_words;
        let l = layouts(Arch::V7);
        let base = 0x10000u64;
        let mut mem = vec![0u8; 0x1000];
        let mut put = |va: u64, words: &[u32]| {
            let at = (va - base) as usize;
            let b = bytes_from_words(words);
            mem[at..at + b.len()].copy_from_slice(&b);
        };
        let mut job = l.compute_job.defaults();
        header::TYPE.set(&mut job, JobType::Vertex as u64).unwrap();
        header::INDEX.set(&mut job, 1).unwrap();
        let inv = WorkSize::vertices(3, 1).pack_graphics().unwrap();
        l.compute_job
            .section("Invocation")
            .unwrap()
            .words_mut(&mut job)
            .copy_from_slice(&inv);
        let params = l.compute_job.section("Parameters").unwrap();
        crate::hw::compute::parameters::JOB_TASK_SPLIT
            .set(params.words_mut(&mut job), 5)
            .unwrap();
        let draw = l
            .draw
            .build(&[
                ("Thread Storage", base + 0x100),
                ("State", base + 0x140),
                ("Attributes", base + 0x200),
                ("Attribute buffers", base + 0x240),
                ("Uniform buffers", base + 0x300),
                ("Push uniforms", base + 0x500),
                ("Textures", base + 0x700),
                ("Samplers", base + 0x740),
            ])
            .unwrap();
        l.compute_job
            .section("Draw")
            .unwrap()
            .words_mut(&mut job)
            .copy_from_slice(&draw);
        put(base, &job);
        put(base + 0x100, &l.local_storage.defaults());
        let rsd = l
            .renderer_state
            .build(&[
                ("Shader.Shader", base + 0x800),
                ("Shader.Attribute count", 2),
                ("Shader.Texture count", 1),
                ("Shader.Sampler count", 1),
                ("Properties.Uniform buffer count", 1),
                ("Properties.Shader register allocation", 2),
                ("Preload.Vertex.Vertex ID", 1),
                ("Preload.Uniform count", 2),
            ])
            .unwrap();
        put(base + 0x140, &rsd);
        let rgb32f = V7
            .attribute_format(VertexFormat::new(ComponentType::F32, 3))
            .unwrap();
        for (i, buffer) in [0u64, 2].into_iter().enumerate() {
            let a = l
                .attribute
                .build(&[("Buffer index", buffer), ("Format", rgb32f), ("Offset", 12)])
                .unwrap();
            put(base + 0x200 + 8 * i as u64, &a);
        }
        let ab = l.attribute_buffer;
        put(
            base + 0x240,
            &ab.build(&[("Pointer", base + 0x600), ("Stride", 12), ("Size", 36)])
                .unwrap(),
        );
        put(
            base + 0x260,
            &ab.build(&[
                ("Type", attribute_type::NPOT_DIVISOR_1D),
                ("Pointer", base + 0x640),
                ("Divisor R", 3),
                ("Divisor E", 1),
            ])
            .unwrap(),
        );
        put(
            base + 0x270,
            &l.attribute_buffer_continuation_npot
                .build(&[("Divisor Numerator", 0xaaab), ("Divisor", 3)])
                .unwrap(),
        );
        let ubo = l
            .uniform_buffer
            .build(&[("Entries", 4), ("Pointer", base + 0x400)])
            .unwrap();
        put(base + 0x300, &ubo);
        let rgba8 = (187 << 12) | crate::hw::format::ORDER_RGBA;
        let tex = l
            .texture
            .build(&[
                ("Dimension", 2),
                ("Format", rgba8),
                ("Width", 64),
                ("Height", 32),
                ("Swizzle", crate::hw::format::v6_swizzle(0, 1, 2, 5)),
                ("Levels", 2),
                ("Surfaces", base + 0x780),
            ])
            .unwrap();
        put(base + 0x700, &tex);
        put(
            base + 0x740,
            &l.sampler.build(&[("LOD bias", (-128i64) as u64)]).unwrap(),
        );
        put(
            base + 0x790,
            &l.surface_with_stride
                .build(&[("Pointer", base + 0xc00), ("Row stride", 128)])
                .unwrap(),
        );
        let s = snap(vec![(base, mem)], base);
        let seen: std::cell::Cell<usize> = std::cell::Cell::new(0);
        let disasm = |code: &[u8]| {
            seen.set(code.len());
            "clause_0:\n".to_string()
        };
        let opts = Options {
            disassemble: Some(&disasm),
        };
        let (listing, r) = decode_snapshot(&s, &opts);
        r.unwrap();
        assert_eq!(listing.errors, "");
        assert_eq!(seen.get(), 0x800);
        let t = &listing.text;
        let expect = [
            "Local Storage:\n  TLS Size: 0\n",
            "\nShader <host-ptr> (GPU VA 10800) sz 2048\nclause_0:\n\n\nState:\n  Shader:\n    Shader: 0x10800\n",
            "    Attribute count: 2\n",
            "      Vertex ID: true\n",
            "Attribute:\n  Buffer index: 2\n  Offset enable: true\n  Format (v7): RGB32F RGB1\n  Offset: 12\n",
            "\nAttribute:\n  Type: 1D\n  Pointer: 0x10600\n  Stride: 12\n  Size: 36\n",
            "Attribute:\n  Type: 1D NPOT Divisor\n  Pointer: 0x10640\n",
            "  Divisor E: 1\n  Type: Continuation\n  Divisor Numerator: 43691\n  Divisor: 3\n",
            "Attribute:\n  Type: XXX: INVALID\n",
            "ubuf_0[64] = memory_10000 + 1024;\n\n",
            "Textures 10700:\n  Texture:\n    Type: 2\n    Dimension: 2D\n",
            "    Format (v7): RGBA8 UNORM RGBA\n    Width: 64\n    Height: 32\n    Swizzle: 2696 (RGB1)\n",
            "    Levels: 2\n",
            "    Surface With Stride @10780:\n      Pointer: 0x0\n",
            "    Surface With Stride @10790:\n      Pointer: 0x10c00\n      Row stride: 128\n",
            "Samplers 10740:\n  Sampler 0:\n    Type: 1\n    Wrap Mode R: Clamp to Edge\n",
            "    Minimum LOD: 0.000000\n",
            "    LOD bias: -0.500000\n",
            "    Border Color R: 0x0 (0.000000)\n",
            "vec4 uniforms[2] = memory_10000 + 1280;\n\n",
            "Vertex Job Payload:\n  Invocation (1, 1, 1) x (1, 3, 1)\n  Invocation:\n    Invocations: 2\n",
            "    Workgroups Z shift: 32\n    Thread group split: 2\n  Vertex Job Parameters:\n    Job Task Split: 5\n",
        ];
        for e in expect {
            assert!(t.contains(e), "missing {e:?} in\n{t}");
        }
        // Highest buffer index 2 → records 0 (1D), 1 (all zero: type 0
        // prints as XXX: INVALID) and 2 (NPOT), whose continuation (record
        // 3) prints without a heading.
        assert_eq!(t.matches("\nAttribute:\n  Type:").count(), 3);
    }

    /// A tiler job: Primitive with an index buffer, Tiler Context + Heap,
    /// Renderer State followed by Blend RT 0, Viewport.
    #[test]
    fn tiler_job_prints_primitive_tiler_and_blend() {
        use crate::hw::layout::bytes_from_words;
        let l = layouts(Arch::V7);
        let base = 0x40000u64;
        let mut mem = vec![0u8; 0x1000];
        let mut put = |va: u64, words: &[u32]| {
            let at = (va - base) as usize;
            let b = bytes_from_words(words);
            mem[at..at + b.len()].copy_from_slice(&b);
        };
        let agg = l.tiler_job;
        let mut job = agg.defaults();
        header::TYPE.set(&mut job, JobType::Tiler as u64).unwrap();
        let prim = l
            .primitive
            .build(&[
                ("Draw mode", 8),
                ("Index type", 2),
                ("Index count", 6),
                ("Indices", base + 0x900),
            ])
            .unwrap();
        agg.section("Primitive")
            .unwrap()
            .words_mut(&mut job)
            .copy_from_slice(&prim);
        job::tiler_pointer::ADDRESS
            .set(
                agg.section("Tiler").unwrap().words_mut(&mut job),
                base + 0x400,
            )
            .unwrap();
        let draw = l
            .draw
            .build(&[
                ("Thread Storage", base + 0x100),
                ("State", base + 0x140),
                ("Viewport", base + 0x200),
            ])
            .unwrap();
        agg.section("Draw")
            .unwrap()
            .words_mut(&mut job)
            .copy_from_slice(&draw);
        put(base, &job);
        put(base + 0x100, &l.local_storage.defaults());
        let rsd = l
            .renderer_state
            .build(&[("Shader.Shader", base + 0x800)])
            .unwrap();
        put(base + 0x140, &rsd);
        let blend = l
            .blend
            .build(&[("Internal.Mode", 2), ("Equation.Color Mask", 15)])
            .unwrap();
        put(base + 0x180, &blend);
        put(base + 0x200, &l.viewport.defaults());
        let ctx = l
            .tiler_context
            .build(&[("Heap", base + 0x600), ("FB Width", 64), ("FB Height", 32)])
            .unwrap();
        put(base + 0x400, &ctx);
        put(
            base + 0x600,
            &l.tiler_heap.build(&[("Size", 4096)]).unwrap(),
        );
        let s = snap(vec![(base, mem)], base);
        let (listing, r) = decode_snapshot(&s, &Options::default());
        r.unwrap();
        assert_eq!(listing.errors, "");
        let t = &listing.text;
        for e in [
            "Blend RT 0:\n  Load Destination: false\n  Alpha To One: false\n  Enable: true\n",
            "    Color Mask: 15\n  Internal:\n    Mode: Fixed-Function\n",
            "Viewport:\n  Minimum X: -inf\n",
            "  Maximum Z: 1.000000\n",
            "Tiler Job Payload:\n  Invocation (1, 1, 1) x (1, 1, 1)\n",
            "  Primitive:\n    Draw mode: Triangles\n    Index type: UINT16\n",
            "    Index count: 6\n    Indices: 0x40900\n",
            "  Primitive Size:\n    Constant: 0.000000\n    Size Array: 0x0\n",
            "  Tiler Heap:\n    Size: 4096\n",
            "  Tiler Context @40400:\n    Polygon List: 0x0\n",
            "    FB Width: 64\n    FB Height: 32\n    Heap: 0x40600\n    Weights:\n      Weight0: 0\n",
        ] {
            assert!(t.contains(e), "missing {e:?} in\n{t}");
        }
        assert!(t.find("  Draw:\n").unwrap() > t.find("  Primitive:").unwrap());
    }

    /// A fragment job: tagged FBD pointer, parameters with a tiler context,
    /// sample locations, one render target.
    #[test]
    fn fragment_job_prints_the_framebuffer() {
        use crate::hw::fbd;
        use crate::hw::layout::bytes_from_words;
        let l = layouts(Arch::V7);
        let base = 0x80000u64;
        let mut mem = vec![0u8; 0x1000];
        let mut put = |va: u64, words: &[u32]| {
            let at = (va - base) as usize;
            let b = bytes_from_words(words);
            mem[at..at + b.len()].copy_from_slice(&b);
        };
        let mut tag = fbd::FRAMEBUFFER_POINTER.defaults();
        fbd::framebuffer_pointer::POINTER
            .set(&mut tag, base + 0x400)
            .unwrap();
        fbd::framebuffer_pointer::RENDER_TARGET_COUNT
            .set(&mut tag, 1)
            .unwrap();
        let fb_ptr = u64::from(tag[0]) | u64::from(tag[1]) << 32;
        let mut job = job::FRAGMENT_JOB.defaults();
        header::TYPE
            .set(&mut job, JobType::Fragment as u64)
            .unwrap();
        job::fragment::FRAMEBUFFER
            .set(&mut job[8..], fb_ptr)
            .unwrap();
        job::fragment::BOUND_MAX_X.set(&mut job[8..], 63).unwrap();
        put(base, &job);
        let params = l
            .framebuffer_parameters
            .build(&[
                ("Sample Locations", base + 0x200),
                ("Width", 64),
                ("Height", 64),
                ("Effective Tile Size", 256),
                ("Tiler", base + 0x100),
            ])
            .unwrap();
        put(base + 0x400, &params);
        put(base + 0x100, &l.tiler_context.defaults());
        let locations: Vec<u32> = (0..33).map(|_| 128 | 136 << 16).collect();
        put(base + 0x200, &locations);
        let rt = l
            .render_target
            .build(&[("Write Enable", 1), ("RGB.Base", base + 0x800)])
            .unwrap();
        put(base + 0x480, &rt);
        let s = snap(vec![(base, mem)], base);
        let (listing, r) = decode_snapshot(&s, &Options::default());
        r.unwrap();
        assert_eq!(listing.errors, "");
        let t = &listing.text;
        for e in [
            "Parameters:\n  Pre Frame 0: Never\n",
            "  Effective Tile Size: 256\n",
            "Sample locations @80200:\n  (0, 8),\n",
            "Framebuffer @80400:\n  Parameters:\n    Pre Frame 0: Never\n",
            "  Tiler Context @80100:\n",
            "Color Render Targets @80480:\n  Color Render Target 0:\n    YUV:\n",
            "      Plane 2 Base: 0x80800\n",
            "      Body: 0x80800\n",
            "    Write Enable: true\n",
            "    RGB:\n      Base: 0x80800\n",
            "Fragment Job Payload:\n  Bound Min X: 0\n  Bound Min Y: 0\n  Bound Max X: 63\n",
        ] {
            assert!(t.contains(e), "missing {e:?} in\n{t}");
        }
        assert!(!t.contains("invalid FBD tag"));
        assert_eq!(t.matches("  (0, 8),\n").count(), 33);
    }

    /// An IDVS job: vertex DCD (with its secondary shader disassembled),
    /// fragment DCD, tiler, invocation, primitive, in pandecode's order.
    #[test]
    fn indexed_vertex_job_order() {
        use crate::hw::layout::bytes_from_words;
        let l = layouts(Arch::V7);
        let base = 0xa0000u64;
        let mut mem = vec![0u8; 0x1000];
        let mut put = |va: u64, words: &[u32]| {
            let at = (va - base) as usize;
            let b = bytes_from_words(words);
            mem[at..at + b.len()].copy_from_slice(&b);
        };
        let agg = l.indexed_vertex_job;
        let mut job = agg.defaults();
        header::TYPE
            .set(&mut job, JobType::IndexedVertex as u64)
            .unwrap();
        for (name, rsd) in [("Vertex Draw", 0x240u64), ("Fragment Draw", 0x280)] {
            let d = l
                .draw
                .build(&[("Thread Storage", base + 0x200), ("State", base + rsd)])
                .unwrap();
            agg.section(name)
                .unwrap()
                .words_mut(&mut job)
                .copy_from_slice(&d);
        }
        job::tiler_pointer::ADDRESS
            .set(
                agg.section("Tiler").unwrap().words_mut(&mut job),
                base + 0x400,
            )
            .unwrap();
        put(base, &job);
        put(base + 0x200, &l.local_storage.defaults());
        let vs = l
            .renderer_state
            .build(&[
                ("Shader.Shader", base + 0x800),
                ("Secondary shader", base + 0x900),
            ])
            .unwrap();
        put(base + 0x240, &vs);
        put(base + 0x2c0, &l.blend.defaults());
        put(base + 0x400, &l.tiler_context.defaults());
        let s = snap(vec![(base, mem)], base);
        let (listing, r) = decode_snapshot(&s, &Options::default());
        r.unwrap();
        assert_eq!(listing.errors, "");
        let t = &listing.text;
        let order = [
            "Vertex:\nLocal Storage:\n",
            "Shader <host-ptr> (GPU VA a0800) sz 2048\n",
            "Shader <host-ptr> (GPU VA a0900) sz 1792\n",
            "Vertex Draw:\n",
            "Fragment:\nLocal Storage:\n",
            "Blend RT 0:\n",
            "Fragment Draw:\n",
            "Tiler Job Payload:\n  Tiler Context @a0400:\n",
            "\nInvocation (1, 1, 1) x (1, 1, 1)\n",
            "\nPrimitive:\n  Draw mode: None\n",
            "\nPrimitive Size:\n",
        ];
        let mut at = 0;
        for e in order {
            let found = t[at..]
                .find(e)
                .unwrap_or_else(|| panic!("missing {e:?} after {at} in\n{t}"));
            at += found + e.len();
        }
    }

    #[test]
    fn v6_renderer_state_has_no_v7_fields() {
        let l = layouts(Arch::V6);
        let base = 0x20000u64;
        let mut w = l.compute_job.defaults();
        header::TYPE.set(&mut w, JobType::Compute as u64).unwrap();
        let d = l.compute_job.section("Draw").unwrap();
        dcd::THREAD_STORAGE
            .set(d.words_mut(&mut w), base + 0x100)
            .unwrap();
        dcd::STATE.set(d.words_mut(&mut w), base + 0x140).unwrap();
        let mut bytes = crate::hw::layout::bytes_from_words(&w);
        bytes.resize(0x100, 0);
        bytes.extend(crate::hw::layout::bytes_from_words(
            &l.local_storage.defaults(),
        ));
        bytes.resize(0x180, 0);
        let mut s = snap(vec![(base, bytes)], base);
        s.gpu_id = 0x6221;
        let (listing, r) = decode_snapshot(&s, &Options::default());
        r.unwrap();
        assert!(listing.text.contains("  Properties:\n    Uniform buffer count: 0\n    Depth source: Minimum\n    Shader contains barrier: false\n    Shader modifies coverage: false\n"));
        assert!(!listing.text.contains("Message Preload"));
        assert!(!listing.text.contains("register allocation"));
        assert!(listing.text.contains("  Secondary shader: 0x0\n\n"));
    }

    /// Addresses near the top of the address space wrap instead of
    /// overflowing (and then miss every block).
    #[test]
    fn pointers_at_the_top_of_the_address_space() {
        let l = layouts(Arch::V7);
        let mut w = l.compute_job.defaults();
        header::TYPE.set(&mut w, JobType::Vertex as u64).unwrap();
        let d = l.compute_job.section("Draw").unwrap();
        dcd::THREAD_STORAGE
            .set(d.words_mut(&mut w), 0x1100)
            .unwrap();
        dcd::ATTRIBUTES
            .set(d.words_mut(&mut w), u64::MAX - 3)
            .unwrap();
        dcd::STATE.set(d.words_mut(&mut w), 0x1140).unwrap();
        let mut bytes = crate::hw::layout::bytes_from_words(&w);
        bytes.resize(0x100, 0);
        bytes.extend(crate::hw::layout::bytes_from_words(
            &l.local_storage.defaults(),
        ));
        bytes.resize(0x140, 0);
        let rsd = l
            .renderer_state
            .build(&[("Shader.Attribute count", 3)])
            .unwrap();
        bytes.extend(crate::hw::layout::bytes_from_words(&rsd));
        let s = snap(vec![(0x1000, bytes)], 0x1000);
        let (_, r) = decode_snapshot(&s, &Options::default());
        assert_eq!(r, Err(DecodeError::UnknownMemory(u64::MAX - 3)));
    }

    proptest::proptest! {
        /// Random bytes never make the decoder panic.
        #[test]
        fn random_memory_never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..1024)) {
            let s = snap(vec![(0x1000, bytes)], 0x1000);
            let _ = walk_chain(&s, 0x1000);
            let _ = decode_snapshot(&s, &Options::default());
        }

        /// Random jobs of every type whose Draw/Tiler pointers land in or
        /// near the block never make the decoder panic.
        #[test]
        fn random_jobs_never_panic(
            mut bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0x400),
            job_type in 0u64..12,
            pointers in proptest::collection::vec(0x0f00u64..0x1500, 16),
        ) {
            let mut w = words_from_bytes(&bytes);
            header::TYPE.set(&mut w, job_type).unwrap();
            header::NEXT.set(&mut w, 0).unwrap();
            for (k, name) in ["Draw", "Vertex Draw", "Fragment Draw"].iter().enumerate() {
                let Some(agg) = JobType::from_raw(job_type).and_then(|t| t.aggregate()) else {
                    break;
                };
                let Some(sec) = agg.section(name) else { continue };
                let d = sec.words_mut(&mut w);
                for (i, f) in [
                    dcd::THREAD_STORAGE, dcd::STATE, dcd::ATTRIBUTES, dcd::ATTRIBUTE_BUFFERS,
                    dcd::VARYINGS, dcd::UNIFORM_BUFFERS, dcd::PUSH_UNIFORMS,
                ].iter().enumerate() {
                    f.set(d, pointers[(i + 5 * k) % 16] & !3).unwrap();
                }
            }
            if let Some(t) = JobType::from_raw(job_type).and_then(|t| t.aggregate()).and_then(|a| a.section("Tiler")) {
                job::tiler_pointer::ADDRESS.set(t.words_mut(&mut w), pointers[15]).unwrap();
            }
            bytes = crate::hw::layout::bytes_from_words(&w);
            let s = snap(vec![(0x1000, bytes)], 0x1000);
            let _ = decode_snapshot(&s, &Options::default());
        }
    }
}

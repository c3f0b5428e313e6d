//! vkCmdDispatch, and the push-uniform area every shader job gets (shared
//! with the draws): the program's `PushUniformLayout` filled with the
//! sysvals and push constants, followed by the GPU address of every buffer
//! binding the shader addresses (`ShaderBinary::buffers`); and the job's
//! UBO table (`ShaderBinary::ubos`: the shaders are compiled with
//! `bifrost::Options::ubo_table`).

use super::recording::{Fail, Recording};
use crate::compiler::bifrost::binary::BUFFER_SIZE_WORD;
use crate::compiler::passes::PushWord;
use crate::compiler::passes::lower_sysvals::{SysvalBlock, sysval_offset};
use crate::jm::ComputeJob;
use crate::vk::pipeline::{LayoutInfo, Program};

/// Compute bind point index in `State::sets`.
pub const COMPUTE: usize = 1;

/// The most a Uniform Buffer descriptor covers: 4,096 entries of 16 bytes
/// (genxml `Uniform Buffer`, `Entries` is 12 bits, minus one).
const MAX_UBO_BYTES: u64 = 4096 * 16;

impl Recording {
    /// The FAU words of one job of `program` (see the module docs), in
    /// the recording's reusable vector: give it back with
    /// [`Recording::recycle_push`] once the job is written.
    pub fn push_uniforms(
        &mut self,
        program: &Program,
        layout: &LayoutInfo,
        bind_point: usize,
        sysvals: &mut SysvalBlock,
    ) -> Result<Vec<u64>, Fail> {
        let pc_word = PushWord::Sysval(sysval_offset::PUSH_CONSTANTS_ADDRESS / 8);
        if program.push.words.contains(&pc_word) {
            // Dynamically indexed push constants are read from memory.
            let bytes = self.state.push_constants.0;
            let copy = self.rec.alloc(bytes.len() as u64, 16)?;
            copy.write_bytes(0, &bytes);
            sysvals.push_constants_address = copy.gpu_va;
        }
        let mut words = std::mem::take(&mut self.push_scratch);
        words.clear();
        program
            .push
            .fill_words_into(sysvals, &self.state.push_constants.0, &mut words);
        for &(entry, binding) in &program.code.binary.buffers {
            // An address word, or with the flag the bound range's size.
            let size = entry & BUFFER_SIZE_WORD != 0;
            let set = entry & !BUFFER_SIZE_WORD;
            let d = self
                .state
                .buffer_descriptor(bind_point, layout, set, binding);
            match d {
                Some(d) if size => words.push(d.range.min(u64::from(u32::MAX))),
                Some(d) => {
                    self.rec.use_bo(d.bo);
                    words.push(d.address);
                }
                None => {
                    log::warn!(
                        "shader reads set {set} binding {binding}, which is not bound (invalid usage)"
                    );
                    words.push(0);
                }
            }
        }
        Ok(words)
    }

    /// The UBO table of one job of `program`: (address, range in bytes) of
    /// the descriptor bound to each entry of `ShaderBinary::ubos`. An
    /// unbound one (invalid usage) gets an entry at address 0, as the
    /// address word of an unbound buffer is 0: its loads fault the job
    /// (device lost), never read another object's memory. A range is at most `maxUniformBufferRange` (16 KiB, valid
    /// usage), well inside the descriptor's 4,096 entries of 16 bytes;
    /// longer ones are clamped to that. Addresses are 16-byte aligned as
    /// the descriptor needs: buffers and UBO offsets are 256-byte aligned
    /// (`vk/buffer.rs`; anything else is invalid usage, then logged and
    /// the entry left empty).
    pub fn ubo_table(
        &mut self,
        program: &Program,
        layout: &LayoutInfo,
        bind_point: usize,
    ) -> Vec<(u64, u32)> {
        let ubos = &program.code.binary.ubos;
        let mut table = Vec::with_capacity(ubos.len());
        for &(set, binding) in ubos {
            let d = self
                .state
                .buffer_descriptor(bind_point, layout, set, binding);
            table.push(match d {
                Some(d) if d.address % 16 == 0 => {
                    self.rec.use_bo(d.bo);
                    (d.address, d.range.min(MAX_UBO_BYTES) as u32)
                }
                Some(d) => {
                    log::warn!(
                        "uniform buffer at set {set} binding {binding} has a misaligned address {:#x} (invalid usage)",
                        d.address
                    );
                    (0, 0)
                }
                None => {
                    log::warn!(
                        "shader reads set {set} binding {binding}, which is not bound (invalid usage)"
                    );
                    (0, 0)
                }
            });
        }
        table
    }

    /// Keep `words` (from [`Recording::push_uniforms`]) for the next job.
    pub fn recycle_push(&mut self, words: Vec<u64>) {
        self.push_scratch = words;
    }

    /// vkCmdDispatch.
    pub fn dispatch(&mut self, groups: [u32; 3]) {
        self.record(|r| {
            let Some(p) = r.state.compute.clone() else {
                log::warn!("vkCmdDispatch without a compute pipeline (invalid usage)");
                return Ok(());
            };
            if groups.contains(&0) {
                return Ok(());
            }
            let mut sysvals = SysvalBlock {
                num_workgroups: groups,
                ..SysvalBlock::default()
            };
            let push = r.push_uniforms(&p.program, &p.layout, COMPUTE, &mut sysvals)?;
            let ubos = r.ubo_table(&p.program, &p.layout, COMPUTE);
            r.rec.use_bo(p.program.code.bo_handle());
            r.rec.compute(
                &ComputeJob {
                    binary: &p.program.code.binary,
                    code: p.program.code.va(),
                    push_uniforms: &push,
                    local_size: p.local_size,
                    groups,
                    ubos: &ubos,
                    attributes: None,
                    push_buffer: None,
                },
                [0, 0],
            )?;
            Ok(())
        });
    }
}

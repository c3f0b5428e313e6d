//! Fuzzing the whole compiler: bytes → SPIR-V front end → front half →
//! Bifrost backend, for every stage, both `robustBufferAccess` settings,
//! every variant and both architectures (v6, v7), plus the paths only the
//! driver takes (`compile_vertex_capture` for vertex-only pipelines,
//! `lower_for_tiler` for draws that rasterize).
//!
//! [`compile_everything`] is the one target: the libFuzzer target in
//! `fuzz/fuzz_targets/whole_compiler.rs` (nightly, cargo-fuzz) and the
//! stable-toolchain driver `bifrost-fuzz` (`src/bin/bifrost-fuzz.rs`, a
//! deterministic mutation fuzzer over a seed corpus, [`Mutator`]) both
//! call it. Every input must give `Ok` or `Err`; a panic is a bug.

use std::collections::HashMap;

use crate::compiler::bifrost::{self, Arch};
use crate::compiler::ir::Stage;
use crate::compiler::pipeline::{
    FrontOptions, compile_front_with, compile_vertex_capture, lower_for_tiler,
};

/// What one input reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reached {
    /// (stage, robustness) pairs whose front half succeeded.
    pub fronts: u32,
    /// Binaries the backend produced.
    pub binaries: u32,
    /// Backend errors (clean `CompileError`s).
    pub backend_errors: u32,
}

/// Runs every compiler path the driver has on `module` (entry point
/// "main", no specialization data and then four u32 constants of 7).
pub fn compile_everything(module: &[u8]) -> Reached {
    let mut reached = Reached::default();
    let no_spec = HashMap::new();
    let spec: HashMap<u32, Vec<u8>> = (0..4u32)
        .map(|id| (id, 7u32.to_le_bytes().to_vec()))
        .collect();
    let backend = |shader: &crate::compiler::ir::Shader, words: u32, r: &mut Reached| {
        for arch in [Arch::V6, Arch::V7] {
            let options = bifrost::Options {
                arch,
                push_uniform_words: Some(words),
                // Both ways of reading UBOs, one per architecture (the
                // driver's is the table).
                ubo_table: arch == Arch::V7,
            };
            match bifrost::compile_optimized(shader, options) {
                Ok(_) => r.binaries += 1,
                Err(_) => r.backend_errors += 1,
            }
        }
    };
    for stage in [Stage::Vertex, Stage::Fragment, Stage::Compute] {
        for robust in [false, true] {
            let options = FrontOptions {
                robust_buffer_access: robust,
                ubo_table: true,
                contract: true,
            };
            let spec = if robust { &spec } else { &no_spec };
            let Ok(front) = compile_front_with(module, "main", stage, spec, options) else {
                continue;
            };
            reached.fronts += 1;
            for lowered in front.variants() {
                backend(
                    &lowered.shader,
                    lowered.push_uniforms.fau_words(),
                    &mut reached,
                );
                let mut tiler = lowered.clone();
                if matches!(lower_for_tiler(&mut tiler), Ok(true)) {
                    backend(&tiler.shader, tiler.push_uniforms.fau_words(), &mut reached);
                }
            }
            if stage == Stage::Vertex
                && let Ok(capture) = compile_vertex_capture(module, "main", spec, options)
                && let Some(xfb) = &capture.xfb
            {
                backend(&xfb.shader, xfb.push_uniforms.fau_words(), &mut reached);
            }
        }
    }
    reached
}

/// A deterministic mutator for SPIR-V modules (xorshift64*): bit flips,
/// interesting bytes and words, small word deltas (ids, counts, literals),
/// word deletion and duplication, splices from a second module and
/// truncation, one to four per input (mostly one or two light ones). The header (five words) is mutated only
/// rarely, so most inputs reach past the container checks.
pub struct Mutator {
    state: u64,
}

impl Mutator {
    pub fn new(seed: u64) -> Mutator {
        Mutator {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// `seed` mutated; `other` is a second module for splices.
    pub fn mutate(&mut self, seed: &[u8], other: &[u8]) -> Vec<u8> {
        let mut m = seed.to_vec();
        // Mostly one or two changes: most of a mutant should still be a
        // module, so the compiler behind the parser gets exercised.
        let rounds = [1, 1, 1, 2, 2, 3, 4][self.below(7)];
        for _ in 0..rounds {
            let words = m.len() / 4;
            // Word index to touch: past the header 15 times in 16.
            let word = |mu: &mut Mutator| -> usize {
                if words == 0 {
                    0
                } else if words > 5 && mu.below(16) != 0 {
                    5 + mu.below(words - 5)
                } else {
                    mu.below(words)
                }
            };
            // Weights: light edits (bit, byte, interesting word, word delta)
            // 12 of 16, structural ones (delete, duplicate, splice,
            // truncate) 1 each.
            const KIND: [u8; 16] = [0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 5, 6, 7];
            match KIND[self.below(KIND.len())] {
                0 if !m.is_empty() => {
                    let at = self.below(m.len());
                    m[at] ^= 1 << self.below(8);
                }
                1 if !m.is_empty() => {
                    const BYTES: [u8; 6] = [0, 1, 0x7f, 0x80, 0xfe, 0xff];
                    let at = self.below(m.len());
                    m[at] = BYTES[self.below(BYTES.len())];
                }
                2 if words > 0 => {
                    const WORDS: [u32; 8] =
                        [0, 1, 2, 3, 0xffff, 0x7fff_ffff, 0x8000_0000, u32::MAX];
                    let w = word(self);
                    let v = WORDS[self.below(WORDS.len())];
                    m[4 * w..4 * w + 4].copy_from_slice(&v.to_le_bytes());
                }
                3 if words > 0 => {
                    let w = word(self);
                    let old =
                        u32::from_le_bytes(m[4 * w..4 * w + 4].try_into().unwrap_or_default());
                    let delta = self.below(9) as i32 - 4;
                    let v = old.wrapping_add(delta as u32);
                    m[4 * w..4 * w + 4].copy_from_slice(&v.to_le_bytes());
                }
                4 if words > 5 => {
                    let w = word(self);
                    m.drain(4 * w..4 * w + 4);
                }
                5 if words > 0 => {
                    let w = word(self);
                    let copy: Vec<u8> = m[4 * w..4 * w + 4].to_vec();
                    let at = 4 * word(self);
                    m.splice(at..at, copy);
                }
                6 if other.len() >= 24 && words > 5 => {
                    // Splice a run of words from the other module.
                    let from = 20 + 4 * self.below((other.len() - 20) / 4);
                    let len = 4 * (1 + self.below(16)).min((other.len() - from) / 4);
                    let at = 4 * word(self);
                    m.splice(at..at, other[from..from + len].iter().copied());
                }
                _ => {
                    // Truncate at a word boundary.
                    if words > 6 {
                        let keep = 5 + self.below(words - 5);
                        m.truncate(4 * keep);
                    }
                }
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mutator_is_deterministic_and_changes_its_input() {
        let seed: Vec<u8> = (0..400u32).flat_map(|w| w.to_le_bytes()).collect();
        let run = |s: u64| {
            let mut m = Mutator::new(s);
            (0..50).map(|_| m.mutate(&seed, &seed)).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        assert!(run(7).iter().filter(|m| **m != seed).count() > 40);
    }

    #[test]
    fn a_valid_module_reaches_every_backend() {
        let spv = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/shaders/xfb_components.vert.spv"
        ))
        .unwrap();
        let r = compile_everything(&spv);
        // Vertex with and without robustness: the rasterization variant,
        // its tiler form and the XFB variant from both paths, on v6 and v7.
        assert_eq!(r.fronts, 2);
        assert_eq!(r.binaries, 2 * 4 * 2);
        assert_eq!(r.backend_errors, 0);
        assert_eq!(
            compile_everything(&spv[..spv.len() / 2]),
            Reached::default()
        );
    }
}

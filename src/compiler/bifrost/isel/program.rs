//! What instruction selection produces: basic blocks of backend
//! instructions on virtual registers, with their terminators.

use super::*;

/// How a block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Continue with the next block in layout order.
    Fall,
    /// Jump to a block.
    Jump(usize),
    /// Branch to a block if the source is zero, else fall through.
    BranchZ(Src, usize),
    /// End of the shader.
    End,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub instrs: Vec<Instr>,
    pub term: Term,
}

/// The selected program: blocks in layout order and virtual register sizes.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub blocks: Vec<Block>,
    /// Components of each virtual register (1..=4, contiguous when > 1).
    pub vreg_sizes: Vec<u8>,
    pub preloads: Preloads,
    /// 64-bit FAU words read (push-uniform area plus the buffer address table).
    pub uniform_words: u32,
    pub uses_barrier: bool,
    pub attribute_count: u32,
    /// (set, binding) of each buffer address FAU word, in order.
    pub buffers: Vec<(u32, u32)>,
    /// (set, binding) of each UBO table entry, in index order.
    pub ubos: Vec<(u32, u32)>,
    /// Varying records written (`store_output`), ascending.
    pub varyings: Vec<VaryingStore>,
    /// Fragment shaders: what the RSD needs (the epilogue is selected).
    pub fragment: Option<crate::compiler::bifrost::binary::FragmentInfo>,
    /// Physical registers (bit n = rn) the allocator must not hand out.
    pub reserved: u64,
    /// Blend shaders: the program ends with `JUMP` to this register (r48,
    /// the return address; `blend.rs`) in a clause of its own.
    pub return_register: Option<u8>,
}

impl Program {
    /// Successor blocks of block `b`.
    pub fn successors(&self, b: usize) -> Vec<usize> {
        let next = b + 1;
        match self.blocks[b].term {
            Term::Fall if next < self.blocks.len() => vec![next],
            Term::Fall | Term::End => vec![],
            Term::Jump(t) => vec![t],
            Term::BranchZ(_, t) if next < self.blocks.len() => vec![next, t],
            Term::BranchZ(_, t) => vec![t],
        }
    }
}

impl std::fmt::Display for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, b) in self.blocks.iter().enumerate() {
            writeln!(f, "block{i}:")?;
            for ins in &b.instrs {
                writeln!(f, "    {ins}")?;
            }
            writeln!(f, "    -> {:?}", b.term)?;
        }
        Ok(())
    }
}

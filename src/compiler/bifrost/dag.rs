//! The dependency graph of one block's allocated instructions, for the
//! list scheduler in `sched.rs`.
//!
//! Nodes are the block's instructions, except that an FMA instruction that
//! needs its ADD partner in the same tuple (`ATOM_C` + `ATOM_CX`, the
//! `SEG_ADD` pair) is one node with it. Edges, from the earlier to the later
//! instruction in program order: a register read after a write (RAW), a
//! write after a read (WAR), two writes of one register (WAW), and the
//! program order of clause-ending instructions (messages and `DISCARD`:
//! memory, tile-buffer and discard order stay as written; the fragment
//! epilogue's `ATEST`, `ZS_EMIT` and `BLEND` also follow every instruction
//! before them). Registers are
//! the 64 physical ones, as bit masks; a message's staging registers count
//! as read or written as `Op::staging` says.
//!
//! It must never drop an ordering the program needs: every two
//! instructions that touch one register, one of them writing it, are
//! connected by a path.

use super::ops::{Dst, Instr, Op, Src};

/// Kinds of an edge (bit set: one edge may carry several).
pub const RAW: u8 = 1;
pub const WAR: u8 = 2;
pub const WAW: u8 = 4;
pub const ORDER: u8 = 8;

/// One schedulable unit: an instruction, or an FMA half with its ADD partner.
pub struct Node<'a> {
    /// The instruction, or the FMA half of a pair.
    pub first: &'a Instr,
    /// The ADD half of a pair.
    pub partner: Option<&'a Instr>,
    /// Where its successors (with the kinds of the edge) lie in
    /// [`Graph::edges`]: see [`Graph::succs`].
    succs: std::ops::Range<u32>,
    /// Number of predecessor edges.
    pub npreds: usize,
    /// Longest path (in nodes) from this node to the end of the block.
    pub height: u32,
    /// Whether it ends its clause (a message or `DISCARD`).
    pub ends_clause: bool,
}

fn range(first: u8, count: u8) -> u64 {
    let mut m = 0u64;
    for r in first..first.saturating_add(count).min(64) {
        m |= 1 << r;
    }
    m
}

/// Registers an instruction reads and writes (bit n = rn).
#[inline]
pub fn reads_writes(ins: &Instr) -> (u64, u64) {
    let mut reads = 0u64;
    for s in &ins.srcs {
        if let Src::Phys(r) = *s
            && r < 64
        {
            reads |= 1 << r;
        }
    }
    let mut writes = 0u64;
    let staging = ins.op.staging();
    if let Some((count, read, write)) = staging {
        if read && let Some(Src::Phys(r)) = ins.srcs.first() {
            reads |= range(*r, count);
            if write {
                writes |= range(*r, count);
            }
        }
        if write && let Some(Dst::Phys(r)) = ins.dst {
            writes |= range(r, count);
        }
    }
    if let Some(Dst::Phys(r)) = ins.dst
        && r < 64
    {
        writes |= 1 << r;
    }
    (reads, writes)
}

/// Adds an edge from `p` (kinds `k`) to the node being built, merged with
/// an earlier edge from `p`.
fn add_edge(edges: &mut Vec<(usize, u8)>, p: usize, k: u8) {
    match edges.iter_mut().find(|e| e.0 == p) {
        Some(e) => e.1 |= k,
        None => edges.push((p, k)),
    }
}

/// A block's nodes and their edges (every node's successor list in one
/// vector, not a vector per node).
pub struct Graph<'a> {
    pub nodes: Vec<Node<'a>>,
    edges: Vec<(usize, u8)>,
}

impl Graph<'_> {
    /// Successors of node `n` with the kinds of the edge, in program order.
    pub fn succs(&self, n: usize) -> &[(usize, u8)] {
        let r = &self.nodes[n].succs;
        &self.edges[r.start as usize..r.end as usize]
    }
}

/// Buffers [`build_with`] reuses from one block to the next.
#[derive(Default)]
pub struct Scratch {
    reader_pool: Vec<(usize, u32)>,
    edges: Vec<(usize, u8)>,
    all: Vec<(usize, usize, u8)>,
    count: Vec<u32>,
}

/// Builds the graph of a block's instructions (in program order).
pub fn build(instrs: &[Instr]) -> Graph<'_> {
    build_with(instrs, &mut Scratch::default())
}

/// [`build`] with the working buffers of `scratch` (the scheduler builds
/// one graph per block).
pub fn build_with<'a>(instrs: &'a [Instr], scratch: &mut Scratch) -> Graph<'a> {
    let Scratch {
        reader_pool,
        edges,
        all,
        count,
    } = scratch;
    reader_pool.clear();
    edges.clear();
    all.clear();
    let mut nodes: Vec<Node> = Vec::with_capacity(instrs.len());
    let mut i = 0;
    while i < instrs.len() {
        let ins = &instrs[i];
        let partner = (ins.op.needs_add_partner()
            && instrs.get(i + 1).is_some_and(|p| p.op.is_add_partner()))
        .then(|| &instrs[i + 1]);
        i += 1 + usize::from(partner.is_some());
        let ends_clause = ins.op.ends_clause() || partner.is_some_and(|p| p.op.ends_clause());
        nodes.push(Node {
            first: ins,
            partner,
            succs: 0..0,
            npreds: 0,
            height: 1,
            ends_clause,
        });
    }
    // Per register: the last writer and the readers since.
    let mut last_write: [Option<usize>; 64] = [None; 64];
    // Readers as linked lists in one pool (`reader_head[r]` the newest
    // entry, each entry its node and the entry before it); the order they
    // are visited in does not matter (edges from one node are merged and
    // the successor lists are built in program order below).
    const NONE: u32 = u32::MAX;
    let mut reader_head = [NONE; 64];
    let mut last_ordered: Option<usize> = None;
    // `edges`: this node's incoming edges (merged per predecessor); `all`:
    // every edge (from, to, kinds), in the order of `to`.
    for (n, node) in nodes.iter_mut().enumerate() {
        edges.clear();
        let (mut reads, mut writes) = reads_writes(node.first);
        if let Some(p) = node.partner {
            let (r, w) = reads_writes(p);
            reads |= r;
            writes |= w;
        }
        let mut touched = reads | writes;
        while touched != 0 {
            let r = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            let bit = 1u64 << r;
            if reads & bit != 0
                && let Some(w) = last_write[r]
            {
                add_edge(edges, w, RAW);
            }
            if writes & bit != 0 {
                if let Some(w) = last_write[r] {
                    add_edge(edges, w, WAW);
                }
                let mut e = reader_head[r];
                while e != NONE {
                    let (rd, before) = reader_pool[e as usize];
                    if rd != n {
                        add_edge(edges, rd, WAR);
                    }
                    e = before;
                }
            }
        }
        let mut touched = reads | writes;
        while touched != 0 {
            let r = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            let bit = 1u64 << r;
            if writes & bit != 0 {
                last_write[r] = Some(n);
                reader_head[r] = NONE;
            }
            if reads & bit != 0 && writes & bit == 0 {
                reader_pool.push((n, reader_head[r]));
                reader_head[r] = (reader_pool.len() - 1) as u32;
            }
        }
        if node.ends_clause {
            if let Some(p) = last_ordered {
                add_edge(edges, p, ORDER);
            }
            last_ordered = Some(n);
        }
        // The fragment epilogue's tile-buffer messages stay after
        // everything before them, as in Mesa's binaries (the body's last
        // instructions share the ATEST clause; the BLEND clause follows).
        if matches!(
            node.first.op,
            Op::Atest | Op::ZsEmit { .. } | Op::Blend { .. }
        ) {
            for p in 0..n {
                add_edge(edges, p, ORDER);
            }
        }
        all.extend(edges.iter().map(|&(p, k)| (p, n, k)));
        node.npreds = edges.len();
    }
    // Successor lists by counting sort on `from`: `all` is in the order of
    // `to`, so each list comes out sorted.
    count.clear();
    count.resize(nodes.len() + 1, 0);
    for &(p, _, _) in all.iter() {
        count[p + 1] += 1;
    }
    for i in 0..nodes.len() {
        count[i + 1] += count[i];
        nodes[i].succs = count[i]..count[i + 1];
    }
    let mut succ_edges = vec![(0usize, 0u8); all.len()];
    let next = count;
    for &(p, n, k) in all.iter() {
        succ_edges[next[p] as usize] = (n, k);
        next[p] += 1;
    }
    let mut g = Graph {
        nodes,
        edges: succ_edges,
    };
    // Heights, from the end (edges point forward in program order).
    for n in (0..g.nodes.len()).rev() {
        let h = g
            .succs(n)
            .iter()
            .map(|&(s, _)| g.nodes[s].height)
            .max()
            .unwrap_or(0);
        g.nodes[n].height = h + 1;
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phys(op: Op, d: u8, s: &[u8]) -> Instr {
        Instr::new(
            op,
            Some(Dst::Phys(d)),
            s.iter()
                .map(|&r| Src::Phys(r))
                .collect::<crate::compiler::bifrost::ops::SrcList>(),
        )
    }

    #[test]
    fn register_edges_and_heights() {
        // r1 = r0 + r0; r2 = r1 + r0; r0 = r3 + r3 (WAR on r0 against both);
        // r1 = r3 + r3 (WAW with the first, WAR with the second).
        let code = [
            phys(Op::IaddS32, 1, &[0, 0]),
            phys(Op::IaddS32, 2, &[1, 0]),
            phys(Op::IaddS32, 0, &[3, 3]),
            phys(Op::IaddS32, 1, &[3, 3]),
        ];
        let g = build(&code);
        assert_eq!(g.succs(0), [(1, RAW), (2, WAR), (3, WAW)]);
        assert_eq!(g.succs(1), [(2, WAR), (3, WAR)]);
        assert!(g.succs(2).is_empty() && g.succs(3).is_empty());
        assert_eq!(
            g.nodes.iter().map(|n| n.npreds).collect::<Vec<_>>(),
            [0, 1, 2, 2]
        );
        assert_eq!(
            g.nodes.iter().map(|n| n.height).collect::<Vec<_>>(),
            [3, 2, 1, 1]
        );
    }

    #[test]
    fn staging_registers_and_message_order() {
        // LOAD r4..r7 (vec4) then STORE r4..r7, then an add reading r6 and
        // a second store: staging ranges make edges, messages stay ordered.
        let load = Instr::new(
            Op::Load {
                bytes: 16,
                seg: crate::compiler::bifrost::ops::Seg::None,
            },
            Some(Dst::Phys(4)),
            vec![Src::Phys(0), Src::Phys(1)],
        );
        let store = |data: u8| {
            Instr::new(
                Op::Store {
                    bytes: 16,
                    seg: crate::compiler::bifrost::ops::Seg::None,
                },
                None,
                vec![Src::Phys(data), Src::Phys(0), Src::Phys(1)],
            )
        };
        let code = [
            load,
            phys(Op::IaddS32, 9, &[6, 6]),
            store(4),
            phys(Op::IaddS32, 5, &[8, 8]),
            store(8),
        ];
        let g = build(&code);
        assert_eq!(g.succs(0), [(1, RAW), (2, RAW | ORDER), (3, WAW)]);
        // The add writing r5 waits for the store reading it.
        assert!(g.succs(2).contains(&(3, WAR)));
        assert!(g.succs(2).contains(&(4, ORDER)));
        assert!(g.nodes[0].ends_clause && g.nodes[2].ends_clause && !g.nodes[1].ends_clause);
    }
}

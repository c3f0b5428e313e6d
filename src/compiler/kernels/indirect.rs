//! Indirect draws and dispatches on the GPU: vkCmdDispatchIndirect,
//! vkCmdDrawIndirect, vkCmdDrawIndexedIndirect, their `Count` forms
//! (`VK_KHR_draw_indirect_count`) and vkCmdDrawIndirectByteCountEXT.
//!
//! A job whose size comes from GPU memory is recorded with placeholder
//! values; a one-invocation kernel that runs just before it reads the
//! parameters, computes every word that depends on them and writes those
//! words into the job's descriptors, its push uniforms and the draw's XFB
//! parameter block. It also turns the job into a NULL job when there is
//! nothing to do, and back into a real one otherwise, so a command buffer
//! submitted again gives the result of the current parameters. Mesa's PanVk
//! does the same for indirect dispatches on Bifrost
//! (`src/panfrost/libpan/` `panlib_indirect_dispatch`: job type NULL or
//! COMPUTE, then the Invocation words and the workgroup-count sysvals).
//!
//! # Values and patches
//! Each kernel first computes its **values** (u32 each, indices in
//! [`dispatch_value`] / [`draw_value`]) and stores them at `VALUES` (a
//! scratch block the caller provides, 4 × [`VALUE_COUNT`] bytes). It then
//! applies a **patch table** of `PATCH_COUNT` entries at `PATCHES`, each 16
//! bytes:
//!
//! | bytes | meaning |
//! |---|---|
//! | 0–7 | address of a 4-byte aligned 32-bit word |
//! | 8 | first bit of the field in that word |
//! | 9 | field width in bits (1–32) |
//! | 10 | which value goes there |
//! | 11–15 | zero |
//!
//! A patch replaces bits `[shift, shift + width)` of the word with the low
//! `width` bits of the value and keeps the others (read, merge, write).
//! The caller builds the table (`jm::patch`), so this kernel knows no
//! descriptor layout; it only knows how the hardware packs an Invocation
//! (the same rule as `hw::compute::WorkSize`).
//!
//! # Draw parameters
//! `MODE` 0 reads a `VkDrawIndirectCommand` (vertexCount, instanceCount,
//! firstVertex, firstInstance), 1 a `VkDrawIndexedIndirectCommand`
//! (indexCount, instanceCount, firstIndex, vertexOffset, firstInstance),
//! 2 a transform-feedback counter: `vertexCount = (counter −
//! counterOffset) / vertexStride` (0 when the counter is below the
//! offset), `firstVertex` 0, the instances from the command (Vulkan spec,
//! vkCmdDrawIndirectByteCountEXT). With a count buffer
//! (vkCmdDraw*IndirectCount), draw `i` runs only when `i < min(count,
//! maxDrawCount)`; otherwise its vertex and instance counts are 0.
//!
//! From them: primitives per instance `count ≥ k ? (count − k) / step + 1 :
//! 0` (k and step per topology, the Vulkan spec's "Primitive Topologies"),
//! and the capture grid `(1, ppi × vpp, instances)` packed the graphics
//! way (the capture job fetches its inputs by element index, so nothing
//! else of the vertex input depends on the parameters: `vk::cmd::draw`). A
//! draw whose grid cannot be encoded (more than 2^32 captured vertices per
//! instance, a grid the Invocation cannot pack), whose last instance index
//! or, for plain draws, last vertex index passes 2^32 − 1 is made empty:
//! its job is NULL and its primitive count 0, so it captures and counts
//! nothing (docs/STATUS.md).

use super::{Kernel, add_bytes, add_offset, for_range, kernel_shader, uniform, uniform_u32};
use crate::compiler::ir::*;

/// Job types the kernels write (genxml "Job Type").
pub mod job_type {
    pub const NULL: u32 = 1;
    pub const COMPUTE: u32 = 4;
    pub const VERTEX: u32 = 5;
}

/// `Thread group split` of graphics jobs ("Min efficient").
const SPLIT_MIN_EFFICIENT: u32 = 2;

/// Values slots (u32) of [`indirect_dispatch`].
pub mod dispatch_value {
    /// The job type: COMPUTE, or NULL when a count is 0 or the grid does
    /// not fit the Invocation encoding.
    pub const JOB_TYPE: u8 = 0;
    /// Invocation word 0 and 1.
    pub const INVOCATION_0: u8 = 1;
    pub const INVOCATION_1: u8 = 2;
    /// The workgroup counts x, y, z.
    pub const GROUPS_X: u8 = 3;
    pub const GROUPS_Y: u8 = 4;
    pub const GROUPS_Z: u8 = 5;
}

/// Values slots (u32) of [`indirect_draw`].
pub mod draw_value {
    /// Primitives per instance (0 for an empty or unencodable draw).
    pub const PRIMS_PER_INSTANCE: u8 = 0;
    /// `firstVertex` or `firstIndex`.
    pub const FIRST: u8 = 1;
    pub const VERTEX_OFFSET: u8 = 2;
    /// Instances (0 for an empty or unencodable draw).
    pub const INSTANCES: u8 = 3;
    pub const FIRST_INSTANCE: u8 = 4;
    /// The base-vertex sysval: `vertexOffset` when indexed, else `firstVertex`.
    pub const BASE_VERTEX: u8 = 5;
    /// VERTEX, or NULL when the draw is empty or cannot be encoded.
    pub const JOB_TYPE: u8 = 6;
    pub const INVOCATION_0: u8 = 7;
    pub const INVOCATION_1: u8 = 8;
    /// The vertex or index count after the count-buffer test.
    pub const COUNT: u8 = 9;
}

/// Value slots the scratch block holds (both kernels).
pub const VALUE_COUNT: u32 = 10;

/// Bytes per patch-table entry.
pub const PATCH_BYTES: u32 = 16;

/// Push-uniform words of [`indirect_dispatch`] (64-bit; lo/hi = halves).
pub mod dispatch_words {
    /// Address of the `VkDispatchIndirectCommand`.
    pub const COMMAND: u32 = 0;
    /// lo: local size x; hi: local size y.
    pub const LOCAL_XY: u32 = 1;
    /// lo: local size z; hi: patch count.
    pub const LOCAL_Z_PATCHES: u32 = 2;
    /// Patch table address.
    pub const PATCHES: u32 = 3;
    /// Values scratch address.
    pub const VALUES: u32 = 4;
    pub const COUNT: u32 = 5;
}

/// Push-uniform words of [`indirect_draw`] (64-bit; lo/hi = halves).
pub mod draw_words {
    /// Address of the indirect command, or of the counter (mode 2).
    pub const SOURCE: u32 = 0;
    /// lo: mode (0 draw, 1 indexed, 2 byte count); hi: topology word
    /// `k | step << 8 | verts_per_prim << 16`.
    pub const MODE_TOPOLOGY: u32 = 1;
    /// Mode 2: lo = counterOffset, hi = vertexStride.
    pub const BYTE_COUNT: u32 = 2;
    /// Mode 2: lo = instanceCount, hi = firstInstance.
    pub const INSTANCES: u32 = 3;
    /// Address of the draw count (0: no count buffer).
    pub const DRAW_COUNT: u32 = 4;
    /// lo: this draw's index; hi: maxDrawCount.
    pub const DRAW_INDEX: u32 = 5;
    /// lo: index size in bytes (0: not indexed); hi: patch count.
    pub const INDEX_PATCHES: u32 = 6;
    /// Patch table address.
    pub const PATCHES: u32 = 7;
    /// Values scratch address.
    pub const VALUES: u32 = 8;
    pub const COUNT: u32 = 9;
}

/// Modes of [`indirect_draw`].
pub mod draw_mode {
    pub const DRAW: u32 = 0;
    pub const INDEXED: u32 = 1;
    pub const BYTE_COUNT: u32 = 2;
}

/// The `(k, step)` of a topology: `count ≥ k` vertices give `(count − k) /
/// step + 1` primitives (Vulkan spec, "Primitive Topologies"); by
/// `VkPrimitiveTopology` value 0–9.
pub const fn topology_counts(topology: u32) -> (u32, u32) {
    match topology {
        0 => (1, 1), // point list
        1 => (2, 2), // line list
        2 => (2, 1), // line strip
        3 => (3, 3), // triangle list
        4 => (3, 1), // triangle strip
        5 => (3, 1), // triangle fan
        6 => (4, 4), // line list with adjacency
        7 => (4, 1), // line strip with adjacency
        8 => (6, 6), // triangle list with adjacency
        _ => (6, 2), // triangle strip with adjacency
    }
}

fn pair(lo: u32, hi: u32) -> u64 {
    u64::from(lo) | u64::from(hi) << 32
}

/// The push words of [`indirect_dispatch`].
pub fn dispatch_words(
    command: u64,
    local_size: [u32; 3],
    patches: u64,
    patch_count: u32,
    values: u64,
) -> [u64; dispatch_words::COUNT as usize] {
    use dispatch_words::*;
    let mut w = [0u64; COUNT as usize];
    w[COMMAND as usize] = command;
    w[LOCAL_XY as usize] = pair(local_size[0], local_size[1]);
    w[LOCAL_Z_PATCHES as usize] = pair(local_size[2], patch_count);
    w[PATCHES as usize] = patches;
    w[VALUES as usize] = values;
    w
}

/// Where one indirect draw's parameters come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawSource {
    /// A `VkDrawIndirectCommand` at this address.
    Draw(u64),
    /// A `VkDrawIndexedIndirectCommand` at this address.
    Indexed(u64),
    /// vkCmdDrawIndirectByteCountEXT.
    ByteCount {
        counter: u64,
        counter_offset: u32,
        vertex_stride: u32,
        instances: u32,
        first_instance: u32,
    },
}

/// One indirect draw as [`indirect_draw`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndirectDraw {
    pub source: DrawSource,
    /// `VkPrimitiveTopology` value (0–9).
    pub topology: u32,
    pub verts_per_prim: u32,
    /// Index size in bytes (indexed draws).
    pub index_size: u32,
    /// `(count address, this draw's index, maxDrawCount)`.
    pub draw_count: Option<(u64, u32, u32)>,
}

/// The push words of [`indirect_draw`].
pub fn draw_words(
    d: &IndirectDraw,
    patches: u64,
    patch_count: u32,
    values: u64,
) -> [u64; draw_words::COUNT as usize] {
    use draw_words::*;
    let mut w = [0u64; COUNT as usize];
    let (k, step) = topology_counts(d.topology);
    let topo = k | step << 8 | d.verts_per_prim << 16;
    let (mode, source) = match d.source {
        DrawSource::Draw(a) => (draw_mode::DRAW, a),
        DrawSource::Indexed(a) => (draw_mode::INDEXED, a),
        DrawSource::ByteCount {
            counter,
            counter_offset,
            vertex_stride,
            instances,
            first_instance,
        } => {
            w[BYTE_COUNT as usize] = pair(counter_offset, vertex_stride);
            w[INSTANCES as usize] = pair(instances, first_instance);
            (draw_mode::BYTE_COUNT, counter)
        }
    };
    w[SOURCE as usize] = source;
    w[MODE_TOPOLOGY as usize] = pair(mode, topo);
    if let Some((address, index, max)) = d.draw_count {
        w[DRAW_COUNT as usize] = address;
        w[DRAW_INDEX as usize] = pair(index, max);
    }
    let index_size = if mode == draw_mode::INDEXED {
        d.index_size
    } else {
        0
    };
    w[INDEX_PATCHES as usize] = pair(index_size, patch_count);
    w[PATCHES as usize] = patches;
    w[VALUES as usize] = values;
    w
}

fn load_u32(b: &mut Builder<'_>, base: Value, byte: u32) -> Value {
    let a = if byte == 0 {
        base
    } else {
        add_bytes(b, base, byte)
    };
    b.load(Intrinsic::LoadGlobal, ValueType::U32, &[a])
}

fn imm(b: &mut Builder<'_>, v: u32) -> Value {
    b.imm_u32(v)
}

fn select(b: &mut Builder<'_>, cond: Value, yes: Value, no: Value) -> Value {
    b.alu(AluOp::Bcsel, &[cond, yes, no])
}

/// `ceil(log2(v))` for v ≥ 1 (`hw::compute::bits_for`): the highest set
/// bit of `v − 1`, plus one (ufind_msb(0) is −1).
fn bits_for(b: &mut Builder<'_>, v: Value) -> Value {
    let one = imm(b, 1);
    let m = b.alu(AluOp::Isub, &[v, one]);
    let msb = b.alu_typed(AluOp::UfindMsb, ValueType::U32, &[m]);
    b.alu(AluOp::Iadd, &[msb, one])
}

/// Packs an Invocation (`hw::compute::WorkSize::pack`): `(invocation
/// words, fits)`. `graphics`: Workgroups Z shift 32 for one instance and
/// split "Min efficient"; compute: split = Workgroups X shift.
fn pack_invocation(
    b: &mut Builder<'_>,
    values: [Value; 6],
    graphics: bool,
) -> (Value, Value, Value) {
    let zero = imm(b, 0);
    let one = imm(b, 1);
    let mut packed = zero;
    let mut shifts = vec![zero];
    let mut fits = b.imm_bool(true);
    for (i, &v) in values.iter().enumerate() {
        let nonzero = b.alu(AluOp::Ine, &[v, zero]);
        fits = b.alu(AluOp::Iand, &[fits, nonzero]);
        let m = b.alu(AluOp::Isub, &[v, one]);
        let shifted = b.alu(AluOp::Ishl, &[m, shifts[i]]);
        packed = b.alu(AluOp::Ior, &[packed, shifted]);
        let bits = bits_for(b, v);
        let next = b.alu(AluOp::Iadd, &[shifts[i], bits]);
        shifts.push(next);
    }
    let limit = imm(b, 32);
    let in_range = b.alu(AluOp::Uge, &[limit, shifts[6]]);
    fits = b.alu(AluOp::Iand, &[fits, in_range]);
    // Size Y/Z shift fields are 5 bits wide (`hw::compute::invocation`).
    let limit5 = imm(b, 31);
    for s in [shifts[1], shifts[2]] {
        let ok = b.alu(AluOp::Uge, &[limit5, s]);
        fits = b.alu(AluOp::Iand, &[fits, ok]);
    }
    let z_shift = if graphics {
        let one_instance = b.alu(AluOp::Uge, &[one, values[5]]);
        select(b, one_instance, limit, shifts[5])
    } else {
        shifts[5]
    };
    let split = if graphics {
        imm(b, SPLIT_MIN_EFFICIENT)
    } else {
        shifts[3]
    };
    let mut word1 = shifts[1];
    for (v, at) in [
        (shifts[2], 5),
        (shifts[3], 10),
        (shifts[4], 16),
        (z_shift, 22),
        (split, 28),
    ] {
        let k = imm(b, at);
        let s = b.alu(AluOp::Ishl, &[v, k]);
        word1 = b.alu(AluOp::Ior, &[word1, s]);
    }
    (packed, word1, fits)
}

/// Stores `values[i]` at `VALUES + 4 i`, then applies the patch table
/// (module docs).
fn store_and_patch(
    b: &mut Builder<'_>,
    values_word: u32,
    patches_word: u32,
    count: Value,
    values: &[Value],
) {
    let scratch = uniform(b, ValueType::U64, 8 * values_word);
    for (i, &v) in values.iter().enumerate() {
        let a = add_bytes(b, scratch, 4 * i as u32);
        b.store(Intrinsic::StoreGlobal, &[v, a]);
    }
    let table = uniform(b, ValueType::U64, 8 * patches_word);
    let zero = imm(b, 0);
    let k = imm(b, PATCH_BYTES);
    let end = b.alu(AluOp::Imul, &[count, k]);
    for_range(b, zero, end, PATCH_BYTES, |b, off| {
        let entry = add_offset(b, table, off);
        let target = b.load(Intrinsic::LoadGlobal, ValueType::U64, &[entry]);
        let control = load_u32(b, entry, 8);
        let byte = imm(b, 0xFF);
        let shift = b.alu(AluOp::Iand, &[control, byte]);
        let eight = imm(b, 8);
        let width = b.alu(AluOp::Ushr, &[control, eight]);
        let width = b.alu(AluOp::Iand, &[width, byte]);
        let sixteen = imm(b, 16);
        let which = b.alu(AluOp::Ushr, &[control, sixteen]);
        let which = b.alu(AluOp::Iand, &[which, byte]);
        let two = imm(b, 2);
        let slot = b.alu(AluOp::Ishl, &[which, two]);
        let at = add_offset(b, scratch, slot);
        let value = b.load(Intrinsic::LoadGlobal, ValueType::U32, &[at]);
        // mask = all ones >> (32 − width), width 1–32.
        let thirty_two = imm(b, 32);
        let rest = b.alu(AluOp::Isub, &[thirty_two, width]);
        let ones = imm(b, u32::MAX);
        let mask = b.alu(AluOp::Ushr, &[ones, rest]);
        let field = b.alu(AluOp::Iand, &[value, mask]);
        let field = b.alu(AluOp::Ishl, &[field, shift]);
        let hole = b.alu(AluOp::Ishl, &[mask, shift]);
        let keep = b.alu(AluOp::Inot, &[hole]);
        let old = b.load(Intrinsic::LoadGlobal, ValueType::U32, &[target]);
        let old = b.alu(AluOp::Iand, &[old, keep]);
        let new = b.alu(AluOp::Ior, &[old, field]);
        b.store(Intrinsic::StoreGlobal, &[new, target]);
    });
}

/// The indirect-dispatch kernel (module docs; one invocation).
pub fn indirect_dispatch() -> Kernel {
    use dispatch_words::*;
    let mut s = kernel_shader("indirect_dispatch", [1, 1, 1]);
    let mut b = Builder::new(&mut s);
    let command = uniform(&mut b, ValueType::U64, 8 * COMMAND);
    let x = load_u32(&mut b, command, 0);
    let y = load_u32(&mut b, command, 4);
    let z = load_u32(&mut b, command, 8);
    let sx = uniform_u32(&mut b, LOCAL_XY, false);
    let sy = uniform_u32(&mut b, LOCAL_XY, true);
    let sz = uniform_u32(&mut b, LOCAL_Z_PATCHES, false);
    let count = uniform_u32(&mut b, LOCAL_Z_PATCHES, true);
    let (w0, w1, fits) = pack_invocation(&mut b, [sx, sy, sz, x, y, z], false);
    let compute = imm(&mut b, job_type::COMPUTE);
    let null = imm(&mut b, job_type::NULL);
    let ty = select(&mut b, fits, compute, null);
    store_and_patch(&mut b, VALUES, PATCHES, count, &[ty, w0, w1, x, y, z]);
    b.finish();
    Kernel {
        shader: s,
        words: COUNT,
    }
}

/// The indirect-draw kernel (module docs; one invocation).
pub fn indirect_draw() -> Kernel {
    use draw_words::*;
    let mut s = kernel_shader("indirect_draw", [1, 1, 1]);
    let mut b = Builder::new(&mut s);
    let u32t = ValueType::U32;
    let zero = imm(&mut b, 0);
    let one = imm(&mut b, 1);
    let source = uniform(&mut b, ValueType::U64, 8 * SOURCE);
    let mode = uniform_u32(&mut b, MODE_TOPOLOGY, false);
    let topo = uniform_u32(&mut b, MODE_TOPOLOGY, true);
    let byte_mode = imm(&mut b, draw_mode::BYTE_COUNT);
    let is_byte_count = b.alu(AluOp::Ieq, &[mode, byte_mode]);
    let indexed_mode = imm(&mut b, draw_mode::INDEXED);
    let is_indexed = b.alu(AluOp::Ieq, &[mode, indexed_mode]);
    // (count, instances, first, vertexOffset, firstInstance).
    let p = b.if_(
        is_byte_count,
        &[u32t; 5],
        |b| {
            let counter = load_u32(b, source, 0);
            let offset = uniform_u32(b, BYTE_COUNT, false);
            let stride = uniform_u32(b, BYTE_COUNT, true);
            let bytes = b.alu(AluOp::Isub, &[counter, offset]);
            let n = b.alu(AluOp::Udiv, &[bytes, stride]);
            let above = b.alu(AluOp::Uge, &[counter, offset]);
            let zero = b.imm_u32(0);
            let n = b.alu(AluOp::Bcsel, &[above, n, zero]);
            let instances = uniform_u32(b, INSTANCES, false);
            let first_instance = uniform_u32(b, INSTANCES, true);
            vec![n, instances, zero, zero, first_instance]
        },
        |b| {
            let count = load_u32(b, source, 0);
            let instances = load_u32(b, source, 4);
            let first = load_u32(b, source, 8);
            b.if_(
                is_indexed,
                &[u32t; 2],
                |b| {
                    let vo = load_u32(b, source, 12);
                    let fi = load_u32(b, source, 16);
                    vec![vo, fi]
                },
                |b| {
                    let fi = load_u32(b, source, 12);
                    let zero = b.imm_u32(0);
                    vec![zero, fi]
                },
            )
            .into_iter()
            .fold(vec![count, instances, first], |mut v, x| {
                v.push(x);
                v
            })
        },
    );
    let (mut count, mut instances, first, vertex_offset, first_instance) =
        (p[0], p[1], p[2], p[3], p[4]);
    // The count buffer (vkCmdDraw*IndirectCount).
    let count_address = uniform(&mut b, ValueType::U64, 8 * DRAW_COUNT);
    let zero64 = b.imm_u64(0);
    let has_count = b.alu(AluOp::Ine, &[count_address, zero64]);
    let runs = b.if_(
        has_count,
        &[ValueType::BOOL],
        |b| {
            let n = b.load(Intrinsic::LoadGlobal, ValueType::U32, &[count_address]);
            let max = uniform_u32(b, DRAW_INDEX, true);
            let n = b.alu(AluOp::Umin, &[n, max]);
            let index = uniform_u32(b, DRAW_INDEX, false);
            vec![b.alu(AluOp::Ult, &[index, n])]
        },
        |b| vec![b.imm_bool(true)],
    )[0];
    count = select(&mut b, runs, count, zero);
    instances = select(&mut b, runs, instances, zero);

    // Primitives per instance.
    let byte = imm(&mut b, 0xFF);
    let k = b.alu(AluOp::Iand, &[topo, byte]);
    let eight = imm(&mut b, 8);
    let step = b.alu(AluOp::Ushr, &[topo, eight]);
    let step = b.alu(AluOp::Iand, &[step, byte]);
    let sixteen = imm(&mut b, 16);
    let vpp = b.alu(AluOp::Ushr, &[topo, sixteen]);
    let enough = b.alu(AluOp::Uge, &[count, k]);
    let extra = b.alu(AluOp::Isub, &[count, k]);
    let ppi = b.alu(AluOp::Udiv, &[extra, step]);
    let ppi = b.alu(AluOp::Iadd, &[ppi, one]);
    let ppi = select(&mut b, enough, ppi, zero);
    let v = b.alu(AluOp::Imul, &[ppi, vpp]);
    let v_high = b.alu(AluOp::UmulHigh, &[ppi, vpp]);
    let v_fits = b.alu(AluOp::Ieq, &[v_high, zero]);

    // The instance index firstInstance + i must fit 32 bits.
    let instances_end = b.alu(AluOp::Iadd, &[first_instance, instances]);
    let ie_fits = b.alu(AluOp::Uge, &[instances_end, first_instance]);
    let index_size = uniform_u32(&mut b, INDEX_PATCHES, false);
    let four = imm(&mut b, 4);
    let wide_index = b.alu(AluOp::Ieq, &[index_size, four]);
    let end = b.alu(AluOp::Iadd, &[first, count]);
    let end_fits = b.alu(AluOp::Uge, &[end, first]);

    let (w0, w1, grid_fits) = pack_invocation(&mut b, [one, one, one, one, v, instances], true);
    let mut ok = grid_fits;
    for c in [v_fits, ie_fits] {
        ok = b.alu(AluOp::Iand, &[ok, c]);
    }
    // Plain draws also need firstVertex + vertexCount in 32 bits.
    let end_ok = b.alu(AluOp::Ior, &[end_fits, wide_index]);
    let end_ok = b.alu(AluOp::Ior, &[end_ok, is_indexed]);
    ok = b.alu(AluOp::Iand, &[ok, end_ok]);
    let ppi = select(&mut b, ok, ppi, zero);
    let instances = select(&mut b, ok, instances, zero);
    let vertex = imm(&mut b, job_type::VERTEX);
    let null = imm(&mut b, job_type::NULL);
    let ty = select(&mut b, ok, vertex, null);
    let base_vertex = select(&mut b, is_indexed, vertex_offset, first);
    let patches = uniform_u32(&mut b, INDEX_PATCHES, true);
    let mut values = vec![zero; VALUE_COUNT as usize];
    {
        use draw_value::*;
        values[PRIMS_PER_INSTANCE as usize] = ppi;
        values[FIRST as usize] = first;
        values[VERTEX_OFFSET as usize] = vertex_offset;
        values[INSTANCES as usize] = instances;
        values[FIRST_INSTANCE as usize] = first_instance;
        values[BASE_VERTEX as usize] = base_vertex;
        values[JOB_TYPE as usize] = ty;
        values[INVOCATION_0 as usize] = w0;
        values[INVOCATION_1 as usize] = w1;
        values[COUNT as usize] = count;
    }
    store_and_patch(&mut b, VALUES, PATCHES, patches, &values);
    b.finish();
    Kernel {
        shader: s,
        words: COUNT,
    }
}

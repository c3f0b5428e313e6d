//! VkPipelineCache: compiled shader stages found again by a hash of what
//! they were compiled from, and their serialised form.
//!
//! # What is cached
//! One entry per compiled shader stage ([`CompiledStage`]): the Bifrost
//! backend's output for each variant the pipeline uses (the whole
//! `ShaderBinary`) and the front half's layouts (`PushUniformLayout`,
//! `IoLayout`, the XFB strides, the compute local size). A hit skips the
//! front half and the backend; each pipeline still uploads the code into an
//! executable BO of its own (`jm::ShaderCode::upload`), so destroying a
//! cache never touches a live pipeline and BO lifetimes stay per pipeline.
//!
//! # The key
//! [`stage_key`]: SHA-256 over the SPIR-V bytes, the entry point name, the
//! stage, the specialization constants (by constant id, so the layout of
//! `pData` does not matter), the GPU architecture (v6/v7) and the front
//! half's options (robust buffer access on the device). That is every
//! input the compiled variants depend on **today**: the vertex variants do
//! not depend on the pipeline layout, vertex input or topology (those are
//! read at draw time from the layouts). When a variant comes to depend on
//! more (e.g. a rasterization variant keyed on the fragment interface),
//! that input must be hashed here too, and `KEY_VERSION` bumped.
//!
//! # Serialised data (vkGetPipelineCacheData)
//! The header the Vulkan spec requires ("Pipeline Cache", the
//! `VkPipelineCacheHeaderVersionOne` layout: 32 bytes, little-endian, header
//! size, `VK_PIPELINE_CACHE_HEADER_VERSION_ONE`, vendorID, deviceID,
//! pipelineCacheUUID), then ours, all little-endian:
//!
//! ```text
//! magic   "BVKC"
//! u32     FORMAT_VERSION
//! [u8;32] SHA-256 of everything after this field
//! u32     entry count
//! entries: [u8;32] key, u32 payload length, payload (see `write_stage`)
//! ```
//!
//! Initial data is used only when the header matches this device (vendor,
//! device, UUID — which changes with every driver build, see
//! `physical_device::pipeline_cache_uuid`), the magic and format version
//! match, the digest matches and every entry parses exactly; otherwise the
//! cache starts empty and the reason is logged. Reading never panics and
//! never allocates more than the input's size.
//!
//! # Thread safety
//! Lookups and inserts from pipelines created on several threads with the
//! same cache take a mutex; compilation runs outside it (two threads missing
//! on the same key both compile, the first insert wins). Merging snapshots
//! the sources, then locks the destination: no two cache locks are held at
//! once.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;

use super::device::DeviceCore;
use super::handle::Object;
use super::physical_device::VENDOR_ID_ARM;
use crate::compiler::bifrost::binary::{Preloads, ShaderBinary, ShaderStats, VaryingStore};
use crate::compiler::ir::Stage;
use crate::compiler::passes::lower_io::VaryingSlot;
use crate::compiler::passes::lower_sysvals::PushWord;
use crate::compiler::passes::lower_xfb::XFB_MAX_BUFFERS;
use crate::compiler::passes::{IoLayout, PushUniformLayout};
use crate::compiler::pipeline::FrontOptions;
use crate::compiler::spirv::SpecConstants;
use crate::hw::Arch;
use crate::util::sha256::Sha256;

/// A cache key: SHA-256 of a stage's inputs ([`stage_key`]).
pub type Key = [u8; 32];

/// Bump when the key's inputs change meaning.
const KEY_VERSION: u32 = 3;
/// Bump when the serialised entry format changes.
pub const FORMAT_VERSION: u32 = 3;
const MAGIC: &[u8; 4] = b"BVKC";
/// `VkPipelineCacheHeaderVersionOne` is 32 bytes.
pub const HEADER_SIZE: usize = 32;
/// Our fields after the header: magic, version, digest, entry count.
const PREFIX_SIZE: usize = 4 + 4 + 32 + 4;
const DIGEST_AT: usize = HEADER_SIZE + 8;

/// One compiled program: the backend's output and the front half's layouts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompiledProgram {
    pub binary: ShaderBinary,
    pub push: PushUniformLayout,
    pub io: IoLayout,
}

/// Everything a pipeline keeps of one compiled shader stage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompiledStage {
    /// The compute shader. (A vertex shader's rasterization variant is not
    /// compiled yet: `vk::pipeline`'s module doc.)
    pub main: Option<CompiledProgram>,
    /// A vertex shader's XFB variant, if it has XFB outputs or stores.
    pub xfb: Option<CompiledProgram>,
    pub xfb_strides: [u32; XFB_MAX_BUFFERS as usize],
    pub local_size: [u32; 3],
    /// The vertex shader writes memory: its XFB variant is also its
    /// vertex stage (`compiler::pipeline::FrontShaders::vertex_stores`).
    pub vertex_stores: bool,
}

/// The key of a shader stage (see the module doc for what it covers).
pub fn stage_key(
    arch: Arch,
    stage: Stage,
    spirv: &[u8],
    entry: &str,
    spec: &SpecConstants,
    options: FrontOptions,
) -> Key {
    let mut h = Sha256::new();
    let mut field = |bytes: &[u8]| {
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(b"bifrost-vk shader stage");
    field(&KEY_VERSION.to_le_bytes());
    field(match arch {
        Arch::V6 => b"v6",
        Arch::V7 => b"v7",
    });
    field(match stage {
        Stage::Vertex => b"vertex",
        Stage::Compute => b"compute",
        Stage::Fragment => b"fragment",
    });
    field(entry.as_bytes());
    field(spirv);
    field(&[u8::from(options.robust_buffer_access)]);
    field(&[u8::from(options.ubo_table)]);
    field(&[u8::from(options.contract)]);
    let mut ids: Vec<_> = spec.iter().collect();
    ids.sort_by_key(|(id, _)| **id);
    field(&(ids.len() as u64).to_le_bytes());
    for (id, bytes) in ids {
        field(&id.to_le_bytes());
        field(bytes);
    }
    h.finish()
}

pub struct PipelineCache {
    device_id: u32,
    uuid: [u8; vk::UUID_SIZE],
    entries: Mutex<BTreeMap<Key, Arc<CompiledStage>>>,
    /// Lookups that found / did not find an entry (a test hook reads them).
    hits: AtomicU64,
    misses: AtomicU64,
}

impl Object for PipelineCache {
    const TAG: u64 = 0x6276_6b5f_7063_6163; // "bvk_pcac"
}

impl PipelineCache {
    /// A cache for `core`'s device, filled from `initial` when it is
    /// compatible data (the module doc); otherwise empty.
    pub fn new(core: &DeviceCore, initial: &[u8]) -> PipelineCache {
        let cache = PipelineCache {
            device_id: core.product_id,
            uuid: core.pipeline_cache_uuid,
            entries: Mutex::new(BTreeMap::new()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        };
        if !initial.is_empty() {
            match cache.parse(initial) {
                Ok(entries) => {
                    log::debug!(
                        "pipeline cache: {} entries from initial data",
                        entries.len()
                    );
                    *cache.lock() = entries;
                }
                Err(why) => log::warn!("pipeline cache: initial data ignored: {why}"),
            }
        }
        cache
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<Key, Arc<CompiledStage>>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, key: &Key) -> Option<Arc<CompiledStage>> {
        let found = self.lock().get(key).cloned();
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Insert unless the key is there already (then the first stays).
    pub fn insert(&self, key: Key, stage: Arc<CompiledStage>) {
        self.lock().entry(key).or_insert(stage);
    }

    /// (hits, misses, entries).
    pub fn stats(&self) -> (u64, u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
            self.lock().len() as u64,
        )
    }

    /// Add `src`'s entries that this cache does not have.
    pub fn merge_from(&self, src: &PipelineCache) {
        if std::ptr::eq(self, src) {
            log::warn!("vkMergePipelineCaches: dstCache among pSrcCaches (invalid usage), skipped");
            return;
        }
        let snapshot: Vec<_> = src.lock().iter().map(|(k, v)| (*k, v.clone())).collect();
        let mut dst = self.lock();
        for (k, v) in snapshot {
            dst.entry(k).or_insert(v);
        }
    }

    fn header(&self) -> [u8; HEADER_SIZE] {
        let mut h = [0; HEADER_SIZE];
        h[0..4].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        h[4..8]
            .copy_from_slice(&(vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32).to_le_bytes());
        h[8..12].copy_from_slice(&VENDOR_ID_ARM.to_le_bytes());
        h[12..16].copy_from_slice(&self.device_id.to_le_bytes());
        h[16..32].copy_from_slice(&self.uuid);
        h
    }

    /// The serialised cache, holding at most `room` bytes (None: all of
    /// it). vkGetPipelineCacheData's rule is that whatever is written is
    /// valid initial data, so a short buffer gets the header and as many
    /// whole entries as fit (in key order), with the count and digest of
    /// those; a buffer too small for the header and our prefix gets
    /// nothing. Returns the bytes and whether every entry is in them.
    pub fn serialize(&self, room: Option<usize>) -> (Vec<u8>, bool) {
        let entries: Vec<(Key, Vec<u8>)> = self
            .lock()
            .iter()
            .map(|(k, v)| {
                let mut w = Writer::default();
                write_stage(&mut w, v);
                (*k, w.0)
            })
            .collect();
        let room = room.unwrap_or(usize::MAX);
        if room < HEADER_SIZE + PREFIX_SIZE {
            return (Vec::new(), false);
        }
        let mut size = HEADER_SIZE + PREFIX_SIZE;
        let mut n = 0;
        for (_, payload) in &entries {
            let len = 32 + 4 + payload.len();
            if size + len > room {
                break;
            }
            size += len;
            n += 1;
        }
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(&self.header());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&[0; 32]);
        out.extend_from_slice(&(n as u32).to_le_bytes());
        for (key, payload) in &entries[..n] {
            out.extend_from_slice(key);
            out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            out.extend_from_slice(payload);
        }
        let digest = crate::util::sha256::sha256(&out[DIGEST_AT + 32..]);
        out[DIGEST_AT..DIGEST_AT + 32].copy_from_slice(&digest);
        debug_assert_eq!(out.len(), size);
        (out, n == entries.len())
    }

    /// The entries of serialised data, or why it cannot be used.
    fn parse(&self, data: &[u8]) -> Result<BTreeMap<Key, Arc<CompiledStage>>, String> {
        let mut r = Reader(data);
        let header_size = r.u32()?;
        let version = r.u32()?;
        let vendor = r.u32()?;
        let device = r.u32()?;
        let uuid = r.bytes(vk::UUID_SIZE)?;
        if header_size as usize != HEADER_SIZE {
            return Err(format!("header size {header_size}, expected {HEADER_SIZE}"));
        }
        if version != vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32 {
            return Err(format!("header version {version}"));
        }
        if vendor != VENDOR_ID_ARM || device != self.device_id {
            return Err(format!(
                "made for vendor {vendor:#x} device {device:#x}, this is {VENDOR_ID_ARM:#x} {:#x}",
                self.device_id
            ));
        }
        if uuid != self.uuid {
            return Err("pipelineCacheUUID differs (another driver build)".into());
        }
        if r.bytes(4)? != MAGIC {
            return Err("not bifrost-vk cache data".into());
        }
        let format = r.u32()?;
        if format != FORMAT_VERSION {
            return Err(format!(
                "format version {format}, expected {FORMAT_VERSION}"
            ));
        }
        let digest = r.bytes(32)?;
        if crate::util::sha256::sha256(r.0) != digest {
            return Err("digest mismatch (corrupt or truncated data)".into());
        }
        let count = r.u32()?;
        let mut entries = BTreeMap::new();
        for _ in 0..count {
            let key: Key = r.bytes(32)?.try_into().map_err(|_| "key")?;
            let len = r.u32()? as usize;
            let mut payload = Reader(r.bytes(len)?);
            let stage = read_stage(&mut payload)?;
            if !payload.0.is_empty() {
                return Err("trailing bytes in an entry".into());
            }
            entries.insert(key, Arc::new(stage));
        }
        if !r.0.is_empty() {
            return Err("trailing bytes after the entries".into());
        }
        Ok(entries)
    }
}

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u32(n as u32);
    }
}

/// A cursor over untrusted bytes: every read is bounds-checked.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.0.len() {
            return Err("truncated".into());
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.bytes(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// A count of items of at least `min_size` bytes each: never more than
    /// the remaining bytes can hold, so allocations stay bounded.
    fn count(&mut self, min_size: usize) -> Result<usize, String> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size) > self.0.len() {
            return Err("count beyond the data".into());
        }
        Ok(n)
    }
    fn bool(&mut self) -> Result<bool, String> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(format!("bad boolean {b}")),
        }
    }
}

fn write_stage(w: &mut Writer, s: &CompiledStage) {
    w.u8(u8::from(s.main.is_some())
        | u8::from(s.xfb.is_some()) << 1
        | u8::from(s.vertex_stores) << 2);
    for v in s.xfb_strides.iter().chain(&s.local_size) {
        w.u32(*v);
    }
    for p in s.main.iter().chain(&s.xfb) {
        write_program(w, p);
    }
}

fn read_stage(r: &mut Reader<'_>) -> Result<CompiledStage, String> {
    let flags = r.u8()?;
    if flags > 7 {
        return Err(format!("bad stage flags {flags:#x}"));
    }
    let mut s = CompiledStage {
        vertex_stores: flags & 4 != 0,
        ..CompiledStage::default()
    };
    for v in s.xfb_strides.iter_mut().chain(&mut s.local_size) {
        *v = r.u32()?;
    }
    if flags & 1 != 0 {
        s.main = Some(read_program(r)?);
    }
    if flags & 2 != 0 {
        s.xfb = Some(read_program(r)?);
    }
    Ok(s)
}

/// Bits 0–1 the vertex preloads, 2–9 the compute ones.
fn preload_bits(p: &Preloads) -> u32 {
    (p.vertex_bits() | p.compute_bits() << 2) as u32
}

fn preloads_of(bits: u32) -> Result<Preloads, String> {
    if bits >> 10 != 0 {
        return Err(format!("bad preload bits {bits:#x}"));
    }
    let b = |i: u32| bits & (1 << i) != 0;
    Ok(Preloads {
        vertex_id: b(0),
        instance_id: b(1),
        local_invocation_xy: b(2),
        local_invocation_z: b(3),
        workgroup: [b(4), b(5), b(6)],
        global_invocation: [b(7), b(8), b(9)],
    })
}

fn write_program(w: &mut Writer, p: &CompiledProgram) {
    let b = &p.binary;
    w.len(b.code.len());
    w.0.extend_from_slice(&b.code);
    w.u32(b.work_registers);
    w.u32(preload_bits(&b.preloads));
    w.u32(b.uniform_words);
    w.u32(b.tls_size);
    w.u8(u8::from(b.uses_barrier));
    w.u32(b.shared_size);
    w.u32(b.attribute_count);
    w.len(b.ubos.len());
    for &(set, binding) in &b.ubos {
        w.u32(set);
        w.u32(binding);
    }
    w.len(b.buffers.len());
    for &(set, binding) in &b.buffers {
        w.u32(set);
        w.u32(binding);
    }
    w.len(b.varyings.len());
    for v in &b.varyings {
        w.u32(v.index);
        w.u8(v.words);
    }
    let st = &b.stats;
    for v in [
        st.instructions,
        st.tuples,
        st.clauses,
        st.quadwords,
        st.spills,
        st.fills,
    ] {
        w.u32(v);
    }
    w.len(p.push.words.len());
    for word in &p.push.words {
        let (tag, v) = match *word {
            PushWord::Sysval(v) => (0, v),
            PushWord::PushConstant(v) => (1, v),
        };
        w.u8(tag);
        w.u32(v);
    }
    w.len(p.io.attributes.len());
    for &a in &p.io.attributes {
        w.u32(a);
    }
    w.len(p.io.varyings.len());
    for &(slot, component) in &p.io.varyings {
        let (tag, v) = match slot {
            VaryingSlot::Position => (0, 0),
            VaryingSlot::PointSize => (1, 0),
            VaryingSlot::Generic(g) => (2, g),
        };
        w.u8(tag);
        w.u32(v);
        w.u8(component);
    }
}

fn read_program(r: &mut Reader<'_>) -> Result<CompiledProgram, String> {
    let code_len = r.count(1)?;
    let code = r.bytes(code_len)?.to_vec();
    let work_registers = r.u32()?;
    let preloads = preloads_of(r.u32()?)?;
    let uniform_words = r.u32()?;
    let tls_size = r.u32()?;
    let uses_barrier = r.bool()?;
    let shared_size = r.u32()?;
    let attribute_count = r.u32()?;
    let mut ubos = Vec::new();
    for _ in 0..r.count(8)? {
        ubos.push((r.u32()?, r.u32()?));
    }
    let mut buffers = Vec::new();
    for _ in 0..r.count(8)? {
        buffers.push((r.u32()?, r.u32()?));
    }
    let mut varyings = Vec::new();
    for _ in 0..r.count(5)? {
        let index = r.u32()?;
        let words = r.u8()?;
        if !(1..=4).contains(&words) {
            return Err(format!("bad varying size {words}"));
        }
        varyings.push(VaryingStore { index, words });
    }
    let mut s = [0; 6];
    for v in &mut s {
        *v = r.u32()?;
    }
    let stats = ShaderStats {
        instructions: s[0],
        tuples: s[1],
        clauses: s[2],
        quadwords: s[3],
        spills: s[4],
        fills: s[5],
    };
    let mut push = PushUniformLayout::default();
    for _ in 0..r.count(5)? {
        let tag = r.u8()?;
        let v = r.u32()?;
        push.words.push(match tag {
            0 => PushWord::Sysval(v),
            1 => PushWord::PushConstant(v),
            _ => return Err(format!("bad push word tag {tag}")),
        });
    }
    let mut io = IoLayout::default();
    for _ in 0..r.count(4)? {
        io.attributes.push(r.u32()?);
    }
    for _ in 0..r.count(6)? {
        let tag = r.u8()?;
        let v = r.u32()?;
        let component = r.u8()?;
        let slot = match tag {
            0 => VaryingSlot::Position,
            1 => VaryingSlot::PointSize,
            2 => VaryingSlot::Generic(v),
            _ => return Err(format!("bad varying slot tag {tag}")),
        };
        io.varyings.push((slot, component));
    }
    // What the job emitter relies on (module docs of `compiler::bifrost::binary`).
    if work_registers > 64 || uniform_words > 127 + 64 || push.words.len() > 127 || ubos.len() > 255
    {
        return Err("register or uniform counts out of range".into());
    }
    Ok(CompiledProgram {
        binary: ShaderBinary {
            code,
            work_registers,
            preloads,
            uniform_words,
            tls_size,
            uses_barrier,
            shared_size,
            attribute_count,
            ubo_count: ubos.len() as u32,
            ubos,
            buffers,
            varyings,
            // Graphics pipelines do not compile fragment shaders yet.
            fragment: None,
            stats,
        },
        push,
        io,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(device_id: u32) -> PipelineCache {
        PipelineCache {
            device_id,
            uuid: [7; 16],
            entries: Mutex::new(BTreeMap::new()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn sample(n: u8) -> CompiledStage {
        let program = CompiledProgram {
            binary: ShaderBinary {
                code: (0..200).map(|i| i as u8 ^ n).collect(),
                work_registers: 23,
                preloads: Preloads {
                    vertex_id: true,
                    workgroup: [false, true, false],
                    global_invocation: [true, false, true],
                    ..Default::default()
                },
                uniform_words: 9,
                tls_size: 64,
                uses_barrier: true,
                shared_size: 1024,
                attribute_count: 2,
                ubo_count: 1,
                ubos: vec![(2, 5)],
                buffers: vec![(0, 1), (1, 0)],
                varyings: vec![VaryingStore { index: 3, words: 4 }],
                fragment: None,
                stats: ShaderStats {
                    instructions: 1,
                    tuples: 2,
                    clauses: 3,
                    quadwords: 4,
                    spills: 5,
                    fills: 6,
                },
            },
            push: PushUniformLayout {
                words: vec![PushWord::Sysval(2), PushWord::PushConstant(0)],
            },
            io: IoLayout {
                attributes: vec![0, 5],
                varyings: vec![
                    (VaryingSlot::Position, 0),
                    (VaryingSlot::Generic(2), 1),
                    (VaryingSlot::PointSize, 0),
                ],
            },
        };
        CompiledStage {
            main: n.is_multiple_of(2).then(|| program.clone()),
            xfb: Some(program),
            xfb_strides: [32, 8, 0, u32::from(n)],
            local_size: [8, 1, 1],
            vertex_stores: n == 1,
        }
    }

    fn filled() -> PipelineCache {
        let c = cache(0x7212);
        for n in 0..3 {
            c.insert([n; 32], Arc::new(sample(n)));
        }
        c
    }

    #[test]
    fn round_trip() {
        let c = filled();
        let (data, complete) = c.serialize(None);
        assert!(complete);
        let back = c.parse(&data).unwrap();
        assert_eq!(back.len(), 3);
        for n in 0..3 {
            assert_eq!(*back[&[n; 32]], sample(n));
        }
        // Deterministic: the same bytes twice.
        assert_eq!(c.serialize(None).0, data);
    }

    #[test]
    fn short_room_gives_whole_entries() {
        let c = filled();
        let (full, _) = c.serialize(None);
        for room in 0..=full.len() {
            let (data, complete) = c.serialize(Some(room));
            assert!(data.len() <= room);
            assert_eq!(complete, room == full.len(), "room {room}");
            if data.is_empty() {
                assert!(room < HEADER_SIZE + PREFIX_SIZE);
                continue;
            }
            let parsed = c.parse(&data).expect("any data written is valid");
            assert!(parsed.len() <= 3);
        }
    }

    #[test]
    fn every_truncation_and_bit_flip_is_refused() {
        let c = filled();
        let (data, _) = c.serialize(None);
        for len in 0..data.len() {
            assert!(c.parse(&data[..len]).is_err(), "truncated to {len}");
        }
        for bit in 0..data.len() * 8 {
            let mut d = data.clone();
            d[bit / 8] ^= 1 << (bit % 8);
            assert!(c.parse(&d).is_err(), "bit {bit} flipped");
        }
        assert!(cache(0x6221).parse(&data).is_err(), "another device");
    }

    #[test]
    fn keys_cover_every_input() {
        let spec = SpecConstants::new();
        const O: FrontOptions = FrontOptions {
            robust_buffer_access: false,
            ubo_table: true,
            contract: true,
        };
        let robust = FrontOptions {
            robust_buffer_access: true,
            ..O
        };
        let no_table = FrontOptions {
            ubo_table: false,
            ..O
        };
        let exact = FrontOptions {
            contract: false,
            ..O
        };
        let base = stage_key(Arch::V7, Stage::Compute, b"spirv", "main", &spec, O);
        assert_eq!(
            base,
            stage_key(Arch::V7, Stage::Compute, b"spirv", "main", &spec, O)
        );
        let mut spec1 = SpecConstants::new();
        spec1.insert(0, vec![1, 0, 0, 0]);
        for other in [
            stage_key(Arch::V6, Stage::Compute, b"spirv", "main", &spec, O),
            stage_key(Arch::V7, Stage::Vertex, b"spirv", "main", &spec, O),
            stage_key(Arch::V7, Stage::Compute, b"spirV", "main", &spec, O),
            stage_key(Arch::V7, Stage::Compute, b"spirv", "main2", &spec, O),
            stage_key(Arch::V7, Stage::Compute, b"spirv", "main", &spec1, O),
            stage_key(Arch::V7, Stage::Compute, b"spirv", "main", &spec, robust),
            stage_key(Arch::V7, Stage::Compute, b"spirv", "main", &spec, no_table),
            stage_key(Arch::V7, Stage::Compute, b"spirv", "main", &spec, exact),
            // Field boundaries are part of the hash.
            stage_key(Arch::V7, Stage::Compute, b"spirvm", "ain", &spec, O),
        ] {
            assert_ne!(base, other);
        }
    }
}

//! Workgroup-local storage (shared memory) of COMPUTE jobs on the simulated
//! G52 (2 cores) and G72 (3 cores): the emitter sizes it as Mesa does
//! (next_pow2(max(bytes, 128)) per instance, npot(x)·npot(y)·npot(z)
//! instances per core, one block per core id), the simulator puts each
//! workgroup in its core's block (`kmod::sim::shader::Wls`), and several
//! workgroups' instances never overlap: each workgroup reads its shared
//! memory before writing it (and finds the emitter's zeros, not another
//! workgroup's data), and after the job every workgroup's data sits intact
//! in a slot of its own inside the buffer. A descriptor that programs too
//! few instances faults.

use std::collections::BTreeSet;

use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::Shader;
use bifrost_vk::hw::draw::dcd;
use bifrost_vk::hw::layout::{bytes_from_words, words_from_bytes};
use bifrost_vk::hw::layouts;
use bifrost_vk::hw::storage::local_storage as ls;
use bifrost_vk::jm::{ComputeJob, add_compute_job};
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

/// Each of 4 invocations: `before` = shared[lid] (never written by this
/// workgroup yet), shared[lid] = marker(workgroup, lid), barrier, then
/// `after` = shared[(lid + 1) % 4]; both stored at out[index] (8 bytes),
/// index = ((z·8 + y)·8 + x)·4 + lid.
const SHADER: &str = r#"shader compute "wls_instances" {
  info local_size 4 1 1 shared 16 push 0
  values 48
  %0:i32x3 = load_sysval sysval=local_invocation_id
  %1:i32 = swizzle %0.x
  %2:i32x3 = load_sysval sysval=workgroup_id
  %3:i32 = swizzle %2.x
  %4:i32 = swizzle %2.y
  %5:i32 = swizzle %2.z
  %6:i32 = const 0x2
  %7:i32 = ishl %1, %6
  %8:i32 = load_shared %7
  %9:i32 = const 0x8
  %10:i32 = ishl %5, %9
  %11:i32 = iadd %10, %4
  %12:i32 = ishl %11, %9
  %13:i32 = iadd %12, %3
  %14:i32 = const 0x4
  %15:i32 = ishl %13, %14
  %16:i32 = iadd %15, %1
  %17:i32 = const 0x1
  %18:i32 = iadd %16, %17
  store_shared %18, %7
  barrier
  %19:i32 = iadd %1, %17
  %20:i32 = const 0x3
  %21:i32 = iand %19, %20
  %22:i32 = ishl %21, %6
  %23:i32 = load_shared %22
  %24:i32 = const 0x3
  %25:i32 = ishl %5, %24
  %26:i32 = iadd %25, %4
  %27:i32 = ishl %26, %24
  %28:i32 = iadd %27, %3
  %29:i32 = ishl %28, %6
  %30:i32 = iadd %29, %1
  %31:i32 = ishl %30, %24
  %32:i64 = u2u %31
  %33:i64 = load_uniform offset=0
  %34:i64 = iadd %33, %32
  %35:i32x2 = vec %8, %23
  store_global %35, %34
}"#;

/// What workgroup `wg` stores in shared word `lid` (never 0).
fn marker(wg: [u32; 3], lid: u32) -> u32 {
    (((wg[2] << 8 | wg[1]) << 8 | wg[0]) << 4 | lid) + 1
}

fn core_id_range(model: SimModel) -> u64 {
    match model {
        SimModel::G52 => 2,
        SimModel::G72 => 3,
    }
}

/// What a run left: the shader's output words, the local storage fields
/// and the whole WLS buffer as Mesa's rule sizes it.
struct WlsRun {
    out: Vec<u32>,
    instances: u64,
    size: u64,
    wls: Vec<u32>,
}

/// Runs [`SHADER`] over `groups`; `instances`, when given, overwrites the
/// descriptor's `WLS Instances` before the submit. Err: the fault status.
fn run(model: SimModel, groups: [u32; 3], instances: Option<u64>) -> Result<WlsRun, u32> {
    let mut gpu = SimGpu::new(model);
    let shader = Shader::parse(SHADER).unwrap_or_else(|e| panic!("{e:?}"));
    let options = Options {
        arch: model.arch().into(),
        ..Options::default()
    };
    let binary = compile(&shader, options).unwrap();
    assert!(binary.shared_size > 0 && binary.uses_barrier);
    let out = gpu.alloc(8 * 8 * 8 * 8 * 4);
    let push = [out.va];
    let code = gpu.upload(&binary);
    let job = ComputeJob {
        binary: &binary,
        code,
        push_uniforms: &push,
        local_size: [4, 1, 1],
        groups,
        ubos: &[],
        attributes: None,
        push_buffer: None,
    };
    let arch = gpu.arch();
    let mut fields = None;
    let r = gpu.run_chain_edited(
        |chain, pool, arch| add_compute_job(chain, pool, arch, &job, [0, 0]).map(|_| true),
        |sim, job_va| {
            let l = layouts(arch);
            let mut bytes = vec![0u8; 4 * l.draw.words as usize];
            let draw_va = job_va + l.compute_job.section("Draw").unwrap().offset as u64;
            sim.read_gpu(draw_va, &mut bytes).unwrap();
            let storage = dcd::THREAD_STORAGE.get(&words_from_bytes(&bytes));
            let mut bytes = vec![0u8; 4 * l.local_storage.words as usize];
            sim.read_gpu(storage, &mut bytes).unwrap();
            let mut lsw = words_from_bytes(&bytes);
            assert_eq!(ls::WLS_SIZE_BASE.get(&lsw), 0);
            let (base, count) = (ls::WLS_BASE_POINTER.get(&lsw), ls::WLS_INSTANCES.get(&lsw));
            let size = 1u64 << (ls::WLS_SIZE_SCALE.get(&lsw) - 1);
            // The emitter allocated the whole buffer Mesa's rule sizes: what
            // it allocated next (the descriptor, the job) lies outside it.
            let end = base + size * count * core_id_range(model);
            for va in [storage, job_va] {
                assert!(
                    va >= end || va < base,
                    "{va:#x} inside WLS {base:#x}..{end:#x}"
                );
            }
            fields = Some((base, count, size));
            if let Some(n) = instances {
                ls::WLS_INSTANCES.set(&mut lsw, n).unwrap();
                sim.write_gpu(storage, &bytes_from_words(&lsw)).unwrap();
            }
        },
    );
    if let Err(e) = r {
        return Err(e.fault().map_or(0, |f| f.status));
    }
    let (base, instances, size) = fields.unwrap();
    let bytes = gpu.read_gpu(base, (size * instances * core_id_range(model)) as usize);
    Ok(WlsRun {
        out: gpu.read_u32s(out.va, 2 * 8 * 8 * 8 * 4),
        instances,
        size,
        wls: words_from_bytes(&bytes),
    })
}

fn workgroups(groups: [u32; 3]) -> Vec<[u32; 3]> {
    let mut v = Vec::new();
    for z in 0..groups[2] {
        for y in 0..groups[1] {
            for x in 0..groups[0] {
                v.push([x, y, z]);
            }
        }
    }
    v
}

#[test]
fn workgroups_on_several_cores_get_instances_of_their_own() {
    for model in [SimModel::G52, SimModel::G72] {
        for groups in [[5u32, 3, 1], [3, 2, 2], [7, 1, 1]] {
            let what = format!("{model:?} {groups:?}");
            let r = run(model, groups, None).unwrap_or_else(|s| panic!("{what}: fault {s:#x}"));
            // Mesa's sizing: 128 bytes (16 rounded up), npot product per core.
            let npot: u64 = groups
                .iter()
                .map(|&g| u64::from(g).next_power_of_two())
                .product();
            assert_eq!((r.size, r.instances), (128, npot), "{what}");

            // Every invocation found zeros before writing, and its
            // neighbour's marker after the barrier.
            for wg in workgroups(groups) {
                for lid in 0..4 {
                    let i = ((((wg[2] * 8 + wg[1]) * 8 + wg[0]) * 4 + lid) * 2) as usize;
                    assert_eq!(
                        r.out[i..i + 2],
                        [0, marker(wg, (lid + 1) % 4)],
                        "{what}: workgroup {wg:?} lane {lid}"
                    );
                }
            }

            // After the job, each workgroup's four markers sit intact in a
            // slot of their own, every other word of the buffer is zero.
            let per_slot = (r.size / 4) as usize;
            let mut found = BTreeSet::new();
            let mut blocks = BTreeSet::new();
            let mut highest = 0;
            for (slot, words) in r.wls.chunks(per_slot).enumerate() {
                if words.iter().all(|&w| w == 0) {
                    continue;
                }
                let first = words[0] - 1;
                let wg = [first >> 4 & 0xff, first >> 12 & 0xff, first >> 20 & 0xff];
                let want: Vec<u32> = (0..4).map(|lid| marker(wg, lid)).collect();
                assert_eq!(words[..4], want[..], "{what}: slot {slot}");
                assert!(words[4..].iter().all(|&w| w == 0), "{what}: slot {slot}");
                assert!(found.insert(wg), "{what}: {wg:?} in two slots");
                blocks.insert(slot as u64 / r.instances);
                highest = slot;
            }
            assert_eq!(found.len(), workgroups(groups).len(), "{what}");
            // Workgroups ran on every core (one block per core id) ...
            assert_eq!(blocks.len() as u64, core_id_range(model), "{what}");
            // ... and reach past what one instance per workgroup (rounded
            // to a power of two) without the core factor would hold.
            let count: u64 = groups.iter().map(|&g| u64::from(g)).product();
            assert!(highest as u64 >= count.next_power_of_two(), "{what}");
        }
    }
}

#[test]
fn too_few_wls_instances_fault() {
    for model in [SimModel::G52, SimModel::G72] {
        // 5×3 workgroups need instances 0..=20 of a core (x + 8y); a
        // descriptor programming 2 leaves workgroup (2, 0, 0) without one.
        assert_eq!(
            run(model, [5, 3, 1], Some(2)).err(),
            Some(0x5a),
            "{model:?}"
        );
        // One more than the highest instance used is enough.
        assert!(run(model, [5, 3, 1], Some(32)).is_ok(), "{model:?}");
        assert!(run(model, [2, 1, 1], Some(2)).is_ok(), "{model:?}");
    }
}

//! Mesa's own compute binaries, replayed from PanVk's job-chain snapshots
//! (the reference vectors, docs/DESIGN.md) on the simulated G52, with inputs
//! written into the snapshot's buffers and the results checked against what
//! the GLSL computes. Skipped when the reference data is missing.

use bifrost_vk::hw::snapshot::Snapshot;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

fn snapshot(name: &str) -> Option<Snapshot> {
    let path = format!(
        "{}/{name}.snap",
        bifrost_vk::reference_path!("mesa-g52/jobchains")
    );
    let data = std::fs::read(&path).ok()?;
    Some(Snapshot::parse(&data).expect("snapshot parses"))
}

fn load(model: SimModel, name: &str) -> Option<(SimGpu, u64)> {
    let snap = snapshot(name)?;
    let mut gpu = SimGpu::new(model);
    let jc = gpu.load_snapshot(&snap).expect("snapshot maps");
    Some((gpu, jc))
}

fn u64_at(gpu: &SimGpu, va: u64) -> u64 {
    let b = gpu.read(va, 8);
    u64::from_le_bytes(b.try_into().unwrap())
}

/// PanVk v7 storage-buffer descriptor: 32 bytes, address then size.
fn patch_ssbo(gpu: &SimGpu, desc: u64, va: u64, size: u32) {
    gpu.write(desc, &va.to_le_bytes());
    gpu.write(desc + 8, &size.to_le_bytes());
}

#[test]
fn cs_shared_barrier_sums_a_workgroup() {
    let Some((mut gpu, jc)) = load(SimModel::G52, "cs_shared_barrier") else {
        eprintln!("skipped: reference data missing");
        return;
    };
    // Push word 2 is descriptor set 0: binding 0 = In, binding 1 = Out.
    let set0 = u64_at(&gpu, 0xf7fd3020 + 16);
    let input = u64_at(&gpu, set0);
    let output = u64_at(&gpu, set0 + 32);
    let x: Vec<f32> = (0..64).map(|i| (i as f32) * 0.5 + 1.0).collect();
    gpu.write_f32s(input, &x);
    let run = gpu.submit(jc).expect("chain runs");
    assert_eq!(run.counters.hazards, 0, "reads before scoreboard waits");
    let sum: f32 = x.iter().sum();
    assert_eq!(gpu.read_f32s(output, 1)[0], sum);
    assert_eq!(run.jobs.len(), 1);
    assert_eq!(run.counters.threads, 64);
    assert!(run.counters.instructions > 64 * 20, "{:?}", run.counters);
    eprintln!("cs_shared_barrier: {:?}", run.counters);
}

#[test]
fn cs_ubo_push_both_jobs() {
    let Some((mut gpu, jc)) = load(SimModel::G52, "cs_ubo_push") else {
        eprintln!("skipped: reference data missing");
        return;
    };
    // Job 2's push word 2 is set 0: binding 0 = the UBO descriptor
    // (Uniform Buffer format), binding 1 = the output SSBO.
    let set0 = u64_at(&gpu, 0xf7fd3020 + 16);
    let ubo_desc = u64_at(&gpu, set0);
    let ubo = ((ubo_desc >> 12) << 4) & ((1 << 52) - 1);
    let out = u64_at(&gpu, set0 + 32);
    // std140 Params: mat4 m (columns), vec4 bias, uvec4 sel, vec4 table[16].
    let m: [[f32; 4]; 4] = [
        [1.0, 2.0, 3.0, 4.0],
        [0.5, -1.0, 0.25, 2.0],
        [3.0, 0.0, -2.0, 1.0],
        [-1.0, 4.0, 0.5, 0.125],
    ];
    let bias = [0.5f32, -0.5, 1.5, 2.0];
    let sel = 5u32;
    let table: Vec<[f32; 4]> = (0..16)
        .map(|k| [k as f32, 10.0 * k as f32, -(k as f32), 0.25 * k as f32])
        .collect();
    let mut words: Vec<f32> = m.iter().flatten().copied().collect();
    words.extend(bias);
    gpu.write_f32s(ubo, &words);
    gpu.write_u32s(ubo + 80, &[sel, 0, 0, 0]);
    let t: Vec<f32> = table.iter().flatten().copied().collect();
    gpu.write_f32s(ubo + 96, &t);
    let run = gpu.submit(jc).expect("chain runs");
    assert_eq!(run.counters.hazards, 0, "reads before scoreboard waits");
    assert_eq!(run.jobs.len(), 2, "descriptor copy + dispatch");
    let got = gpu.read_f32s(out, 64 * 4);
    let (scale, offset) = (2.0f32, [0.0f32, 0.0]);
    for i in 0..64usize {
        let p = [i as f32 * scale, offset[0], offset[1], 1.0];
        for c in 0..4 {
            let mut r = 0.0f32;
            for (k, col) in m.iter().enumerate() {
                r += col[c] * p[k];
            }
            let expect = r + bias[c] + table[(i + sel as usize) & 15][c];
            let g = got[4 * i + c];
            assert!(
                (g - expect).abs() <= 1e-4 * expect.abs().max(1.0),
                "o[{i}].{c} = {g}, GLSL says {expect}"
            );
        }
    }
    eprintln!("cs_ubo_push: {:?}", run.counters);
}

#[test]
fn a_v7_snapshot_is_refused_by_a_v6_gpu() {
    // Its renderer state sets v7-only bits (register allocation), which are
    // reserved on v6: the job faults instead of running something else.
    let Some((mut gpu, jc)) = load(SimModel::G72, "cs_shared_barrier") else {
        return;
    };
    let err = gpu.submit(jc).unwrap_err();
    assert_eq!(err.fault().unwrap().status, 0x40, "{err}");
}

#[test]
fn cs_ssbo_vec4_loads_stores_and_atomics() {
    let Some((mut gpu, jc)) = load(SimModel::G52, "cs_ssbo_vec4") else {
        eprintln!("skipped: reference data missing");
        return;
    };
    let set0 = u64_at(&gpu, 0xf7fd1020 + 16);
    let set1 = u64_at(&gpu, 0xf7fd1020 + 24);
    let a = u64_at(&gpu, set0);
    let b = u64_at(&gpu, set0 + 32);
    // big[] (4128-byte stride) and c[i + 1024] reach far past the 4 KiB
    // buffers PanVk made: give those bindings buffers large enough.
    let big = gpu.alloc(64 * 4128);
    let c = gpu.alloc((1024 + 64) * 16);
    patch_ssbo(&gpu, set0 + 64, big.va, big.size as u32);
    patch_ssbo(&gpu, set1, c.va, c.size as u32);
    let av: Vec<[f32; 4]> = (0..64)
        .map(|i| [i as f32, 1.0 + i as f32 * 0.5, -2.0, 0.25 * i as f32])
        .collect();
    gpu.write_f32s(a, &av.iter().flatten().copied().collect::<Vec<_>>());
    let scalars: Vec<f32> = (0..64).map(|i| 3.0 - i as f32 * 0.125).collect();
    gpu.write_f32s(b + 4, &scalars);
    for i in 0..64u64 {
        let head = [i as f32, 2.0 * i as f32, 1.0, -1.0];
        gpu.write_f32s(big.va + i * 4128, &head);
        // data[i] of element i (what big[i].data[i & 1023] reads).
        gpu.write_u32s(big.va + i * 4128 + 16 + 4 * i, &[7 * i as u32 + 1]);
    }
    let run = gpu.submit(jc).expect("chain runs");
    assert_eq!(run.counters.hazards, 0, "reads before scoreboard waits");
    assert_eq!(
        gpu.read_u32s(b, 1)[0],
        64,
        "atomicAdd counted every invocation"
    );
    let cv = gpu.read_f32s(c.va, (1024 + 64) * 4);
    let sv = gpu.read_f32s(b + 4, 64);
    for i in 0..64usize {
        let v = av[i];
        let s = scalars[i];
        if i == 0 {
            // The invocation whose atomicAdd returned 0 overwrote c[0].
            assert_eq!(&cv[0..4], &[1.0; 4]);
        } else {
            let expect = v.map(|x| x * s);
            assert_eq!(&cv[4 * i..4 * i + 4], &expect, "c[{i}]");
        }
        let hi = 4 * (i + 1024);
        assert_eq!(&cv[hi..hi + 4], &[0.0, v[0], v[3], 0.0], "c[{i}+1024]");
        assert_eq!(sv[i], v[0] + v[1] + v[2] + v[3], "scalars[{i}]");
        let tail = gpu.read_f32s(big.va + i as u64 * 4128 + 4112, 4);
        let d = (7 * i as u32 + 1) as f32;
        let head = [i as f32, 2.0 * i as f32, 1.0, -1.0];
        assert_eq!(tail, head.map(|h| h + d).to_vec(), "big[{i}].tail");
    }
    eprintln!("cs_ssbo_vec4: {:?}", run.counters);
}

#[test]
fn malformed_descriptors_fault_the_job() {
    // A null shader pointer in the renderer state.
    let Some((mut gpu, jc)) = load(SimModel::G52, "cs_shared_barrier") else {
        return;
    };
    let rsd = u64_at(&gpu, 0xf7fd3040 + 64 + 14 * 4); // Draw.State (word 14)
    gpu.write(rsd, &0u64.to_le_bytes());
    let err = gpu.submit(jc).unwrap_err();
    assert_eq!(err.fault().unwrap().status, 0x40, "{err}");
    // A reserved bit in the Draw descriptor.
    let Some((mut gpu, jc)) = load(SimModel::G52, "cs_shared_barrier") else {
        return;
    };
    let w0 = gpu.read_u32s(0xf7fd3040 + 64, 1)[0];
    gpu.write_u32s(0xf7fd3040 + 64, &[w0 | 1 << 2]);
    let err = gpu.submit(jc).unwrap_err();
    assert_eq!(err.fault().unwrap().status, 0x40, "{err}");
    // Still fine afterwards.
    let Some((mut gpu, jc)) = load(SimModel::G52, "cs_shared_barrier") else {
        return;
    };
    gpu.submit(jc).expect("the untouched snapshot runs");
}

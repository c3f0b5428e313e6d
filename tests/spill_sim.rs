//! Register spilling on the simulated shader core: programs that need more
//! than the 55 allocatable registers compile with TLS spills, run as
//! COMPUTE jobs over several workgroups on G52 (v7) and G72 (v6), and write
//! exactly the bytes `ir::interp` computes.

#[path = "support/differential.rs"]
mod differential;

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::Shader;
use bifrost_vk::compiler::ir::interp::{DrawState, InvocationIds, Memory, run_invocation};
use bifrost_vk::jm::{AttributeTables, VertexJob};
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

/// Compiles `text`, runs it on both models and the interpreter over
/// `groups` workgroups (FAU word 0 = the buffer's address) and compares the
/// buffer byte for byte. Returns the binary.
fn differential(text: &str, init: &[u8], groups: [u32; 3]) -> ShaderBinary {
    differential::differential_run(text, |va| vec![va], init, groups).0
}

/// Text of a shader: each thread (compute invocation, or vertex with
/// `local == 0`) loads `vec4s` vec4s from its 16·vec4s-byte input block,
/// derives `extra` more values from them, keeps them all live to the end
/// and stores `vec4s` vec4 sums (each input mixed with a rotating set of
/// derived values) to its block of the output area at byte `out`.
fn straight_line(vec4s: u32, extra: u32, local: u32, out: u32) -> String {
    let mut t = String::new();
    let mut next = 20u32;
    let mut fresh = || {
        next += 1;
        next
    };
    let mut line = |s: String| {
        t.push_str("  ");
        t.push_str(&s);
        t.push('\n');
    };
    if local == 0 {
        line("%0:i32 = load_sysval sysval=raw_vertex_id".into());
        line("%1:i32 = ior %0, %0".into());
    } else {
        line("%0:i32x3 = load_sysval sysval=global_invocation_id".into());
        line("%1:i32 = swizzle %0.x".into());
    }
    line("%2:i64 = load_uniform offset=0".into());
    line(format!("%3:i32 = const {:#x}", 16 * vec4s));
    line("%4:i32 = imul %1, %3".into());
    let mut vals: Vec<u32> = Vec::new();
    for k in 0..vec4s {
        let (o, s, w, a, v) = (fresh(), fresh(), fresh(), fresh(), fresh());
        line(format!("%{o}:i32 = const {:#x}", 16 * k));
        line(format!("%{s}:i32 = iadd %4, %{o}"));
        line(format!("%{w}:i64 = u2u %{s}"));
        line(format!("%{a}:i64 = iadd %2, %{w}"));
        line(format!("%{v}:i32x4 = load_global %{a}"));
        for c in ["x", "y", "z", "w"] {
            let d = fresh();
            line(format!("%{d}:i32 = swizzle %{v}.{c}"));
            vals.push(d);
        }
    }
    let ops = ["iadd", "ixor", "imul", "isub", "ior", "umax"];
    let inputs = vals.len();
    for i in 0..extra as usize {
        let d = fresh();
        let a = vals[(i * 7 + 3) % vals.len()];
        let b = vals[vals.len() - 1 - (i % 5)];
        line(format!("%{d}:i32 = {} %{a}, %{b}", ops[i % ops.len()]));
        vals.push(d);
    }
    // Every value is read at the end, in reverse order of definition.
    let mut outs: Vec<u32> = Vec::new();
    for k in 0..vec4s as usize {
        let mut comps = Vec::new();
        for c in 0..4 {
            let i = 4 * k + c;
            let mut acc = vals[i];
            let mut j = inputs + (extra as usize).saturating_sub(1 + i);
            while j >= inputs && j < vals.len() {
                let d = fresh();
                line(format!("%{d}:i32 = iadd %{acc}, %{}", vals[j]));
                acc = d;
                if j < inputs + 4 * vec4s as usize {
                    break;
                }
                j -= 4 * vec4s as usize;
            }
            comps.push(acc);
        }
        let v = fresh();
        line(format!(
            "%{v}:i32x4 = vec %{}, %{}, %{}, %{}",
            comps[0], comps[1], comps[2], comps[3]
        ));
        outs.push(v);
    }
    for (k, v) in outs.iter().enumerate() {
        let (o, s, w, a) = (fresh(), fresh(), fresh(), fresh());
        line(format!("%{o}:i32 = const {:#x}", out + 16 * k as u32));
        line(format!("%{s}:i32 = iadd %4, %{o}"));
        line(format!("%{w}:i64 = u2u %{s}"));
        line(format!("%{a}:i64 = iadd %2, %{w}"));
        line(format!("store_global %{v}, %{a}"));
    }
    let (stage, size) = if local == 0 {
        ("vertex", "0 0 0".to_string())
    } else {
        ("compute", format!("{local} 1 1"))
    };
    format!(
        "shader {stage} \"pressure\" {{\n  info local_size {size} shared 0 push 0\n  values {}\n{t}}}",
        next + 1
    )
}

fn input(bytes: usize, seed: u32) -> Vec<u8> {
    let mut x = seed | 1;
    (0..bytes)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

#[test]
fn straight_line_pressure_spills_and_matches_interpreter() {
    // 132 values live at once; 4 workgroups of 16 threads (both G52 cores).
    let text = straight_line(8, 100, 16, 0x4000);
    let b = differential(&text, &input(0x8000, 3), [4, 1, 1]);
    assert!(
        b.tls_size > 0 && b.stats.spills > 0 && b.stats.fills > 0,
        "{:?}",
        b.stats
    );
}

/// Text of a compute shader that loads `vec4s` vec4s per thread (kept live
/// as vectors), runs a data-dependent loop (0..=7 trips) whose body reads
/// some of them in both arms of a divergent `if`, and after the loop sums
/// every component of every vec4 with the loop's result, storing one word
/// per thread at byte 0x6000 + 4·id and the loop result at 0x7000 + 4·id
/// (inputs must end below 0x6000: at most 64 threads of 20 vec4s).
fn vec4s_across_loop(vec4s: u32, local: u32) -> String {
    let mut t = String::new();
    let mut next = 20u32;
    let mut fresh = || {
        next += 1;
        next
    };
    let mut line = |depth: usize, s: String| {
        t.push_str(&"  ".repeat(depth + 1));
        t.push_str(&s);
        t.push('\n');
    };
    line(
        0,
        "%0:i32x3 = load_sysval sysval=global_invocation_id".into(),
    );
    line(0, "%1:i32 = swizzle %0.x".into());
    line(0, "%2:i64 = load_uniform offset=0".into());
    line(0, format!("%3:i32 = const {:#x}", 16 * vec4s));
    line(0, "%4:i32 = imul %1, %3".into());
    line(0, "%5:i32 = const 0x0".into());
    line(0, "%6:i32 = const 0x1".into());
    line(0, "%7:i32 = const 0x7".into());
    let mut vecs = Vec::new();
    for k in 0..vec4s {
        let (o, s, w, a, v) = (fresh(), fresh(), fresh(), fresh(), fresh());
        line(0, format!("%{o}:i32 = const {:#x}", 16 * k));
        line(0, format!("%{s}:i32 = iadd %4, %{o}"));
        line(0, format!("%{w}:i64 = u2u %{s}"));
        line(0, format!("%{a}:i64 = iadd %2, %{w}"));
        line(0, format!("%{v}:i32x4 = load_global %{a}"));
        vecs.push(v);
    }
    // Trip count: low 3 bits of the first loaded word.
    let (first, trips) = (fresh(), fresh());
    line(0, format!("%{first}:i32 = swizzle %{}.x", vecs[0]));
    line(0, format!("%{trips}:i32 = iand %{first}, %7"));
    let (r, i, acc) = (fresh(), fresh(), fresh());
    line(
        0,
        format!("%{r}:i32 = loop (%{i}:i32 = %5, %{acc}:i32 = %1) {{"),
    );
    let done = fresh();
    line(1, format!("%{done}:b1 = uge %{i}, %{trips}"));
    line(1, format!("if %{done} {{"));
    line(2, format!("break %{acc}"));
    line(1, "} else {".into());
    line(2, "yield".into());
    line(1, "}".into());
    let (bit, odd, sel) = (fresh(), fresh(), fresh());
    line(1, format!("%{bit}:i32 = iand %{acc}, %6"));
    line(1, format!("%{odd}:b1 = ine %{bit}, %5"));
    line(1, format!("%{sel}:i32 = if %{odd} {{"));
    let a = vecs[1 % vecs.len()];
    let b = vecs[vecs.len() / 2];
    let (x, y) = (fresh(), fresh());
    line(2, format!("%{x}:i32 = swizzle %{a}.y"));
    line(2, format!("%{y}:i32 = imul %{x}, %{acc}"));
    line(2, format!("yield %{y}"));
    line(1, "} else {".into());
    let (z, w) = (fresh(), fresh());
    line(2, format!("%{z}:i32 = swizzle %{b}.w"));
    line(2, format!("%{w}:i32 = ixor %{z}, %{i}"));
    line(2, format!("yield %{w}"));
    line(1, "}".into());
    let c = vecs[vecs.len() - 1];
    let (cz, sum, acc2, i2) = (fresh(), fresh(), fresh(), fresh());
    line(1, format!("%{cz}:i32 = swizzle %{c}.z"));
    line(1, format!("%{sum}:i32 = iadd %{sel}, %{cz}"));
    line(1, format!("%{acc2}:i32 = iadd %{acc}, %{sum}"));
    line(1, format!("%{i2}:i32 = iadd %{i}, %6"));
    line(1, format!("continue %{i2}, %{acc2}"));
    line(0, "}".into());
    // Every component of every vec4, mixed with the loop result.
    let mut total = r;
    for (k, v) in vecs.iter().enumerate() {
        for comp in ["x", "y", "z", "w"] {
            let (s, d) = (fresh(), fresh());
            line(0, format!("%{s}:i32 = swizzle %{v}.{comp}"));
            let op = ["iadd", "ixor", "imul"][k % 3];
            line(0, format!("%{d}:i32 = {op} %{total}, %{s}"));
            total = d;
        }
    }
    for (base, v) in [(0x6000, total), (0x7000, r)] {
        let (four, off, o2, s, w, a) = (fresh(), fresh(), fresh(), fresh(), fresh(), fresh());
        line(0, format!("%{four}:i32 = const 0x4"));
        line(0, format!("%{off}:i32 = imul %1, %{four}"));
        line(0, format!("%{o2}:i32 = const {base:#x}"));
        line(0, format!("%{s}:i32 = iadd %{off}, %{o2}"));
        line(0, format!("%{w}:i64 = u2u %{s}"));
        line(0, format!("%{a}:i64 = iadd %2, %{w}"));
        line(0, format!("store_global %{v}, %{a}"));
    }
    format!(
        "shader compute \"vec4_loop\" {{\n  info local_size {local} 1 1 shared 0 push 0\n  values {}\n{t}}}",
        next + 1
    )
}

#[test]
fn vec4_loads_live_across_loops_and_branches_spill_and_match_interpreter() {
    // 20 vec4s = 80 registers live across the loop.
    let text = vec4s_across_loop(20, 16);
    let b = differential(&text, &input(0x8000, 11), [4, 1, 1]);
    assert!(
        b.tls_size > 0 && b.stats.spills > 0 && b.stats.fills > 0,
        "{:?}",
        b.stats
    );
}

#[test]
fn spilling_vertex_job_matches_interpreter() {
    // 300 vertices: two batches (cores 0 and 1 of G52, 0 and 1 of G72).
    const VERTICES: u32 = 300;
    let out = 0x10000;
    let text = straight_line(6, 80, 0, out);
    let shader = Shader::parse(&text).unwrap_or_else(|e| panic!("{e:?}"));
    let binary = compile(&shader, Options::default()).unwrap();
    assert!(
        binary.tls_size > 0 && binary.stats.spills > 0,
        "{:?}",
        binary.stats
    );
    let init = input(0x10000 + 96 * VERTICES as usize, 5);
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let buf = gpu.alloc(init.len() as u64);
        gpu.write(buf.va, &init);
        let uniforms = vec![buf.va];
        let code = gpu.upload(&binary);
        gpu.run_vertex_job(&VertexJob {
            binary: &binary,
            code,
            push_uniforms: &uniforms,
            vertices: VERTICES,
            instances: 1,
            offset_start: 0,
            ubos: &[],
            attributes: AttributeTables::default(),
            varyings: AttributeTables::default(),
        })
        .unwrap_or_else(|e| panic!("{model:?}: {e}"));
        let got = gpu.read(buf.va, init.len());
        let mut mem = Memory::new();
        mem.map(buf.va, init.clone()).unwrap();
        let state = DrawState {
            push_uniforms: uniforms.iter().flat_map(|w| w.to_le_bytes()).collect(),
            ..DrawState::default()
        };
        for v in 0..VERTICES {
            let ids = InvocationIds {
                raw_vertex_id: v,
                ..InvocationIds::default()
            };
            run_invocation(&shader, &state, &mut mem, ids).unwrap();
        }
        assert!(
            got == mem.range(buf.va).unwrap(),
            "{model:?}: differs from the interpreter"
        );
    }
}

/// Runs a spilling binary whose TLS requirement was tampered with.
fn tls_fault(tls_size: u32) -> Option<u32> {
    let text = straight_line(8, 100, 8, 0x4000);
    let shader = Shader::parse(&text).unwrap();
    let mut binary = compile(&shader, Options::default()).unwrap();
    assert!(binary.tls_size > 16);
    binary.tls_size = tls_size;
    let mut gpu = SimGpu::new(SimModel::G52);
    let buf = gpu.alloc(0x8000);
    gpu.run_compute(&binary, &[buf.va], shader.info.local_size, [2, 1, 1])
        .err()
        .and_then(|e| e.fault())
        .map(|f| f.status)
}

#[test]
fn tls_access_without_or_beyond_thread_storage_faults() {
    // INSTR_TLS_FAULT: no TLS in the Local Storage descriptor, or a spill
    // slot past the thread's `16 << TLS Size` bytes.
    assert_eq!(tls_fault(0), Some(0x54));
    assert_eq!(tls_fault(16), Some(0x54));
}

/// Reads `len` bytes of any GPU memory of the harness's device (pool
/// memory included).
fn read_any(gpu: &SimGpu, va: u64, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    gpu.sim().read_gpu(va, &mut out).expect("mapped");
    out
}

#[test]
fn tls_slots_are_per_core_and_per_thread() {
    use bifrost_vk::hw::draw::dcd;
    use bifrost_vk::hw::layout::words_from_bytes;
    use bifrost_vk::hw::layouts;
    use bifrost_vk::hw::storage::local_storage as ls;
    use bifrost_vk::jm::{ComputeJob, add_compute_job};

    let text = straight_line(8, 100, 16, 0x4000);
    let shader = Shader::parse(&text).unwrap();
    let binary = compile(&shader, Options::default()).unwrap();
    // (model, threads per core, cores = workgroups: one per core).
    for (model, threads_per_core, cores) in [(SimModel::G52, 768, 2), (SimModel::G72, 384, 3)] {
        let mut gpu = SimGpu::new(model);
        let buf = gpu.alloc(0x8000);
        gpu.write(buf.va, &input(0x8000, 9));
        let uniforms = [buf.va];
        let mut job_va = 0;
        let code = gpu.upload(&binary);
        gpu.run_chain(|chain, pool, arch| {
            let job = ComputeJob {
                binary: &binary,
                code,
                push_uniforms: &uniforms,
                local_size: [16, 1, 1],
                groups: [cores, 1, 1],
                ubos: &[],
                attributes: None,
                push_buffer: None,
            };
            add_compute_job(chain, pool, arch, &job, [0, 0])?;
            job_va = chain.head();
            Ok(true)
        })
        .unwrap();
        // Job → DCD Thread Storage → Local Storage → TLS buffer.
        let l = layouts(gpu.arch());
        let job = words_from_bytes(&read_any(&gpu, job_va, l.compute_job.bytes));
        let draw = l.compute_job.section("Draw").unwrap();
        let dcd_words = &job[draw.offset / 4..draw.offset / 4 + draw.layout.words as usize];
        let storage = dcd::THREAD_STORAGE.get(dcd_words);
        let lsw = words_from_bytes(&read_any(&gpu, storage, l.local_storage.bytes()));
        let per_thread = 16usize << ls::TLS_SIZE.get(&lsw);
        assert!(per_thread >= binary.tls_size as usize);
        let tls = read_any(
            &gpu,
            ls::TLS_BASE_POINTER.get(&lsw),
            per_thread * threads_per_core * cores as usize,
        );
        // Workgroup c ran on core c: its 16 threads used slots
        // c·threads_per_core + 0..16; no other slot was touched.
        let used = |slot: usize| {
            tls[slot * per_thread..(slot + 1) * per_thread]
                .iter()
                .any(|&b| b != 0)
        };
        for core in 0..cores as usize {
            for t in 0..threads_per_core {
                let slot = core * threads_per_core + t;
                assert_eq!(used(slot), t < 16, "{model:?}: core {core} slot {t}");
            }
        }
    }
}

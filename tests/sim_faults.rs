//! Shader faults on the simulated GPU: an illegal instruction word, a store
//! outside mapped memory, a runaway loop and a missing uniform each fail
//! their job with an exception status (never a panic; random and mutated
//! code neither), and the device keeps running jobs. Plus small hand-written
//! programs (assembled with `compiler::bifrost::asm`): scoreboard hazard
//! reporting, branches and LDEXP.

use bifrost_vk::compiler::bifrost::asm::assemble;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::kmod::sim::shader::{set_clause_limit, status};
use bifrost_vk::testing::{SimGpu, binary_from_code};

/// Stores the global invocation id x to u0 + 4 * id (one STORE per thread).
const STORE_ID: &str = "clause_0:
ds(0) eos store 
{
    *LSHIFT_OR.i32 t0, r60, #0, 0x00000002 /* 0.000000 */
    +NOP t1
    *MOV.i32 r2:t0, r60
    +IADD.s32 r0:t1, u0.w0, t0
    *NOP t0
    +ICMP.u32.gt t1, u0.w0, t1
    *NOP t0
    +IADD.s32 t1, t1, u0.w1
    *NOP t0
    +STORE.i32 t1, r0, t1, @r2
}
";

const LOOP: &str = "clause_0:
ds(0) nbb ncph 
{
    *NOP t0
    +MOV.i32 r0:t1, r60
}

clause_1:
ds(0) nbb r_uncond 
{
    *NOP t0
    +JUMP t1, clause_0
}
";

/// Runs STORE_ID over 16 threads and checks the output: the device works.
fn still_works(gpu: &mut SimGpu) {
    let out = gpu.alloc(4096);
    let bin = binary_from_code(&assemble(STORE_ID).expect("assembles"), 1);
    gpu.run_compute(&bin, &[out.va], [16, 1, 1], [1, 1, 1])
        .expect("good job runs");
    assert_eq!(gpu.read_u32s(out.va, 16), (0..16).collect::<Vec<u32>>());
}

#[test]
fn store_program_runs() {
    for model in [SimModel::G52, SimModel::G72] {
        still_works(&mut SimGpu::new(model));
    }
}

/// Runs `code` as one workgroup of 4 threads on G52: the job fails with
/// INSTR_INVALID_ENC and the device keeps running jobs.
fn faults_as_invalid_encoding(code: &[u8]) {
    let mut gpu = SimGpu::new(SimModel::G52);
    let bin = binary_from_code(code, 0);
    let err = gpu
        .run_compute(&bin, &[], [4, 1, 1], [1, 1, 1])
        .unwrap_err();
    assert_eq!(
        err.fault().unwrap().status,
        status::INSTR_INVALID_ENC,
        "{err}"
    );
    still_works(&mut gpu);
}

#[test]
fn illegal_instruction_word_faults_the_job() {
    faults_as_invalid_encoding(&[0xff; 32]);
}

#[test]
fn store_outside_mapped_memory_faults_the_job() {
    let mut gpu = SimGpu::new(SimModel::G52);
    let bin = binary_from_code(&assemble(STORE_ID).unwrap(), 1);
    let err = gpu
        .run_compute(&bin, &[0x1000], [4, 1, 1], [1, 1, 1])
        .unwrap_err();
    let fault = err.fault().unwrap();
    assert_eq!(fault.status, 0x43, "JOB_WRITE_FAULT: {err}");
    assert_eq!(fault.fault_va, 0x1000);
    still_works(&mut gpu);
}

/// Shader code in a BO created with `PANFROST_BO_NOEXEC` (what every data
/// buffer and command-buffer pool is): the instruction fetch faults, as the
/// hardware's MMU permission check does, and nothing is stored.
#[test]
fn instruction_fetch_from_a_noexec_bo_faults() {
    use bifrost_vk::jm::ComputeJob;
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let out = gpu.alloc(4096);
        let bin = binary_from_code(&assemble(STORE_ID).unwrap(), 1);
        let data = gpu.alloc(4096);
        gpu.write(data.va, &bin.code);
        let err = gpu
            .run_compute_job(&ComputeJob {
                binary: &bin,
                code: data.va,
                push_uniforms: &[out.va],
                local_size: [4, 1, 1],
                groups: [1, 1, 1],
                ubos: &[],
                attributes: None,
                push_buffer: None,
            })
            .unwrap_err();
        let fault = err.fault().unwrap();
        assert_eq!(fault.status, 0x42, "JOB_READ_FAULT: {err}");
        assert_eq!(fault.fault_va, data.va);
        assert_eq!(gpu.read_u32s(out.va, 4), [0; 4]);
        // The same code from an executable BO runs.
        still_works(&mut gpu);
    }
}

#[test]
fn runaway_loop_is_stopped() {
    set_clause_limit(10_000);
    let mut gpu = SimGpu::new(SimModel::G52);
    let bin = binary_from_code(&assemble(LOOP).expect("assembles"), 0);
    let err = gpu
        .run_compute(&bin, &[], [8, 1, 1], [1, 1, 1])
        .unwrap_err();
    assert_eq!(err.fault().unwrap().status, status::TERMINATED, "{err}");
    still_works(&mut gpu);
}

#[test]
fn uniform_beyond_the_preloaded_count_faults() {
    let mut gpu = SimGpu::new(SimModel::G52);
    // STORE_ID reads u0 but the renderer state preloads no uniform.
    let bin = binary_from_code(&assemble(STORE_ID).unwrap(), 0);
    let err = gpu
        .run_compute(&bin, &[], [4, 1, 1], [1, 1, 1])
        .unwrap_err();
    assert_eq!(
        err.fault().unwrap().status,
        status::INSTR_OPERAND_FAULT,
        "{err}"
    );
}

/// Loads u0[0] and copies it without waiting for the load's scoreboard slot.
const NO_WAIT: &str = "clause_0:
ds(0) nbb load ncph 
{
    *NOP t0
    +LOAD.i32 t1, u0.w0, u0.w1, @r0
}

clause_1:
ds(0) eos store 
{
    *NOP t0
    +MOV.i32 r1:t1, r0
    *NOP t0
    +STORE.i32 t1, u0.w0, u0.w1, @r1
}
";

#[test]
fn reading_a_load_result_before_waiting_is_reported() {
    let mut gpu = SimGpu::new(SimModel::G52);
    let buf = gpu.alloc(4096);
    gpu.write_u32s(buf.va, &[42]);
    let bin = binary_from_code(&assemble(NO_WAIT).expect("assembles"), 1);
    let run = gpu
        .run_compute(&bin, &[buf.va], [4, 1, 1], [1, 1, 1])
        .expect("runs (the result is still defined in the model)");
    assert_eq!(gpu.read_u32s(buf.va, 1), [42]);
    if cfg!(debug_assertions) {
        assert_eq!(run.counters.hazards, 4, "one per thread");
    }
    // With the wait (dwb(0) on the load's clause) there is none.
    let fixed = NO_WAIT.replacen("ds(0) nbb load ncph \n", "ds(0) nbb load ncph dwb(0) \n", 1);
    let bin = binary_from_code(&assemble(&fixed).expect("assembles"), 1);
    let run = gpu
        .run_compute(&bin, &[buf.va], [4, 1, 1], [1, 1, 1])
        .unwrap();
    assert_eq!(run.counters.hazards, 0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Arbitrary bytes as shader code: the job completes or faults, the
    /// simulator never panics, and the device keeps working.
    #[test]
    fn random_code_never_panics(words in proptest::collection::vec(proptest::prelude::any::<u32>(), 4..64)) {
        set_clause_limit(10_000);
        let mut gpu = SimGpu::new(SimModel::G52);
        let buf = gpu.alloc(4096);
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let bin = binary_from_code(&code, 4);
        let _ = gpu.run_compute(&bin, &[buf.va, buf.va, 0, 1], [4, 1, 1], [2, 1, 1]);
        still_works(&mut gpu);
    }

    /// Valid clauses with random fields: take Mesa's own code and flip bits.
    #[test]
    fn mutated_mesa_code_never_panics(flips in proptest::collection::vec((0usize..720 * 8, proptest::prelude::any::<bool>()), 1..8)) {
        let Ok(mut code) = std::fs::read(bifrost_vk::reference_path!("mesa-g52/shaders/cs_loop.bin")) else {
            return Ok(());
        };
        for (bit, _) in &flips {
            let bit = bit % (code.len() * 8);
            code[bit / 8] ^= 1 << (bit % 8);
        }
        set_clause_limit(10_000);
        let mut gpu = SimGpu::new(SimModel::G72);
        let set = gpu.alloc(4096);
        for i in 0..3u64 {
            let b = gpu.alloc(4096);
            gpu.write(set.va + 32 * i, &b.va.to_le_bytes());
        }
        let bin = binary_from_code(&code, 4);
        let push = u64::from(1.5f32.to_bits()) | (40 << 32);
        let _ = gpu.run_compute(&bin, &[0, 0, set.va, push], [8, 1, 1], [1, 1, 1]);
        still_works(&mut gpu);
    }
}

/// r60 < u0.w1 ? store 1 : store 2, at u0 + 4 * r60; then 3 * 2^r60 at +64.
const BRANCH_LDEXP: &str = "clause_0:
ds(0) nbb r_uncond ncph 
{
    *NOP t0
    +MOV.i32 r5:t1, u0.w1
    *LSHIFT_OR.i32 r3:t0, r60, #0, 0x00000002 /* 0.000000 */
    +LDEXP.f32 r4:t1, 0x40400000 /* 3.000000 */, r60
    *NOP t0
    +ICMP.u32.m1.gt t1, r5, r60
    *NOP t0
    +BRANCHZ.i16.eq t1, t1.h0, clause_7
}

clause_4:
ds(0) nbb r_uncond 
{
    *NOP t0
    +MOV.i32 r2:t1, 0x00000001 /* 0.000000 */
    *NOP t0
    +JUMP t1, clause_9
}

clause_7:
ds(0) nbb r_uncond 
{
    *NOP t0
    +MOV.i32 r2:t1, 0x00000002 /* 0.000000 */
}

clause_9:
ds(0) nbb store ncph 
{
    *NOP t0
    +IADD.s32 r0:t1, u0.w0, r3
    *NOP t0
    +STORE.i32 t1, r0, #0.x, @r2
}

clause_11:
ds(0) eos store 
{
    *NOP t0
    +IADD.s32 r0:t1, r0, 0x00000040 /* 0.000000 */
    *NOP t0
    +STORE.i32 t1, r0, #0.x, @r4
}
";

#[test]
fn branch_and_ldexp() {
    let Ok(code) = assemble(BRANCH_LDEXP) else {
        panic!("{:?}", assemble(BRANCH_LDEXP));
    };
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let out = gpu.alloc(4096);
        assert!(out.va < 1 << 32);
        let bin = binary_from_code(&code, 1);
        // u0.w0 = buffer, u0.w1 = 5.
        gpu.run_compute(&bin, &[out.va | (5 << 32)], [16, 1, 1], [1, 1, 1])
            .unwrap();
        let flags = gpu.read_u32s(out.va, 16);
        let expect: Vec<u32> = (0..16).map(|i| if i < 5 { 1 } else { 2 }).collect();
        assert_eq!(flags, expect, "{model:?}");
        let pow = gpu.read_f32s(out.va + 64, 16);
        assert_eq!(pow, (0..16).map(|i| 3.0 * 2f32.powi(i)).collect::<Vec<_>>());
    }
}

/// Thread-local storage: store r60 * 3 at TLS offset 8, load it back, store
/// the loaded value to u0 + 4 * r60.
const TLS: &str = "clause_0:
ds(0) nbb store ncph 
{
    *IMUL.i32 r2:t0, r60, 0x00000003 /* 0.000000 */
    +MOV.i32 r4:t1, 0x00000008 /* 0.000000 */
    *NOP t0
    +MOV.i32 r5:t1, #0.x
    *NOP t0
    +STORE.i32.tl t1, r4, r5, @r2
}

clause_3:
ds(0) nbb load ncph dwb(0) 
{
    *NOP t0
    +LOAD.i32.tl t1, r4, r5, @r3
}

clause_4:
ds(0) eos store 
{
    *LSHIFT_OR.i32 t0, r60, #0, 0x00000002 /* 0.000000 */
    +NOP t1
    *NOP t0
    +IADD.s32 r0:t1, u0.w0, t0
    *NOP t0
    +STORE.i32 t1, r0, #0.x, @r3
}
";

#[test]
fn thread_local_storage_is_per_thread() {
    let code = assemble(TLS).unwrap_or_else(|e| panic!("{e:?}"));
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let out = gpu.alloc(4096);
        let mut bin = binary_from_code(&code, 1);
        bin.tls_size = 16;
        gpu.run_compute(&bin, &[out.va], [16, 1, 1], [2, 1, 1])
            .unwrap();
        let got = gpu.read_u32s(out.va, 32);
        assert_eq!(
            got,
            (0..32).map(|i| 3 * i).collect::<Vec<u32>>(),
            "{model:?}"
        );
        // Without TLS in the job the access faults.
        bin.tls_size = 0;
        let err = gpu
            .run_compute(&bin, &[out.va], [4, 1, 1], [1, 1, 1])
            .unwrap_err();
        assert_eq!(err.fault().unwrap().status, status::INSTR_TLS_FAULT);
    }
}

/// `+SEG_ADD` computes the high word of `*SEG_ADD`'s address: without its
/// FMA half in the same tuple it is an invalid encoding, as is `+ATOM_CX`
/// without an `*ATOM_C`; the device keeps working.
#[test]
fn unpaired_halves_fault() {
    const LONE_SEG_ADD: &str = "clause_0:
ds(0) eos 
{
    *NOP t0
    +SEG_ADD.wls r0:t1, r1
}
";
    const LONE_ATOM_CX: &str = "clause_0:
ds(0) eos atomic 
{
    *NOP t0
    +ATOM_CX t1, r0, r1, r2, @r2
}
";
    for text in [LONE_SEG_ADD, LONE_ATOM_CX] {
        faults_as_invalid_encoding(&assemble(text).unwrap_or_else(|e| panic!("{e:?}")));
    }
}

/// The simulator keeps decoded clauses across jobs (`shader::ClauseCache`),
/// but code rewritten in place is what the next job runs: garbage written
/// over a program that ran faults the next job, and the program written
/// back runs again.
#[test]
fn code_rewritten_in_place_is_decoded_again() {
    use bifrost_vk::jm::ComputeJob;
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let out = gpu.alloc(4096);
        let bin = binary_from_code(&assemble(STORE_ID).unwrap(), 1);
        let code = gpu.upload(&bin);
        let job = ComputeJob {
            binary: &bin,
            code,
            push_uniforms: &[out.va],
            local_size: [4, 1, 1],
            groups: [1, 1, 1],
            ubos: &[],
            attributes: None,
            push_buffer: None,
        };
        gpu.run_compute_job(&job).expect("the program runs");
        assert_eq!(gpu.read_u32s(out.va, 4), [0, 1, 2, 3]);
        gpu.write(code, &vec![0xFF; bin.code.len()]);
        let err = gpu.run_compute_job(&job).unwrap_err();
        assert_eq!(
            err.fault().unwrap().status,
            status::INSTR_INVALID_ENC,
            "{err}"
        );
        gpu.write(code, &bin.code);
        gpu.write_u32s(out.va, &[9; 4]);
        gpu.run_compute_job(&job).expect("the program runs again");
        assert_eq!(gpu.read_u32s(out.va, 4), [0, 1, 2, 3]);
    }
}

//! Shader faults on the simulated GPU: an illegal instruction word, a load
//! outside mapped memory and a runaway loop each fail their job with an
//! exception status (never a panic), and the device keeps running jobs.

use bifrost_vk::compiler::bifrost::asm::assemble;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::kmod::sim::shader::{set_clause_limit, status};
use bifrost_vk::kmod::sim::testing::{SimGpu, binary_from_code};

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

#[test]
fn illegal_instruction_word_faults_the_job() {
    let mut gpu = SimGpu::new(SimModel::G52);
    let bin = binary_from_code(&[0xff; 32], 0);
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

//! BIFROST_VK_DUMP=<dir>: one PANSNAP1 file per submit, through the loader
//! and through the simulator harness; every live BO in every file, and no
//! file name used twice.

mod common;

use std::path::PathBuf;
use std::sync::Once;

use ash::vk;
use bifrost_vk::hw::job::{JobType, header, write_value};
use bifrost_vk::hw::layout::words_from_bytes;
use bifrost_vk::hw::snapshot::Snapshot;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

/// The loader test's dump directory, set as `BIFROST_VK_DUMP` once, before
/// any test of this binary reads the environment (every test calls this first).
fn loader_dump_dir() -> PathBuf {
    static ONCE: Once = Once::new();
    let dir = common::deps_dir().join(format!("dump-test-{}", std::process::id()));
    ONCE.call_once(|| {
        let _ = std::fs::remove_dir_all(&dir);
        // SAFETY: inside the Once that every test of this binary passes
        // before doing anything else, so no other thread reads the
        // environment concurrently.
        unsafe { std::env::set_var("BIFROST_VK_DUMP", &dir) };
    });
    dir
}

fn files_in(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn every_submit_writes_a_snapshot() {
    let dir = loader_dump_dir();
    let gpu = common::Gpu::new();
    let d = &gpu.device;
    // SAFETY: valid handles throughout.
    unsafe {
        let qp = d
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(1),
                None,
            )
            .unwrap();
        let pool = gpu.command_pool();
        let cb = gpu.command_buffer(pool);
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, 0);
        d.end_command_buffer(cb).unwrap();
        let cbs = [cb];
        d.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            vk::Fence::null(),
        )
        .unwrap();
        // A batch with no command buffers still goes through the GPU (a NULL job).
        d.queue_submit(gpu.queue, &[vk::SubmitInfo::default()], vk::Fence::null())
            .unwrap();
        d.queue_wait_idle(gpu.queue).unwrap();
        d.destroy_command_pool(pool, None);
        d.destroy_query_pool(qp, None);
    }
    let files = files_in(&dir);
    assert_eq!(files.len(), 2, "one snapshot per SUBMIT");
    let snap = Snapshot::parse(&std::fs::read(&files[0]).unwrap()).unwrap();
    assert_eq!(snap.gpu_id, 0x7212);
    let words = words_from_bytes(
        snap.read(snap.jc, 32)
            .expect("the chain head is in a dumped BO"),
    );
    assert_eq!(header::TYPE.get(&words), JobType::WriteValue as u64);
    let empty = Snapshot::parse(&std::fs::read(&files[1]).unwrap()).unwrap();
    let words = words_from_bytes(empty.read(empty.jc, 32).unwrap());
    assert_eq!(
        header::TYPE.get(&words),
        JobType::Null as u64,
        "an empty submit runs a NULL job"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The simulator harness creates its buffers on the kernel device, not
/// through `kmod::Device`: they are in the dump all the same, with what the
/// test wrote into them before the chain ran. Harnesses come and go (and
/// their devices reuse addresses): every dump keeps its own file.
#[test]
fn harness_dumps_hold_the_tests_buffers_and_never_reuse_a_name() {
    let _ = loader_dump_dir();
    let dir = common::deps_dir().join(format!("dump-harness-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut expected = Vec::new();
    for round in 0..3u32 {
        let mut gpu = SimGpu::with_dump_dir(SimModel::G52, Some(dir.clone()));
        let buffer = gpu.alloc(4096);
        let words: Vec<u32> = (0..16).map(|i| 0xc0de_0000 + round * 0x100 + i).collect();
        gpu.write_u32s(buffer.va, &words);
        let target = buffer.va + 64;
        for _ in 0..2 {
            gpu.run_chain(|chain, pool, _| {
                chain.add_write_value(pool, target, write_value::IMMEDIATE_32, 0x5eed, [0, 0])?;
                Ok(true)
            })
            .unwrap();
        }
        assert_eq!(gpu.read_u32s(target, 1), [0x5eed], "the chain ran");
        expected.push((buffer.va, words));
        expected.push((buffer.va, Vec::new()));
    }
    let files = files_in(&dir);
    assert_eq!(files.len(), 6, "six submits, six files: {files:?}");
    for (file, (va, words)) in files.iter().zip(&expected) {
        let snap = Snapshot::parse(&std::fs::read(file).unwrap()).unwrap();
        let header = words_from_bytes(snap.read(snap.jc, 32).expect("chain head dumped"));
        assert_eq!(header::TYPE.get(&header), JobType::WriteValue as u64);
        let dumped = words_from_bytes(
            snap.read(*va, 4096)
                .unwrap_or_else(|| panic!("{}: the harness buffer is missing", file.display())),
        );
        if words.is_empty() {
            // Second submit of the round: the first one's write is visible.
            assert_eq!(dumped[16], 0x5eed, "{}", file.display());
        } else {
            assert_eq!(&dumped[..16], &words[..], "{}", file.display());
            assert_eq!(
                dumped[16],
                0,
                "{}: dumped before the chain ran",
                file.display()
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

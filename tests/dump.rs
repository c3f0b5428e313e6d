//! BIFROST_VK_DUMP=<dir>: one PANSNAP1 file per submit, through the loader.

mod common;

use ash::vk;
use bifrost_vk::hw::job::{JobType, header};
use bifrost_vk::hw::layout::words_from_bytes;
use bifrost_vk::hw::snapshot::Snapshot;

#[test]
fn every_submit_writes_a_snapshot() {
    let dir = common::deps_dir().join(format!("dump-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // SAFETY: set before any Vulkan call in this process (one test per binary).
    unsafe { std::env::set_var("BIFROST_VK_DUMP", &dir) };
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
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
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

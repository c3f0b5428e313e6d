//! Job manager tests: chains built with `jm`, run by the simulator, checked
//! through GPU memory, job headers and the execution trace.

use std::sync::Arc;

use super::jobs::exception;
use super::{SimDevice, SimModel, TraceHandle};
use crate::hw::job::{JobType, header, write_value as wv};
use crate::jm::{GpuPool, JobChain};
use crate::kmod::{BO_NOEXEC, Device, JD_REQ_FS, KernelDevice, Submit};

fn sim() -> (Arc<Device>, TraceHandle) {
    let sim = SimDevice::new(SimModel::G52);
    let trace = sim.trace_handle();
    (Arc::new(Device::new(Box::new(sim))), trace)
}

/// Submit `chain` and wait; returns the fence error.
fn run(dev: &Device, pool: &GpuPool, chain: &JobChain, requirements: u32) -> Option<i32> {
    let k = dev.kernel();
    let sync = k.syncobj_create(false).unwrap();
    let bos: Vec<_> = pool.bo_handles().collect();
    dev.submit(&Submit {
        jc: chain.head(),
        bo_handles: &bos,
        in_syncs: &[],
        out_sync: sync,
        requirements,
    })
    .unwrap();
    assert!(
        k.syncobj_wait(&[sync], crate::kmod::deadline_after(5_000_000_000), true)
            .unwrap()
    );
    let err = k.syncobj_fence_error(sync).unwrap();
    k.syncobj_destroy(sync);
    err
}

#[test]
fn dependencies_and_barriers_run_in_a_legal_order() {
    let (dev, trace) = sim();
    let target = dev.bo_create(4096, BO_NOEXEC).unwrap();
    let mut pool = GpuPool::new(dev.clone());
    let mut chain = JobChain::new();
    let va = target.gpu_va();
    let a = chain
        .add_write_value(&mut pool, va, wv::IMMEDIATE_32, 0x1111, [0, 0])
        .unwrap();
    let b = chain
        .add_write_value(
            &mut pool,
            va + 8,
            wv::IMMEDIATE_64,
            0x2222_0000_3333,
            [a, 0],
        )
        .unwrap();
    let c = chain
        .add_job(&mut pool, JobType::Null, &[], [0, 0], true)
        .unwrap();
    let d = chain
        .add_write_value(&mut pool, va + 16, wv::SYSTEM_TIMESTAMP, 0, [b, c])
        .unwrap();
    let e = chain
        .add_write_value(&mut pool, va + 24, wv::IMMEDIATE_8, 0x1ff, [d, a])
        .unwrap();
    chain
        .add_write_value(&mut pool, va + 26, wv::IMMEDIATE_16, 0xabcd, [e, 0])
        .unwrap();
    chain
        .add_write_value(&mut pool, va + 32, wv::CYCLE_COUNTER, 0, [0, 0])
        .unwrap();
    chain
        .add_write_value(&mut pool, va + 8, wv::ZERO, 0, [b, 0])
        .unwrap();
    assert_eq!(run(&dev, &pool, &chain, 0), None);

    assert_eq!(target.read_u64(0) as u32, 0x1111);
    assert_eq!(
        target.read_u64(8),
        0,
        "ZERO ran after the IMMEDIATE_64 it depends on"
    );
    assert!(target.read_u64(16) > 0, "system timestamp");
    let mut b8 = [0u8; 4];
    target.read(24, &mut b8);
    assert_eq!(
        b8,
        [0xff, 0, 0xcd, 0xab],
        "immediate 8 truncates; immediate 16"
    );
    assert!(target.read_u64(32) > 0, "cycle counter");
    assert!(chain.statuses().iter().all(|&s| s == exception::DONE));

    // Every dependency ran before its dependant; a barrier after everything before it.
    let entries = trace.entries();
    assert_eq!(entries.len(), chain.len());
    assert!(entries.iter().all(|e| e.slot == 1));
    let pos = |index: u16| entries.iter().position(|e| e.index == index).unwrap();
    for (idx, deps) in [(b, [a, 0]), (d, [b, c]), (e, [d, a])] {
        for dep in deps.into_iter().filter(|&x| x != 0) {
            assert!(pos(dep) < pos(idx));
        }
    }
    assert!((1..c).all(|i| pos(i) < pos(c)));
    dev.bo_destroy(target);
}

#[test]
fn bad_job_pointer_faults_and_reports() {
    let (dev, trace) = sim();
    let mut pool = GpuPool::new(dev.clone());
    let mut chain = JobChain::new();
    chain
        .add_job(&mut pool, JobType::Null, &[], [0, 0], false)
        .unwrap();
    chain
        .add_job(&mut pool, JobType::Null, &[], [0, 0], false)
        .unwrap();
    // Point the second job's Next at unmapped GPU memory.
    let second = chain.head() + 64;
    chain_set_next(&chain, 1, 0x7000_0000);
    assert_eq!(run(&dev, &pool, &chain, 0), Some(-super::job_manager::EIO));
    assert_eq!(chain.statuses(), vec![exception::DONE, exception::DONE]);
    let entries = trace.entries();
    assert_eq!(entries.len(), 2, "no job ran past the bad pointer");
    assert_eq!(entries[1].job_va, second);

    // A misaligned head is a bad job pointer too.
    let sync = dev.kernel().syncobj_create(false).unwrap();
    dev.submit(&Submit {
        jc: chain.head() + 8,
        out_sync: sync,
        ..Default::default()
    })
    .unwrap();
    assert!(dev.kernel().syncobj_wait(&[sync], i64::MAX, true).unwrap());
    assert_eq!(
        dev.kernel().syncobj_fence_error(sync).unwrap(),
        Some(-super::job_manager::EIO)
    );
}

/// Overwrite the Next pointer of job `i` (0-based) through the CPU mapping.
fn chain_set_next(chain: &JobChain, i: usize, next: u64) {
    chain.patch_header(i, |w| header::NEXT.set(w, next).unwrap());
}

#[test]
fn faults_write_status_and_fault_pointer_into_the_header() {
    let (dev, _trace) = sim();
    let mut pool = GpuPool::new(dev.clone());

    // A write to unmapped memory: JOB_WRITE_FAULT at that address.
    let mut chain = JobChain::new();
    chain
        .add_write_value(&mut pool, 0x6000_0000, wv::IMMEDIATE_32, 1, [0, 0])
        .unwrap();
    chain
        .add_job(&mut pool, JobType::Null, &[], [1, 0], false)
        .unwrap();
    assert!(run(&dev, &pool, &chain, 0).is_some());
    assert_eq!(
        chain.statuses(),
        vec![exception::JOB_WRITE_FAULT, exception::NOT_STARTED]
    );
    chain.read_header(0, |w| assert_eq!(header::FAULT_POINTER.get(w), 0x6000_0000));

    // An unknown job type: JOB_CONFIG_FAULT.
    let mut chain = JobChain::new();
    chain
        .add_job(&mut pool, JobType::Null, &[], [0, 0], false)
        .unwrap();
    chain.patch_header(0, |w| header::TYPE.set(w, 0x55).unwrap());
    assert!(run(&dev, &pool, &chain, 0).is_some());
    assert_eq!(chain.statuses(), vec![exception::JOB_CONFIG_FAULT]);

    // A dependency on an index that is not (yet) in the chain: JOB_CONFIG_FAULT.
    let mut chain = JobChain::new();
    chain
        .add_job(&mut pool, JobType::Null, &[], [0, 0], false)
        .unwrap();
    chain
        .add_job(&mut pool, JobType::Null, &[], [7, 0], false)
        .unwrap();
    assert!(run(&dev, &pool, &chain, 0).is_some());
    assert_eq!(
        chain.statuses(),
        vec![exception::DONE, exception::JOB_CONFIG_FAULT]
    );

    // Re-running after clearing the status works (the device survives faults).
    let mut chain = JobChain::new();
    chain
        .add_job(&mut pool, JobType::Null, &[], [0, 0], false)
        .unwrap();
    assert_eq!(run(&dev, &pool, &chain, 0), None);
    chain.reset_status();
    assert_eq!(chain.statuses(), vec![exception::NOT_STARTED]);
    assert_eq!(run(&dev, &pool, &chain, 0), None);
}

#[test]
fn two_job_slots_and_cross_slot_waits() {
    let (dev, trace) = sim();
    let k = dev.kernel();
    let target = dev.bo_create(4096, BO_NOEXEC).unwrap();
    let mut pool = GpuPool::new(dev.clone());
    let mut first = JobChain::new();
    first
        .add_write_value(&mut pool, target.gpu_va(), wv::IMMEDIATE_32, 1, [0, 0])
        .unwrap();
    let mut second = JobChain::new();
    second
        .add_write_value(&mut pool, target.gpu_va() + 4, wv::IMMEDIATE_32, 2, [0, 0])
        .unwrap();

    let s0 = k.syncobj_create(false).unwrap();
    let s1 = k.syncobj_create(false).unwrap();
    dev.submit(&Submit {
        jc: first.head(),
        out_sync: s0,
        requirements: JD_REQ_FS,
        ..Default::default()
    })
    .unwrap();
    dev.submit(&Submit {
        jc: second.head(),
        in_syncs: &[s0],
        out_sync: s1,
        ..Default::default()
    })
    .unwrap();
    assert!(
        k.syncobj_wait(&[s0, s1], crate::kmod::deadline_after(5_000_000_000), true)
            .unwrap()
    );
    let entries = trace.entries();
    assert_eq!(
        entries.iter().map(|e| e.slot).collect::<Vec<_>>(),
        vec![0, 1]
    );
    assert_eq!(target.read_u64(0), 0x2_0000_0001);
    dev.bo_destroy(target);
}

#[test]
fn bo_accounting_and_out_of_memory() {
    let (dev, _trace) = sim();
    let k = dev.kernel();
    let base = k.bo_stats();
    let a = dev.bo_create(5000, BO_NOEXEC).unwrap();
    assert_eq!(k.bo_stats().count, base.count + 1);
    assert_eq!(k.bo_stats().bytes, base.bytes + 8192);
    assert!(dev.bo_create(super::SIM_MEMORY_BYTES, BO_NOEXEC).is_err());
    dev.bo_destroy(a);
    assert_eq!(k.bo_stats(), base);
    assert_eq!(k.get_param(crate::kmod::Param::GpuProdId).unwrap(), 0x7212);
    let g72 = SimDevice::new(SimModel::G72);
    assert_eq!(
        g72.get_param(crate::kmod::Param::GpuProdId).unwrap(),
        0x6221
    );
}

#[test]
fn submit_dump_holds_every_bo_and_the_chain_head() {
    let dir = std::env::temp_dir().join(format!("bifrost-vk-dump-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dev = Arc::new(Device::with_dump_dir(
        Box::new(SimDevice::new(SimModel::G52)),
        Some(dir.clone()),
    ));
    let target = dev.bo_create(4096, BO_NOEXEC).unwrap();
    // A BO made straight on the kernel device, as the simulator harness and
    // anything else outside `kmod::Device` do: the chain writes into it.
    let k = dev.kernel();
    let outside = k.bo_create(4096, BO_NOEXEC).unwrap();
    let outside_map = k.bo_mmap(&outside).unwrap();
    let pattern: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
    // SAFETY: the mapping holds 4096 bytes until bo_unmap below.
    unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), outside_map, pattern.len()) };
    let mut pool = GpuPool::new(dev.clone());
    let mut chain = JobChain::new();
    chain
        .add_write_value(&mut pool, target.gpu_va(), wv::IMMEDIATE_32, 9, [0, 0])
        .unwrap();
    chain
        .add_write_value(
            &mut pool,
            outside.gpu_va + 8,
            wv::IMMEDIATE_32,
            0x5eed,
            [0, 0],
        )
        .unwrap();
    assert_eq!(run(&dev, &pool, &chain, 0), None);
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "one file per submit");
    let snap = crate::hw::snapshot::Snapshot::parse(&std::fs::read(&files[0]).unwrap()).unwrap();
    assert_eq!(snap.gpu_id, 0x7212);
    assert_eq!(snap.jc, chain.head());
    assert_eq!(
        snap.blocks.len(),
        3,
        "the target BO, the pool BO and the BO made outside kmod::Device"
    );
    assert_eq!(
        snap.read(outside.gpu_va, 4096),
        Some(&pattern[..]),
        "the outside BO is dumped whole, as it was before the chain ran"
    );
    // SAFETY: as above; the chain has finished.
    let written = unsafe { std::ptr::read_unaligned(outside_map.add(8).cast::<u32>()) };
    assert_eq!(written, 0x5eed, "and the chain did write into it");
    let header = crate::hw::layout::words_from_bytes(snap.read(snap.jc, 32).unwrap());
    assert_eq!(header::TYPE.get(&header), JobType::WriteValue as u64);
    assert_eq!(
        header::EXCEPTION_STATUS.get(&header),
        0,
        "dumped before the GPU ran it"
    );
    k.bo_unmap(&outside, outside_map);
    k.bo_close(outside.handle);
    dev.bo_destroy(target);
    drop(pool);
    drop(dev);

    // Devices come and go (and reuse addresses); dump names never repeat.
    for round in 0..3u64 {
        let dev = Arc::new(Device::with_dump_dir(
            Box::new(SimDevice::new(SimModel::G52)),
            Some(dir.clone()),
        ));
        let target = dev.bo_create(4096, BO_NOEXEC).unwrap();
        let mut pool = GpuPool::new(dev.clone());
        let mut chain = JobChain::new();
        chain
            .add_write_value(&mut pool, target.gpu_va(), wv::IMMEDIATE_32, round, [0, 0])
            .unwrap();
        assert_eq!(run(&dev, &pool, &chain, 0), None);
        dev.bo_destroy(target);
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "four submits, four files: {names:?}");
    let prefix = format!("bifrost-vk-{}-", std::process::id());
    for name in &names {
        assert!(
            name.starts_with(&prefix) && name.ends_with(".pansnap"),
            "{name}"
        );
        let snap =
            crate::hw::snapshot::Snapshot::parse(&std::fs::read(dir.join(name)).unwrap()).unwrap();
        assert!(
            snap.read(snap.jc, 32).is_some(),
            "{name}: chain head dumped"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_two_slots_run_concurrently() {
    let (dev, trace) = sim();
    let k = dev.kernel();
    let mut pool = GpuPool::new(dev.clone());
    let mut blocked = JobChain::new();
    blocked
        .add_job(&mut pool, JobType::Null, &[], [0, 0], false)
        .unwrap();
    let mut free = JobChain::new();
    free.add_job(&mut pool, JobType::Null, &[], [0, 0], false)
        .unwrap();

    // A syncobj whose fence only the test signals.
    let gate = k.syncobj_create(false).unwrap();
    let fence = super::sync::Fence::pending();
    trace.sync().replace(gate, Some(fence.clone())).unwrap();

    let (s1, s0) = (
        k.syncobj_create(false).unwrap(),
        k.syncobj_create(false).unwrap(),
    );
    dev.submit(&Submit {
        jc: blocked.head(),
        in_syncs: &[gate],
        out_sync: s1,
        ..Default::default()
    })
    .unwrap();
    dev.submit(&Submit {
        jc: free.head(),
        out_sync: s0,
        requirements: JD_REQ_FS,
        ..Default::default()
    })
    .unwrap();
    // Slot 0 finishes while slot 1 still waits.
    assert!(
        k.syncobj_wait(&[s0], crate::kmod::deadline_after(5_000_000_000), true)
            .unwrap()
    );
    assert!(
        !k.syncobj_wait(&[s1], crate::kmod::deadline_after(20_000_000), true)
            .unwrap()
    );
    assert_eq!(
        trace.entries().iter().map(|e| e.slot).collect::<Vec<_>>(),
        vec![0]
    );
    trace.sync().signal(&fence, 0);
    assert!(
        k.syncobj_wait(&[s1], crate::kmod::deadline_after(5_000_000_000), true)
            .unwrap()
    );
    assert_eq!(
        trace.entries().iter().map(|e| e.slot).collect::<Vec<_>>(),
        vec![0, 1]
    );
}

#[test]
fn teardown_does_not_hang_on_a_chain_that_waits_forever() {
    let (dev, trace) = sim();
    let k = dev.kernel();
    let mut pool = GpuPool::new(dev.clone());
    let mut chain = JobChain::new();
    chain
        .add_job(&mut pool, JobType::Null, &[], [0, 0], false)
        .unwrap();
    let gate = k.syncobj_create(false).unwrap();
    trace
        .sync()
        .replace(gate, Some(super::sync::Fence::pending()))
        .unwrap();
    dev.submit(&Submit {
        jc: chain.head(),
        in_syncs: &[gate],
        ..Default::default()
    })
    .unwrap();
    drop(pool);
    drop(dev); // joins the job slots
    assert!(trace.entries().is_empty(), "the chain never ran");
}

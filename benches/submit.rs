//! Benchmarks on the simulated device: instance + device creation, and an
//! empty submit round trip (submit, fence wait, fence reset). Run with
//! `cargo bench --bench submit`. The library is loaded directly (its exported
//! vkGetInstanceProcAddr, no loader) and through the Khronos loader.

#[path = "../tests/common/mod.rs"]
mod common;

use ash::vk;

fn main() {
    divan::main();
}

fn direct_entry() -> ash::Entry {
    common::setup_env();
    // SAFETY: our own library, built next to this benchmark binary.
    unsafe { ash::Entry::load_from(common::library()) }.expect("load libbifrost_vk.so")
}

fn create_and_destroy(entry: &ash::Entry) {
    let instance = common::create_instance(entry, &[]).unwrap();
    // SAFETY: valid handles; everything is destroyed before returning.
    unsafe {
        let pd = instance.enumerate_physical_devices().unwrap()[0];
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        let device = common::create_device(&instance, pd, &info).unwrap();
        common::destroy_device(&device);
        instance.destroy_instance(None);
    }
}

#[divan::bench(sample_count = 50)]
fn instance_and_device_direct(bencher: divan::Bencher) {
    let entry = direct_entry();
    bencher.bench_local(|| create_and_destroy(&entry));
}

#[divan::bench(sample_count = 20)]
fn instance_and_device_via_loader(bencher: divan::Bencher) {
    let entry = common::entry();
    bencher.bench_local(|| create_and_destroy(&entry));
}

fn submit_round_trips(bencher: divan::Bencher, gpu: &common::Gpu) {
    let d = &gpu.device;
    // SAFETY: valid handles; the fence is destroyed after the GPU is idle.
    unsafe {
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let batch = [vk::SubmitInfo::default()];
        bencher.bench_local(|| {
            d.queue_submit(gpu.queue, &batch, fence).unwrap();
            d.wait_for_fences(&[fence], true, u64::MAX).unwrap();
            d.reset_fences(&[fence]).unwrap();
        });
        d.destroy_fence(fence, None);
    }
}

#[divan::bench(sample_count = 200)]
fn empty_submit_round_trip(bencher: divan::Bencher) {
    let gpu = common::Gpu::new();
    submit_round_trips(bencher, &gpu);
}

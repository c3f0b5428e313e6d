//! A panic inside an entry point comes back as an error code; the process
//! and the device keep working.

mod common;

use ash::vk;
use common::*;

#[test]
fn panic_in_an_entry_point_is_an_error_code() {
    let gpu = Gpu::new();
    type Pfn = unsafe extern "system" fn(vk::Device) -> vk::Result;
    let f = gpu
        .hook(c"vkBifrostTestPanic")
        .expect("BIFROST_VK_TEST_HOOKS=1 exposes it");
    // SAFETY: the hook has this signature (src/icd/api/test_hooks.rs).
    let f: Pfn = unsafe { std::mem::transmute(f) };
    // SAFETY: valid device.
    assert_eq!(unsafe { f(gpu.device.handle()) }, vk::Result::ERROR_UNKNOWN);
    assert_eq!(unsafe { f(gpu.device.handle()) }, vk::Result::ERROR_UNKNOWN);
    // The device still works.
    // SAFETY: valid handles.
    unsafe {
        gpu.device
            .queue_submit(gpu.queue, &[], vk::Fence::null())
            .unwrap();
        gpu.device.queue_wait_idle(gpu.queue).unwrap();
    }
}

//! The library loaded directly, without the Khronos loader, through its
//! exported vkGetInstanceProcAddr.

mod common;

use ash::vk::{self, Handle};

#[test]
fn load_without_the_loader() {
    common::setup_env();
    // SAFETY: loading our own library, which exports vkGetInstanceProcAddr.
    let entry = unsafe { ash::Entry::load_from(common::library()) }.expect("load libbifrost_vk.so");
    let instance = common::create_instance(&entry, &[common::GPDP2]).unwrap();
    // SAFETY: valid handles throughout.
    unsafe {
        let pds = instance.enumerate_physical_devices().unwrap();
        let p = instance.get_physical_device_properties(pds[0]);
        assert_eq!(p.device_name_as_c_str().unwrap(), c"Mali-G52 (simulated)");
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let device = instance
            .create_device(
                pds[0],
                &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
                None,
            )
            .unwrap();
        let queue = device.get_device_queue(0, 0);
        let fence = device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        device.queue_submit(queue, &[], fence).unwrap();
        device
            .wait_for_fences(&[fence], true, 5_000_000_000)
            .unwrap();
        device.destroy_fence(fence, None);
        device.destroy_device(None);
        // The dispatchable handles kept the loader magic (no loader here).
        assert_eq!(*(instance.handle().as_raw() as *const usize), 0x01CD_C0DE);
        instance.destroy_instance(None);
    }
}

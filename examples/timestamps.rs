//! Measure GPU time with timestamp queries, through the Khronos loader.
//!
//!     cargo build && cargo run --example timestamps
//!
//! Uses the manifest the build wrote (target/debug/bifrost_vk_icd.json) unless
//! VK_ICD_FILENAMES is already set. On the simulated device the timestamps
//! come from WRITE_VALUE jobs executed by the simulator's job manager.

use ash::vk;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::var_os("VK_ICD_FILENAMES").is_none() {
        let manifest = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/target/debug/bifrost_vk_icd.json"
        );
        // SAFETY: single-threaded, before the loader is loaded.
        unsafe { std::env::set_var("VK_ICD_FILENAMES", manifest) };
    }
    // SAFETY: loading the system's Khronos loader.
    let entry = unsafe { ash::Entry::load()? };
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_0);
    // SAFETY: valid handles and create infos throughout; everything is
    // destroyed before returning.
    unsafe {
        let instance = entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )?;
        let pd = *instance
            .enumerate_physical_devices()?
            .first()
            .ok_or("no Vulkan device")?;
        let props = instance.get_physical_device_properties(pd);
        let name = props.device_name_as_c_str()?.to_string_lossy().into_owned();
        let period = props.limits.timestamp_period;
        println!("device: {name}, timestamp period {period} ns");

        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let device = instance.create_device(
            pd,
            &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
            None,
        )?;
        let queue = device.get_device_queue(0, 0);
        let pool = device.create_command_pool(
            &vk::CommandPoolCreateInfo::default().queue_family_index(0),
            None,
        )?;
        let cb = device.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .command_buffer_count(1),
        )?[0];
        let qp = device.create_query_pool(
            &vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(2),
            None,
        )?;
        device.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())?;
        device.cmd_reset_query_pool(cb, qp, 0, 2);
        device.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, qp, 0);
        device.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, 1);
        device.end_command_buffer(cb)?;

        let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
        let cbs = [cb];
        let host_start = std::time::Instant::now();
        device.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            fence,
        )?;
        device.wait_for_fences(&[fence], true, u64::MAX)?;
        let host = host_start.elapsed();
        let mut ts = [0u64; 2];
        device.get_query_pool_results(
            qp,
            0,
            &mut ts,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
        )?;
        let gpu_ns = (ts[1] - ts[0]) as f64 * f64::from(period);
        println!(
            "timestamps: {} → {} ({gpu_ns:.0} ns on the GPU clock)",
            ts[0], ts[1]
        );
        println!(
            "submit → fence signalled: {:.1} µs on the host",
            host.as_secs_f64() * 1e6
        );

        device.destroy_fence(fence, None);
        device.destroy_query_pool(qp, None);
        device.destroy_command_pool(pool, None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
    Ok(())
}

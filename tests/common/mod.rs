//! Shared setup for the loader-level tests: point the Khronos loader at the
//! manifest cargo's build script wrote next to the library, select the
//! simulated device and enable the hidden test hooks, then load the loader.
#![allow(dead_code)]

use std::ffi::CStr;
use std::path::PathBuf;
use std::sync::Once;

use ash::vk;

pub mod objects;

/// target/<profile>/deps/, where the test binary and the freshly built
/// cdylib live (`cargo test` builds the library there but only `cargo build`
/// copies it up to target/<profile>/).
pub fn deps_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent()
        .expect("target/<profile>/deps/<test>")
        .to_path_buf()
}

pub fn library() -> PathBuf {
    deps_dir().join("libbifrost_vk.so")
}

/// A loader manifest for [`library`], written next to it.
pub fn manifest() -> PathBuf {
    let path = deps_dir().join("bifrost_vk_icd.test.json");
    let json = format!(
        "{{\"file_format_version\": \"1.0.0\", \"ICD\": {{\"library_path\": {:?}, \"api_version\": \"1.0.0\"}}}}\n",
        library().display().to_string()
    );
    if std::fs::read_to_string(&path).ok().as_deref() != Some(json.as_str()) {
        // Test binaries may run concurrently: write whole, then rename.
        let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
        std::fs::write(&tmp, &json).expect("write test manifest");
        std::fs::rename(&tmp, &path).expect("install test manifest");
    }
    path
}

/// Set the environment once, before any thread loads the loader.
pub fn setup_env() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let manifest = manifest();
        assert!(
            manifest.exists(),
            "{} missing: build.rs writes it",
            manifest.display()
        );
        assert!(library().exists(), "{} missing", library().display());
        // SAFETY: runs once, before this process starts any Vulkan thread.
        unsafe {
            std::env::set_var("VK_ICD_FILENAMES", &manifest);
            std::env::set_var("BIFROST_VK_DEVICE", "sim");
            std::env::set_var("BIFROST_VK_TEST_HOOKS", "1");
        }
    });
}

/// Serialises whole loader-level tests of one test binary: the Khronos
/// loader keeps process-global instance and device lists that it does not
/// lock everywhere (see [`DEVICE_LIFETIME_LOCK`]), and under a loaded machine
/// narrower locking still crashed inside libvulkan now and then. These tests
/// are short; running them one at a time costs little.
static LOADER_TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

thread_local! {
    /// How many [`TestEntry`]s this thread holds (a test may open a second
    /// device while holding the first: the lock is reentrant per thread).
    static ENTRIES_HELD: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The test lock as held by one [`TestEntry`]: the outermost holds the mutex.
struct SerialGuard(#[allow(dead_code)] Option<std::sync::MutexGuard<'static, ()>>);

impl SerialGuard {
    fn acquire() -> SerialGuard {
        let depth = ENTRIES_HELD.get();
        ENTRIES_HELD.set(depth + 1);
        if depth == 0 {
            SerialGuard(Some(
                LOADER_TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner()),
            ))
        } else {
            SerialGuard(None)
        }
    }
}

impl Drop for SerialGuard {
    fn drop(&mut self) {
        ENTRIES_HELD.set(ENTRIES_HELD.get() - 1);
    }
}

/// The Khronos loader, pointed at our ICD only, held with the test lock
/// until it is dropped. Derefs to [`ash::Entry`].
pub struct TestEntry {
    entry: ash::Entry,
    _serial: SerialGuard,
}

impl std::ops::Deref for TestEntry {
    type Target = ash::Entry;
    fn deref(&self) -> &ash::Entry {
        &self.entry
    }
}

/// The Khronos loader, pointed at our ICD only (one test at a time).
pub fn entry() -> TestEntry {
    let serial = SerialGuard::acquire();
    setup_env();
    // SAFETY: loading the system's libvulkan.so.1.
    let entry = unsafe { ash::Entry::load() }.expect("libvulkan.so.1 (install libvulkan1)");
    TestEntry {
        entry,
        _serial: serial,
    }
}

pub const GPDP2: &CStr = vk::KHR_GET_PHYSICAL_DEVICE_PROPERTIES2_NAME;

pub fn create_instance(
    entry: &ash::Entry,
    extensions: &[&CStr],
) -> Result<ash::Instance, vk::Result> {
    let names: Vec<_> = extensions.iter().map(|e| e.as_ptr()).collect();
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_0);
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_extension_names(&names);
    // SAFETY: valid create info.
    unsafe { entry.create_instance(&info, None) }
}

/// The Khronos loader (1.3.239 and still upstream, KhronosGroup/Vulkan-Loader
/// issue #2018) walks its process-global device list in vkGetDeviceProcAddr
/// while vkDestroyDevice frees list nodes without a lock, so concurrent
/// device creation and destruction from parallel tests crashes inside
/// libvulkan. Tests serialise both through this lock.
pub static DEVICE_LIFETIME_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// vkCreateDevice under [`DEVICE_LIFETIME_LOCK`].
pub fn create_device(
    instance: &ash::Instance,
    physical_device: vk::PhysicalDevice,
    info: &vk::DeviceCreateInfo<'_>,
) -> Result<ash::Device, vk::Result> {
    let _guard = DEVICE_LIFETIME_LOCK
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    // SAFETY: valid handles and create info.
    unsafe { instance.create_device(physical_device, info, None) }
}

/// vkDestroyDevice under [`DEVICE_LIFETIME_LOCK`].
pub fn destroy_device(device: &ash::Device) {
    let _guard = DEVICE_LIFETIME_LOCK
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    // SAFETY: the caller is done with the device.
    unsafe { device.destroy_device(None) };
}

/// An instance, the simulated physical device, a device and its queue.
/// Optional 1.0 features a test device enables besides the defaults of
/// `Gpu::open_with` (with VK_KHR_draw_indirect_count in the list).
#[derive(Clone, Copy, Default)]
struct Features {
    robust: bool,
    int64: bool,
}

pub struct Gpu {
    pub entry: TestEntry,
    pub instance: ash::Instance,
    pub physical_device: vk::PhysicalDevice,
    pub device: ash::Device,
    pub queue: vk::Queue,
}

impl Gpu {
    pub fn new() -> Gpu {
        Gpu::with_extensions(&[])
    }

    /// The simulated `model` ("g52" or "g72") with VK_EXT_transform_feedback
    /// and its `transformFeedback` feature enabled.
    pub fn with_xfb(model: &str) -> Gpu {
        Gpu::model_with(
            model,
            &[
                c"VK_EXT_transform_feedback",
                c"VK_EXT_index_type_uint8",
                c"VK_KHR_draw_indirect_count",
                c"VK_EXT_provoking_vertex",
            ],
        )
    }

    /// The simulated `model` with VK_EXT_transform_feedback and
    /// VK_EXT_primitives_generated_query, `transformFeedback`,
    /// `primitivesGeneratedQuery` and `...WithRasterizerDiscard` enabled.
    pub fn with_xfb_and_generated(model: &str) -> Gpu {
        Gpu::model_with(
            model,
            &[
                c"VK_EXT_transform_feedback",
                c"VK_EXT_primitives_generated_query",
            ],
        )
    }

    /// [`Gpu::with_xfb`] with `robustBufferAccess` enabled as well.
    pub fn with_xfb_robust(model: &str) -> Gpu {
        let entry = entry();
        // SAFETY: as in `model_with`.
        unsafe { std::env::set_var("BIFROST_VK_SIM_GPU", model) };
        Gpu::open_with(
            entry,
            &[c"VK_EXT_transform_feedback", c"VK_KHR_draw_indirect_count"],
            Features {
                robust: true,
                ..Features::default()
            },
        )
    }

    /// The simulated `model` with `extensions` (and the features
    /// `open_with` enables for them).
    pub fn model_with(model: &str, extensions: &[&CStr]) -> Gpu {
        let entry = entry();
        // SAFETY: loader-level tests run one at a time (the entry lock is
        // held), and the variable is read when the instance probes devices.
        unsafe { std::env::set_var("BIFROST_VK_SIM_GPU", model) };
        Gpu::open(entry, extensions)
    }

    pub fn with_extensions(extensions: &[&CStr]) -> Gpu {
        Gpu::open(entry(), extensions)
    }

    fn open(entry: TestEntry, extensions: &[&CStr]) -> Gpu {
        Gpu::open_with(entry, extensions, Features::default())
    }

    /// The simulated `model` with VK_KHR_multiview (feature `multiview`),
    /// VK_KHR_create_renderpass2 and what it requires, and the
    /// extensions of the queries a multiview subpass changes; the 1.0
    /// features of [`Gpu::with_xfb`] (vertex-shader stores among them).
    pub fn with_multiview(model: &str) -> Gpu {
        Gpu::model_with(
            model,
            &[
                c"VK_KHR_multiview",
                c"VK_KHR_maintenance2",
                c"VK_KHR_create_renderpass2",
                c"VK_EXT_transform_feedback",
                c"VK_EXT_primitives_generated_query",
                c"VK_KHR_draw_indirect_count",
            ],
        )
    }

    /// [`Gpu::with_xfb`]'s device (without the indexed-draw extensions)
    /// with `shaderInt64` enabled.
    pub fn with_int64(model: &str) -> Gpu {
        let entry = entry();
        // SAFETY: as in `model_with`.
        unsafe { std::env::set_var("BIFROST_VK_SIM_GPU", model) };
        Gpu::open_with(
            entry,
            &[c"VK_EXT_transform_feedback", c"VK_KHR_draw_indirect_count"],
            Features {
                int64: true,
                ..Features::default()
            },
        )
    }

    fn open_with(entry: TestEntry, extensions: &[&CStr], extra: Features) -> Gpu {
        let instance = create_instance(&entry, &[GPDP2]).expect("vkCreateInstance");
        // SAFETY: valid instance.
        let pds = unsafe { instance.enumerate_physical_devices() }.unwrap();
        assert_eq!(pds.len(), 1, "exactly the simulated device");
        let physical_device = pds[0];
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let names: Vec<_> = extensions.iter().map(|e| e.as_ptr()).collect();
        let mut xfb =
            vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default().transform_feedback(true);
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&names);
        let mut generated = vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT::default()
            .primitives_generated_query(true)
            .primitives_generated_query_with_rasterizer_discard(true);
        if extensions.contains(&c"VK_EXT_transform_feedback") {
            info = info.push_next(&mut xfb);
        }
        if extensions.contains(&c"VK_EXT_primitives_generated_query") {
            info = info.push_next(&mut generated);
        }
        let mut uint8 =
            vk::PhysicalDeviceIndexTypeUint8FeaturesEXT::default().index_type_uint8(true);
        if extensions.contains(&c"VK_EXT_index_type_uint8") {
            info = info.push_next(&mut uint8);
        }
        // With VK_KHR_draw_indirect_count, also drawIndirectFirstInstance
        // (the indirect-draw tests take first instances from the buffer)
        // and vertexPipelineStoresAndAtomics (tests/vertex_stores.rs).
        let features = vk::PhysicalDeviceFeatures::default()
            .draw_indirect_first_instance(true)
            .multi_draw_indirect(true)
            .vertex_pipeline_stores_and_atomics(true)
            .robust_buffer_access(extra.robust)
            .shader_int64(extra.int64);
        if extensions.contains(&c"VK_KHR_draw_indirect_count") {
            info = info.enabled_features(&features);
        }
        let mut provoking = vk::PhysicalDeviceProvokingVertexFeaturesEXT::default()
            .provoking_vertex_last(true)
            .transform_feedback_preserves_provoking_vertex(true);
        if extensions.contains(&c"VK_EXT_provoking_vertex") {
            info = info.push_next(&mut provoking);
        }
        let mut timeline =
            vk::PhysicalDeviceTimelineSemaphoreFeatures::default().timeline_semaphore(true);
        if extensions.contains(&c"VK_KHR_timeline_semaphore") {
            info = info.push_next(&mut timeline);
        }
        let mut multiview = vk::PhysicalDeviceMultiviewFeatures::default().multiview(true);
        if extensions.contains(&c"VK_KHR_multiview") {
            info = info.push_next(&mut multiview);
        }
        let mut scalar =
            vk::PhysicalDeviceScalarBlockLayoutFeatures::default().scalar_block_layout(true);
        if extensions.contains(&c"VK_EXT_scalar_block_layout") {
            info = info.push_next(&mut scalar);
        }
        let mut storage16 = vk::PhysicalDevice16BitStorageFeatures::default()
            .storage_buffer16_bit_access(true)
            .uniform_and_storage_buffer16_bit_access(true)
            .storage_push_constant16(true);
        if extensions.contains(&c"VK_KHR_16bit_storage") {
            info = info.push_next(&mut storage16);
        }
        let mut storage8 = vk::PhysicalDevice8BitStorageFeatures::default()
            .storage_buffer8_bit_access(true)
            .uniform_and_storage_buffer8_bit_access(true)
            .storage_push_constant8(true);
        if extensions.contains(&c"VK_KHR_8bit_storage") {
            info = info.push_next(&mut storage8);
        }
        let mut host_reset =
            vk::PhysicalDeviceHostQueryResetFeatures::default().host_query_reset(true);
        if extensions.contains(&c"VK_EXT_host_query_reset") {
            info = info.push_next(&mut host_reset);
        }
        let device = create_device(&instance, physical_device, &info).expect("vkCreateDevice");
        // SAFETY: family 0 index 0 exists.
        let queue = unsafe { device.get_device_queue(0, 0) };
        Gpu {
            entry,
            instance,
            physical_device,
            device,
            queue,
        }
    }

    /// Submit `cbs` in one batch and wait for its fence.
    pub fn submit_and_wait(&self, cbs: &[vk::CommandBuffer]) {
        let d = &self.device;
        // SAFETY: valid handles.
        unsafe {
            let fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            d.queue_submit(
                self.queue,
                &[vk::SubmitInfo::default().command_buffers(cbs)],
                fence,
            )
            .unwrap();
            d.wait_for_fences(&[fence], true, 100_000_000_000).unwrap();
            d.destroy_fence(fence, None);
        }
    }

    /// A hidden test hook, resolved through vkGetDeviceProcAddr.
    pub fn hook(&self, name: &CStr) -> vk::PFN_vkVoidFunction {
        // SAFETY: valid device and name.
        unsafe {
            (self.instance.fp_v1_0().get_device_proc_addr)(self.device.handle(), name.as_ptr())
        }
    }

    /// (BO count, BO bytes) of the simulated device.
    pub fn bo_stats(&self) -> (u64, u64) {
        type Pfn = unsafe extern "system" fn(vk::Device, *mut u64, *mut u64) -> vk::Result;
        let f = self
            .hook(c"vkBifrostTestBoStats")
            .expect("test hooks enabled");
        // SAFETY: the hook has this signature (src/icd/api/test_hooks.rs).
        let f: Pfn = unsafe { std::mem::transmute(f) };
        let (mut n, mut b) = (0, 0);
        // SAFETY: valid device and out pointers.
        assert_eq!(
            unsafe { f(self.device.handle(), &mut n, &mut b) },
            vk::Result::SUCCESS
        );
        (n, b)
    }

    pub fn command_pool(&self) -> vk::CommandPool {
        let info = vk::CommandPoolCreateInfo::default().queue_family_index(0);
        // SAFETY: valid device.
        unsafe { self.device.create_command_pool(&info, None) }.unwrap()
    }

    pub fn command_buffer(&self, pool: vk::CommandPool) -> vk::CommandBuffer {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid pool.
        unsafe { self.device.allocate_command_buffers(&info) }.unwrap()[0]
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: tests destroy their own objects before dropping the Gpu.
        unsafe {
            let _ = self.device.device_wait_idle();
            destroy_device(&self.device);
            self.instance.destroy_instance(None);
        }
    }
}

/// A host-visible buffer with its memory, mapped (memory type 0).
pub struct Buf {
    pub buffer: vk::Buffer,
    pub memory: vk::DeviceMemory,
    pub ptr: *mut u8,
    pub size: u64,
}

// SAFETY: the mapping is plain shared memory; tests give each thread its
// own buffers and touch them only while the GPU is idle.
unsafe impl Send for Buf {}
// SAFETY: as above.
unsafe impl Sync for Buf {}

impl Buf {
    pub fn new(d: &ash::Device, size: u64, usage: vk::BufferUsageFlags) -> Buf {
        // SAFETY: valid device; the memory type 0 is the only one.
        unsafe {
            let buffer = d
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .unwrap();
            let req = d.get_buffer_memory_requirements(buffer);
            let memory = d
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(0),
                    None,
                )
                .unwrap();
            d.bind_buffer_memory(buffer, memory, 0).unwrap();
            let ptr = d
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .unwrap()
                .cast::<u8>();
            Buf {
                buffer,
                memory,
                ptr,
                size,
            }
        }
    }

    /// The mapped bytes. Tests touch them only while the GPU is idle.
    #[allow(clippy::mut_from_ref)]
    pub fn bytes(&self) -> &mut [u8] {
        // SAFETY: the whole mapped buffer; no other reference is live
        // across calls (each use is a short borrow).
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.size as usize) }
    }

    pub fn write<T: Copy>(&self, at: usize, values: &[T]) {
        let n = std::mem::size_of_val(values);
        // SAFETY: plain data into the mapping, bounds checked by the slice.
        let src = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), n) };
        self.bytes()[at..at + n].copy_from_slice(src);
    }

    pub fn u32_at(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.bytes()[at..at + 4].try_into().unwrap())
    }

    pub fn destroy(&self, d: &ash::Device) {
        // SAFETY: the GPU is idle when tests destroy buffers.
        unsafe {
            d.destroy_buffer(self.buffer, None);
            d.free_memory(self.memory, None);
        }
    }
}

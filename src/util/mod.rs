//! Small shared helpers: logging setup and environment switches.
//!
//! Nothing here knows about Vulkan or the GPU.

pub mod sha256;

use std::sync::{Once, RwLock};

/// The driver's logger. It lives in a static of this library, not in a box
/// handed to `log` (`env_logger::Builder::try_init` leaks one): the Vulkan
/// loader unloads the driver at vkDestroyInstance, and a boxed logger would
/// stay allocated with nothing pointing at it (valgrind: "definitely lost").
/// [`drop_logger`] frees it when the library is unloaded.
struct DriverLogger(RwLock<Option<env_logger::Logger>>);

static LOGGER: DriverLogger = DriverLogger(RwLock::new(None));

impl log::Log for DriverLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        match self.0.read() {
            Ok(l) => l.as_ref().is_some_and(|l| l.enabled(metadata)),
            Err(_) => false,
        }
    }

    fn log(&self, record: &log::Record<'_>) {
        if let Ok(l) = self.0.read()
            && let Some(l) = l.as_ref()
        {
            l.log(record);
        }
    }

    fn flush(&self) {
        if let Ok(l) = self.0.read()
            && let Some(l) = l.as_ref()
        {
            l.flush();
        }
    }
}

/// Install the driver's logger once. `BIFROST_VK_LOG` takes env_logger
/// filter syntax (`warn`, `debug`, `bifrost_vk::kmod=trace` ...); default `warn`.
/// The cdylib has its own copy of `log`, so this never touches the host
/// application's logger.
pub fn init_logging() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let env = env_logger::Env::new()
            .filter_or("BIFROST_VK_LOG", "warn")
            .write_style("BIFROST_VK_LOG_STYLE");
        let logger = env_logger::Builder::from_env(env)
            .format_timestamp(None)
            .build();
        let max_level = logger.filter();
        if let Ok(mut slot) = LOGGER.0.write() {
            *slot = Some(logger);
        }
        // Fails only when something else installed a logger first (a test
        // binary linking the rlib); that one keeps logging then.
        if log::set_logger(&LOGGER).is_ok() {
            log::set_max_level(max_level);
        }
    });
}

/// Frees the logger's heap (filters, output target) when the library is
/// unloaded (`dlclose`) or the process exits; `log` calls after that are
/// dropped.
extern "C" fn drop_logger() {
    if let Ok(mut slot) = LOGGER.0.write() {
        slot.take();
    }
}

// An ELF destructor: the dynamic linker runs it at dlclose and at exit.
#[used]
#[unsafe(link_section = ".fini_array")]
static DROP_LOGGER_AT_UNLOAD: extern "C" fn() = drop_logger;

/// True when `BIFROST_VK_TEST_HOOKS=1`: exposes the hidden test-only entry
/// points (see docs/DEBUGGING.md). Never set it in production.
pub fn test_hooks_enabled() -> bool {
    std::env::var("BIFROST_VK_TEST_HOOKS").as_deref() == Ok("1")
}

/// Copy a string into a fixed C char array, NUL-terminated (truncating).
pub fn write_c_str(dst: &mut [std::ffi::c_char], s: &str) {
    let n = s.len().min(dst.len().saturating_sub(1));
    for (d, b) in dst.iter_mut().zip(s.as_bytes()[..n].iter()) {
        *d = *b as std::ffi::c_char;
    }
    if let Some(d) = dst.get_mut(n) {
        *d = 0;
    }
}

/// A C array as a slice (empty when `n` is 0 or `p` is null).
///
/// # Safety
/// `p` points to `n` valid elements when `n > 0`, alive for `'a`.
pub unsafe fn c_slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if n == 0 || p.is_null() {
        &[]
    } else {
        // SAFETY: per the contract.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

//! Small shared helpers: logging setup and environment switches.
//!
//! Nothing here knows about Vulkan or the GPU.

use std::sync::Once;

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
        let _ = env_logger::Builder::from_env(env)
            .format_timestamp(None)
            .try_init();
    });
}

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

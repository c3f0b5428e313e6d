//! The one macro that generates every entry point.
//!
//! [`vk_entry_points!`] turns `fn vkName(args) -> R { body }` into an
//! `unsafe extern "system"` function whose body runs inside
//! `catch_unwind`. A panic never unwinds into the application (which would
//! abort the process): it is logged and mapped by [`EntryReturn::on_panic`]
//! (`VK_ERROR_UNKNOWN` for VkResult functions, NULL for pointers, nothing for
//! void functions). Bodies of VkResult functions return [`VkResult<()>`]; the
//! `Err` side carries any code other than VK_SUCCESS (errors, and also
//! VK_INCOMPLETE, VK_NOT_READY, VK_TIMEOUT).

use ash::vk;

pub use crate::vk::VkResult;

/// How a shim's return type is produced from its body and from a panic.
pub trait EntryReturn: Sized {
    type Body;
    fn from_body(body: Self::Body) -> Self;
    fn on_panic(name: &str) -> Self;
}

impl EntryReturn for vk::Result {
    type Body = VkResult<()>;
    fn from_body(body: VkResult<()>) -> vk::Result {
        match body {
            Ok(()) => vk::Result::SUCCESS,
            Err(e) => e,
        }
    }
    fn on_panic(name: &str) -> vk::Result {
        log::error!("{name}: internal error (panic caught), returning VK_ERROR_UNKNOWN");
        vk::Result::ERROR_UNKNOWN
    }
}

impl EntryReturn for () {
    type Body = ();
    fn from_body(_: ()) {}
    fn on_panic(name: &str) {
        log::error!("{name}: internal error (panic caught) in a void command");
    }
}

impl EntryReturn for vk::PFN_vkVoidFunction {
    type Body = vk::PFN_vkVoidFunction;
    fn from_body(body: Self) -> Self {
        body
    }
    fn on_panic(name: &str) -> Self {
        log::error!("{name}: internal error (panic caught), returning NULL");
        None
    }
}

/// Run an entry point's body with the panic guard.
pub fn guard<R: EntryReturn>(name: &str, body: impl FnOnce() -> R::Body) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(b) => R::from_body(b),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            log::error!("{name}: panic: {msg}");
            R::on_panic(name)
        }
    }
}

/// Generate `unsafe extern "system"` entry points with the panic guard.
/// Attributes (docs, `#[unsafe(no_mangle)]` for the few exported symbols)
/// pass through.
#[macro_export]
macro_rules! vk_entry_points {
    ($(
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block
    )*) => {$(
        $(#[$attr])*
        // The body runs in an unsafe block on purpose: the shims are the FFI
        // edge, and the spec's valid usage is their safety contract.
        #[allow(non_snake_case, clippy::missing_safety_doc, clippy::macro_metavars_in_unsafe)]
        pub unsafe extern "system" fn $name($($arg: $ty),*) $(-> $ret)? {
            $crate::icd::entry::guard(stringify!($name), move || {
                // SAFETY: the Vulkan specification's valid-usage rules for
                // this command are the caller's side of the contract.
                #[allow(unused_unsafe)]
                unsafe { $body }
            })
        }
    )*};
}

/// A table entry: the shim coerced to its ash PFN type (a signature
/// mismatch is a compile error), then erased to `PFN_vkVoidFunction`.
#[macro_export]
macro_rules! procedure {
    ($func:path, $pfn:ty) => {{
        let f: $pfn = $func;
        // SAFETY: every PFN is an `unsafe extern "system" fn`; the loader
        // casts it back to the right type by name.
        Some(unsafe { core::mem::transmute::<$pfn, unsafe extern "system" fn()>(f) })
    }};
}

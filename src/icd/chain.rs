//! pNext chain walking. Unknown structures are skipped (and logged at debug
//! level): the loader and layers put their own structures in chains.

use ash::vk;

/// Iterate the structures of an input chain.
///
/// # Safety
/// `p_next` is null or a valid chain of Vulkan structures.
pub unsafe fn iter_in(
    p_next: *const std::ffi::c_void,
) -> impl Iterator<Item = *const vk::BaseInStructure<'static>> {
    let mut p = p_next.cast::<vk::BaseInStructure<'static>>();
    std::iter::from_fn(move || {
        if p.is_null() {
            return None;
        }
        let cur = p;
        // SAFETY: per the contract every element starts with sType/pNext.
        p = unsafe { (*cur).p_next };
        Some(cur)
    })
}

/// Iterate the structures of an output chain.
///
/// # Safety
/// `p_next` is null or a valid chain of Vulkan structures.
pub unsafe fn iter_out(
    p_next: *mut std::ffi::c_void,
) -> impl Iterator<Item = *mut vk::BaseOutStructure<'static>> {
    let mut p = p_next.cast::<vk::BaseOutStructure<'static>>();
    std::iter::from_fn(move || {
        if p.is_null() {
            return None;
        }
        let cur = p;
        // SAFETY: per the contract.
        p = unsafe { (*cur).p_next };
        Some(cur)
    })
}

/// The first structure of type `T` in an input chain.
///
/// # Safety
/// As [`iter_in`].
pub unsafe fn find_in<'a, T: vk::TaggedStructure>(
    p_next: *const std::ffi::c_void,
) -> Option<&'a T> {
    // SAFETY: per the contract.
    unsafe { iter_in(p_next) }
        // SAFETY: each element is readable.
        .find(|&s| unsafe { (*s).s_type } == T::STRUCTURE_TYPE)
        // SAFETY: sType says this is a T.
        .map(|s| unsafe { &*s.cast::<T>() })
}

/// Log the structure types of a chain that `known` does not list.
///
/// # Safety
/// As [`iter_in`].
pub unsafe fn log_unknown(
    what: &str,
    p_next: *const std::ffi::c_void,
    known: &[vk::StructureType],
) {
    // SAFETY: per the contract.
    for s in unsafe { iter_in(p_next) } {
        // SAFETY: readable element.
        let ty = unsafe { (*s).s_type };
        if !known.contains(&ty) {
            log::debug!("{what}: skipping unknown pNext structure {ty:?}");
        }
    }
}

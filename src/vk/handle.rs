//! Handles: dispatchable objects start with the loader's data word;
//! non-dispatchable handles are boxed objects cast to u64. Every object
//! carries a type tag, checked on each conversion, so a wrong or stale handle
//! of another type is an error instead of memory corruption.

use ash::vk;

/// Written into the first word of every dispatchable object (vk_icd.h:
/// `ICD_LOADER_MAGIC`); the loader checks it and then overwrites the word
/// with its dispatch table pointer.
pub const ICD_LOADER_MAGIC: usize = 0x01CD_C0DE;

/// A driver object type with a unique tag.
pub trait Object: Sized + Send + Sync + 'static {
    const TAG: u64;
}

#[repr(C)]
struct Dispatchable<T> {
    loader_data: usize,
    tag: u64,
    inner: T,
}

#[repr(C)]
struct NonDispatchable<T> {
    tag: u64,
    inner: T,
}

/// Box `value` as a dispatchable handle (pointer) stamped with the loader magic.
pub fn new_dispatchable<T: Object>(value: T) -> *mut u8 {
    Box::into_raw(Box::new(Dispatchable {
        loader_data: ICD_LOADER_MAGIC,
        tag: T::TAG,
        inner: value,
    }))
    .cast()
}

/// Borrow the object behind a dispatchable handle.
///
/// # Safety
/// `raw` is null or was returned by [`new_dispatchable`] and not yet freed.
pub unsafe fn dispatchable<'a, T: Object>(raw: *mut u8) -> Result<&'a T, vk::Result> {
    let p = raw.cast::<Dispatchable<T>>();
    if p.is_null() || !p.is_aligned() {
        log::error!("handle {raw:p} is not a driver handle");
        return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
    }
    // SAFETY: per the contract the pointer is a live Dispatchable of some type;
    // the tag sits at the same offset for every T.
    let d = unsafe { &*p };
    if d.tag != T::TAG {
        log::error!("handle {raw:p} is not a {}", std::any::type_name::<T>());
        return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
    }
    Ok(&d.inner)
}

/// Take back ownership of a dispatchable object.
///
/// # Safety
/// As [`dispatchable`]; the handle is dead afterwards.
pub unsafe fn free_dispatchable<T: Object>(raw: *mut u8) -> Option<T> {
    // SAFETY: per the contract.
    unsafe { dispatchable::<T>(raw) }.ok()?;
    // SAFETY: checked above that it is a live Dispatchable<T> from Box::into_raw.
    let b = unsafe { Box::from_raw(raw.cast::<Dispatchable<T>>()) };
    Some(b.inner)
}

/// Box `value` as a non-dispatchable handle.
pub fn new_handle<T: Object>(value: T) -> u64 {
    Box::into_raw(Box::new(NonDispatchable {
        tag: T::TAG,
        inner: value,
    })) as u64
}

/// Borrow the object behind a non-dispatchable handle.
///
/// # Safety
/// `raw` is 0 or was returned by [`new_handle`] and not yet freed.
pub unsafe fn handle<'a, T: Object>(raw: u64) -> Result<&'a T, vk::Result> {
    let p = raw as *const NonDispatchable<T>;
    if p.is_null() || !p.is_aligned() {
        // Not one of ours (a layer's wrapped handle passed through an
        // unknown command, or garbage): never dereference it.
        log::error!("handle {raw:#x} is not a driver handle");
        return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
    }
    // SAFETY: per the contract; the tag is at offset 0 for every T.
    let d = unsafe { &*p };
    if d.tag != T::TAG {
        log::error!("handle {raw:#x} is not a {}", std::any::type_name::<T>());
        return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
    }
    Ok(&d.inner)
}

/// Take back ownership of a non-dispatchable object (None for VK_NULL_HANDLE).
///
/// # Safety
/// As [`handle`]; the handle is dead afterwards.
pub unsafe fn free_handle<T: Object>(raw: u64) -> Option<T> {
    // SAFETY: per the contract.
    unsafe { handle::<T>(raw) }.ok()?;
    // SAFETY: a live NonDispatchable<T> from Box::into_raw.
    let b = unsafe { Box::from_raw(raw as *mut NonDispatchable<T>) };
    Some(b.inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct A(u32);
    struct B;
    impl Object for A {
        const TAG: u64 = 1;
    }
    impl Object for B {
        const TAG: u64 = 2;
    }

    #[test]
    fn handles_check_their_type() {
        let h = new_handle(A(7));
        // SAFETY: live handles from new_handle / new_dispatchable.
        unsafe {
            assert_eq!(handle::<A>(h).unwrap().0, 7);
            assert!(handle::<B>(h).is_err());
            assert!(handle::<A>(0).is_err());
            assert_eq!(free_handle::<A>(h).unwrap().0, 7);
            assert!(free_handle::<A>(0).is_none());

            let d = new_dispatchable(A(9));
            assert_eq!(*(d as *const usize), ICD_LOADER_MAGIC);
            assert!(dispatchable::<B>(d).is_err());
            assert_eq!(free_dispatchable::<A>(d).unwrap().0, 9);
        }
    }
}

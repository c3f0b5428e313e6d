//! The panfrost and DRM-core uAPI structs this driver uses, as `#[repr(C)]`
//! with compile-time size and offset checks.
//!
//! Written from the Linux uAPI headers' documented layout (include/uapi/drm/
//! panfrost_drm.h, drm.h, linux/sync_file.h; panfrost driver 1.0–1.6, whose
//! version history is the comment in drivers/gpu/drm/panfrost/panfrost_drv.c;
//! Mesa carries the same header as include/drm-uapi/panfrost_drm.h). See
//! docs/DESIGN.md "kmod is the only door to the GPU". Request numbers are
//! computed with rustix's `_IOW`/`_IOWR` equivalents from these sizes and unit-tested
//! against the known values.

use core::mem::{offset_of, size_of};
use rustix::ioctl::{Opcode, opcode};

/// DRM ioctl group 'd'; driver ioctls start at 0x40.
const DRM: u8 = b'd';
const DRM_COMMAND_BASE: u8 = 0x40;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmPanfrostSubmit {
    pub jc: u64,
    pub in_syncs: u64,
    pub in_sync_count: u32,
    pub out_sync: u32,
    pub bo_handles: u64,
    pub bo_handle_count: u32,
    pub requirements: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmPanfrostWaitBo {
    pub handle: u32,
    pub pad: u32,
    /// Absolute CLOCK_MONOTONIC deadline.
    pub timeout_ns: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmPanfrostCreateBo {
    pub size: u32,
    pub flags: u32,
    pub handle: u32,
    pub pad: u32,
    /// Out: the BO's GPU VA.
    pub offset: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmPanfrostMmapBo {
    pub handle: u32,
    pub flags: u32,
    /// Out: fake offset for mmap() on the DRM fd.
    pub offset: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmPanfrostGetParam {
    pub param: u32,
    pub pad: u32,
    pub value: u64,
}

/// `struct drm_version` (DRM core).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DrmVersion {
    pub version_major: i32,
    pub version_minor: i32,
    pub version_patchlevel: i32,
    pub name_len: usize,
    pub name: *mut u8,
    pub date_len: usize,
    pub date: *mut u8,
    pub desc_len: usize,
    pub desc: *mut u8,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmGemClose {
    pub handle: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmSyncobjCreate {
    pub handle: u32,
    pub flags: u32,
}
pub const DRM_SYNCOBJ_CREATE_SIGNALED: u32 = 1 << 0;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmSyncobjDestroy {
    pub handle: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmSyncobjWait {
    pub handles: u64,
    /// Absolute CLOCK_MONOTONIC deadline.
    pub timeout_nsec: i64,
    pub count_handles: u32,
    pub flags: u32,
    pub first_signaled: u32,
    pub pad: u32,
}
pub const DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL: u32 = 1 << 0;
pub const DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT: u32 = 1 << 1;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmSyncobjArray {
    pub handles: u64,
    pub count_handles: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmSyncobjTransfer {
    pub src_handle: u32,
    pub dst_handle: u32,
    pub src_point: u64,
    pub dst_point: u64,
    pub flags: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrmSyncobjHandle {
    pub handle: u32,
    pub flags: u32,
    pub fd: i32,
    pub pad: u32,
}
pub const DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE: u32 = 1 << 0;

/// `struct sync_file_info` (linux/sync_file.h): `status` 1 signalled, 0 active, <0 error.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SyncFileInfo {
    pub name: [u8; 32],
    pub status: i32,
    pub flags: u32,
    pub num_fences: u32,
    pub pad: u32,
    pub sync_fence_info: u64,
}

// Sizes and offsets, as the structs of panfrost_drm.h and drm.h lay them out.
const _: () = {
    assert!(size_of::<DrmPanfrostSubmit>() == 40);
    assert!(offset_of!(DrmPanfrostSubmit, jc) == 0);
    assert!(offset_of!(DrmPanfrostSubmit, in_syncs) == 8);
    assert!(offset_of!(DrmPanfrostSubmit, in_sync_count) == 16);
    assert!(offset_of!(DrmPanfrostSubmit, out_sync) == 20);
    assert!(offset_of!(DrmPanfrostSubmit, bo_handles) == 24);
    assert!(offset_of!(DrmPanfrostSubmit, bo_handle_count) == 32);
    assert!(offset_of!(DrmPanfrostSubmit, requirements) == 36);
    assert!(size_of::<DrmPanfrostWaitBo>() == 16);
    assert!(offset_of!(DrmPanfrostWaitBo, timeout_ns) == 8);
    assert!(size_of::<DrmPanfrostCreateBo>() == 24);
    assert!(offset_of!(DrmPanfrostCreateBo, flags) == 4);
    assert!(offset_of!(DrmPanfrostCreateBo, handle) == 8);
    assert!(offset_of!(DrmPanfrostCreateBo, offset) == 16);
    assert!(size_of::<DrmPanfrostMmapBo>() == 16);
    assert!(offset_of!(DrmPanfrostMmapBo, offset) == 8);
    assert!(size_of::<DrmPanfrostGetParam>() == 16);
    assert!(offset_of!(DrmPanfrostGetParam, value) == 8);
    assert!(size_of::<DrmVersion>() == 64);
    assert!(offset_of!(DrmVersion, name_len) == 16);
    assert!(offset_of!(DrmVersion, name) == 24);
    assert!(size_of::<DrmGemClose>() == 8);
    assert!(size_of::<DrmSyncobjCreate>() == 8);
    assert!(size_of::<DrmSyncobjDestroy>() == 8);
    assert!(size_of::<DrmSyncobjWait>() == 32);
    assert!(offset_of!(DrmSyncobjWait, count_handles) == 16);
    assert!(size_of::<DrmSyncobjArray>() == 16);
    assert!(size_of::<DrmSyncobjTransfer>() == 32);
    assert!(offset_of!(DrmSyncobjTransfer, flags) == 24);
    assert!(size_of::<DrmSyncobjHandle>() == 16);
    assert!(size_of::<SyncFileInfo>() == 56);
    assert!(offset_of!(SyncFileInfo, status) == 32);
};

pub const DRM_IOCTL_VERSION: Opcode = opcode::read_write::<DrmVersion>(DRM, 0x00);
pub const DRM_IOCTL_GEM_CLOSE: Opcode = opcode::write::<DrmGemClose>(DRM, 0x09);
pub const DRM_IOCTL_SYNCOBJ_CREATE: Opcode = opcode::read_write::<DrmSyncobjCreate>(DRM, 0xBF);
pub const DRM_IOCTL_SYNCOBJ_DESTROY: Opcode = opcode::read_write::<DrmSyncobjDestroy>(DRM, 0xC0);
pub const DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD: Opcode =
    opcode::read_write::<DrmSyncobjHandle>(DRM, 0xC1);
pub const DRM_IOCTL_SYNCOBJ_WAIT: Opcode = opcode::read_write::<DrmSyncobjWait>(DRM, 0xC3);
pub const DRM_IOCTL_SYNCOBJ_RESET: Opcode = opcode::read_write::<DrmSyncobjArray>(DRM, 0xC4);
pub const DRM_IOCTL_SYNCOBJ_TRANSFER: Opcode = opcode::read_write::<DrmSyncobjTransfer>(DRM, 0xCC);
pub const SYNC_IOC_FILE_INFO: Opcode = opcode::read_write::<SyncFileInfo>(b'>', 4);

pub const DRM_IOCTL_PANFROST_SUBMIT: Opcode =
    opcode::write::<DrmPanfrostSubmit>(DRM, DRM_COMMAND_BASE);
pub const DRM_IOCTL_PANFROST_WAIT_BO: Opcode =
    opcode::write::<DrmPanfrostWaitBo>(DRM, DRM_COMMAND_BASE + 0x01);
pub const DRM_IOCTL_PANFROST_CREATE_BO: Opcode =
    opcode::read_write::<DrmPanfrostCreateBo>(DRM, DRM_COMMAND_BASE + 0x02);
pub const DRM_IOCTL_PANFROST_MMAP_BO: Opcode =
    opcode::read_write::<DrmPanfrostMmapBo>(DRM, DRM_COMMAND_BASE + 0x03);
pub const DRM_IOCTL_PANFROST_GET_PARAM: Opcode =
    opcode::read_write::<DrmPanfrostGetParam>(DRM, DRM_COMMAND_BASE + 0x04);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_codes_match_the_uapi() {
        assert_eq!(DRM_IOCTL_PANFROST_SUBMIT, 0x4028_6440);
        assert_eq!(DRM_IOCTL_PANFROST_WAIT_BO, 0x4010_6441);
        assert_eq!(DRM_IOCTL_PANFROST_CREATE_BO, 0xC018_6442);
        assert_eq!(DRM_IOCTL_PANFROST_MMAP_BO, 0xC010_6443);
        assert_eq!(DRM_IOCTL_PANFROST_GET_PARAM, 0xC010_6444);
        assert_eq!(DRM_IOCTL_VERSION, 0xC040_6400);
        assert_eq!(DRM_IOCTL_GEM_CLOSE, 0x4008_6409);
        assert_eq!(DRM_IOCTL_SYNCOBJ_CREATE, 0xC008_64BF);
        assert_eq!(DRM_IOCTL_SYNCOBJ_DESTROY, 0xC008_64C0);
        assert_eq!(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, 0xC010_64C1);
        assert_eq!(DRM_IOCTL_SYNCOBJ_WAIT, 0xC020_64C3);
        assert_eq!(DRM_IOCTL_SYNCOBJ_RESET, 0xC010_64C4);
        assert_eq!(DRM_IOCTL_SYNCOBJ_TRANSFER, 0xC020_64CC);
        assert_eq!(SYNC_IOC_FILE_INFO, 0xC038_3E04);
    }

    #[test]
    fn submit_struct_bytes() {
        let s = DrmPanfrostSubmit {
            jc: 0x1122_3344_5566_7788,
            in_syncs: 0xaaaa,
            in_sync_count: 2,
            out_sync: 7,
            bo_handles: 0xbbbb,
            bo_handle_count: 3,
            requirements: 1,
        };
        let b = bytemuck::bytes_of(&s);
        assert_eq!(&b[0..8], &0x1122_3344_5566_7788u64.to_le_bytes());
        assert_eq!(&b[16..24], &[2, 0, 0, 0, 7, 0, 0, 0]);
        assert_eq!(&b[32..40], &[3, 0, 0, 0, 1, 0, 0, 0]);
        let c = DrmPanfrostCreateBo {
            size: 0x1000,
            flags: 1,
            ..Default::default()
        };
        assert_eq!(bytemuck::bytes_of(&c)[..8], [0, 0x10, 0, 0, 1, 0, 0, 0]);
    }
}

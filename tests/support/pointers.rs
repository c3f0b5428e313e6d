//! Shared by the corpus tests (`compiler_corpus.rs`, `sim_corpus.rs`):
//! corpus shaders that read physical storage buffer pointers
//! (`GL_EXT_buffer_reference`) from their push constants get the address of
//! one of their own buffers there, as an application would write what
//! `vkGetBufferDeviceAddress` returned; the rest of the push constants keep
//! the harness's pattern (a pattern as an address would only fault).

/// (push-constant byte offset, (set, binding)): the 64-bit address of that
/// binding's buffer is written at that offset.
type AddressSlot = (usize, (u32, u32));

/// The shaders that need addresses, and where.
pub const POINTER_PUSH_CONSTANTS: &[(&str, &[AddressSlot])] = &[
    ("buffer_reference.comp.spv", &[(0, (0, 0))]),
    (
        "buffer_reference_list.comp.spv",
        &[(0, (0, 0)), (8, (0, 1))],
    ),
];

/// Writes the addresses `name` needs into `push`; `address_of` gives a
/// binding's buffer address (the harness's own choice).
pub fn patch_push_constants(
    name: &str,
    push: &mut [u8],
    address_of: impl Fn((u32, u32)) -> Option<u64>,
) {
    let Some((_, slots)) = POINTER_PUSH_CONSTANTS.iter().find(|(n, _)| *n == name) else {
        return;
    };
    for &(at, binding) in *slots {
        let address = address_of(binding)
            .unwrap_or_else(|| panic!("{name}: binding {binding:?} has no buffer"));
        push[at..at + 8].copy_from_slice(&address.to_le_bytes());
    }
}

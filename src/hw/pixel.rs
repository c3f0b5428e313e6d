//! The memory layouts of the plain (non-packed) pixel formats a RAW render
//! target holds: how the blend unit's conversion writes a colour in the
//! genxml pixel format its `Memory Format` names (R8UI … RGBA32F, the
//! SNORM and 16-bit UNORM formats, R11F G11F B10F), and how a clear colour
//! becomes the same bytes. The one definition for the driver's clear words
//! (`jm::framebuffer`) and the simulator's BLEND (`kmod::sim`), as
//! [`super::format::pack_r11g11b10_ufloat`] is; the tests read the memory
//! back by the Vulkan formats' own definitions, not with this.
//!
//! Conversions are Vulkan's (the spec's "Fixed-Point Data Conversions":
//! "Conversion from Floating-Point to Normalized Fixed-Point" — clamp to
//! [0, 1] or [−1, 1], scale by 2^b − 1 or 2^(b−1) − 1, round to nearest,
//! ties away from zero here; NaN → 0 —, "Floating-Point Format
//! Conversions" — binary16 rounded to nearest even, overflow to infinity —,
//! and for integer formats the `VkClearColorValue` rule, "casting to the
//! integer type with fewer bits": the low bits; an integer output out of
//! the attachment's range is undefined in Vulkan, no test relies on it).

/// What the components of a pixel format are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawKind {
    Float,
    Unorm,
    Snorm,
    Uint,
    Sint,
    /// R11F G11F B10F (one 32-bit word).
    R11g11b10,
}

/// A pixel format's components: what they are, how many, of how many bits
/// each (8, 16 or 32), channel 0 in the lowest bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawLayout {
    pub kind: RawKind,
    pub components: u32,
    pub bits: u32,
}

impl RawLayout {
    /// Bytes of one pixel in memory.
    pub const fn bytes(self) -> u32 {
        match self.kind {
            RawKind::R11g11b10 => 4,
            _ => self.components * self.bits / 8,
        }
    }

    /// The layout of the genxml pixel format `name` ("R8UI", "RG16F",
    /// "RGBA8 SNORM" …); `None` for the formats this module does not
    /// convert (packed, compressed, YUV, depth, the blendable "AU"/"PU"/"TB"
    /// forms, 3-component, and RGBA32 SNORM/UNORM, which no Vulkan format
    /// has).
    pub fn of(name: &str) -> Option<RawLayout> {
        if name == "R11F G11F B10F" {
            return Some(RawLayout {
                kind: RawKind::R11g11b10,
                components: 3,
                bits: 0,
            });
        }
        let (components, rest) = if let Some(r) = name.strip_prefix("RGBA") {
            (4, r)
        } else if let Some(r) = name.strip_prefix("RG") {
            (2, r)
        } else if let Some(r) = name.strip_prefix('R') {
            (1, r)
        } else {
            return None;
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let bits: u32 = rest[..digits].parse().ok()?;
        let kind = match &rest[digits..] {
            "F" => RawKind::Float,
            "UI" => RawKind::Uint,
            "I" => RawKind::Sint,
            " UNORM" => RawKind::Unorm,
            " SNORM" => RawKind::Snorm,
            _ => return None,
        };
        let ok = match kind {
            RawKind::Float => matches!(bits, 16 | 32),
            RawKind::Uint | RawKind::Sint => matches!(bits, 8 | 16 | 32),
            _ => matches!(bits, 8 | 16),
        };
        ok.then_some(RawLayout {
            kind,
            components,
            bits,
        })
    }

    /// Whether the format holds integers (written from integer registers).
    pub const fn integer(self) -> bool {
        matches!(self.kind, RawKind::Uint | RawKind::Sint)
    }

    /// The pixel of a float colour (channels beyond the format's are
    /// ignored) as little-endian words, zero after its bytes; `None` for an
    /// integer format.
    pub fn pack_floats(self, v: [f32; 4]) -> Option<[u32; 4]> {
        let codes: [u32; 4] = match self.kind {
            RawKind::R11g11b10 => {
                return Some([
                    super::format::pack_r11g11b10_ufloat([v[0], v[1], v[2]]),
                    0,
                    0,
                    0,
                ]);
            }
            RawKind::Uint | RawKind::Sint => return None,
            RawKind::Float if self.bits == 16 => {
                v.map(|x| u32::from(half::f16::from_f32(x).to_bits()))
            }
            RawKind::Float => v.map(f32::to_bits),
            RawKind::Unorm => {
                let max = f64::from((1u32 << self.bits) - 1);
                v.map(|x| {
                    let x = if x.is_nan() {
                        0.0
                    } else {
                        f64::from(x).clamp(0.0, 1.0)
                    };
                    (x * max).round() as u32
                })
            }
            RawKind::Snorm => {
                let max = f64::from((1u32 << (self.bits - 1)) - 1);
                v.map(|x| {
                    let x = if x.is_nan() {
                        0.0
                    } else {
                        f64::from(x).clamp(-1.0, 1.0)
                    };
                    (x * max).round() as i32 as u32
                })
            }
        };
        Some(self.pack_codes(codes))
    }

    /// The pixel of integer register values (the low bits of each); `None`
    /// for a float or normalized format.
    pub fn pack_ints(self, v: [u32; 4]) -> Option<[u32; 4]> {
        self.integer().then(|| self.pack_codes(v))
    }

    /// Component codes of `bits` each (higher bits dropped) packed from
    /// the lowest byte up.
    fn pack_codes(self, codes: [u32; 4]) -> [u32; 4] {
        let mut out = [0u32; 4];
        let mask = if self.bits == 32 {
            u32::MAX
        } else {
            (1u32 << self.bits) - 1
        };
        for (c, &code) in codes.iter().enumerate().take(self.components as usize) {
            let bit = c as u32 * self.bits;
            out[(bit / 32) as usize] |= (code & mask) << (bit % 32);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_to_their_layouts() {
        let l = |n| RawLayout::of(n).map(|l| (l.kind, l.components, l.bits, l.bytes()));
        assert_eq!(l("R8UI"), Some((RawKind::Uint, 1, 8, 1)));
        assert_eq!(l("RG16I"), Some((RawKind::Sint, 2, 16, 4)));
        assert_eq!(l("RGBA16F"), Some((RawKind::Float, 4, 16, 8)));
        assert_eq!(l("RG32F"), Some((RawKind::Float, 2, 32, 8)));
        assert_eq!(l("RGBA8 SNORM"), Some((RawKind::Snorm, 4, 8, 4)));
        assert_eq!(l("R16 UNORM"), Some((RawKind::Unorm, 1, 16, 2)));
        assert_eq!(l("R11F G11F B10F").map(|x| x.3), Some(4));
        for bad in [
            "RGB8UI",
            "RGBA8 TB",
            "R5G6B5 AU",
            "RGBA32 SNORM",
            "R8F",
            "Z32",
            "RGBA4UI",
        ] {
            assert_eq!(RawLayout::of(bad), None, "{bad}");
        }
    }

    #[test]
    fn conversions_follow_the_vulkan_rules_by_hand() {
        let l = |n| RawLayout::of(n).unwrap();
        // SNORM: 127 × x rounded, −1 below, NaN 0; two's complement bytes.
        assert_eq!(
            l("RGBA8 SNORM").pack_floats([1.0, -2.0, 0.5, f32::NAN]),
            Some([0x00_40_81_7f, 0, 0, 0])
        );
        // −0.5 × 32767 = −16383.5 → −16384 (ties away from zero).
        assert_eq!(
            l("RG16 SNORM").pack_floats([-0.5, 0.25, 0.0, 0.0]),
            Some([0x2000_c000, 0, 0, 0])
        );
        assert_eq!(
            l("R16 UNORM").pack_floats([0.5, 9.0, 9.0, 9.0]),
            Some([32768, 0, 0, 0])
        );
        assert_eq!(
            l("RG16F").pack_floats([1.0, -2.0, 7.0, 7.0]),
            Some([0xc000_3c00, 0, 0, 0])
        );
        assert_eq!(
            l("RG32F").pack_floats([1.5, -0.0, 3.0, 3.0]),
            Some([1.5f32.to_bits(), (-0.0f32).to_bits(), 0, 0])
        );
        assert_eq!(l("R8UI").pack_ints([0x1ff, 7, 7, 7]), Some([0xff, 0, 0, 0]));
        assert_eq!(
            l("RGBA16I").pack_ints([(-2i32) as u32, 3, 0x12345, 1]),
            Some([0x0003_fffe, 0x0001_2345, 0, 0])
        );
        assert_eq!(l("RGBA8UI").pack_floats([1.0; 4]), None);
        assert_eq!(l("R16F").pack_ints([1; 4]), None);
    }
}

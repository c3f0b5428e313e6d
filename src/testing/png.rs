//! A PNG writer for rendered frames (test support): 8-bit RGBA, no
//! interlacing, every row with filter type 0 (None), the image data in a
//! zlib stream of stored (uncompressed) deflate blocks. Written from the PNG
//! specification (W3C, "Portable Network Graphics (PNG) Specification",
//! chunks IHDR/IDAT/IEND, CRC-32 of ISO 3309 over chunk type and data),
//! RFC 1950 (zlib: CMF/FLG header, Adler-32 trailer) and RFC 1951 §3.2.4
//! (stored blocks: BFINAL, BTYPE = 00, LEN, NLEN). Files are larger than a
//! compressing encoder's, which frames of a few hundred pixels squared can
//! afford, and any PNG reader opens them.

/// The eight bytes every PNG starts with.
pub const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

/// CRC-32 (ISO 3309 / ITU-T V.42, reflected polynomial 0xEDB88320), as PNG
/// chunks use it.
pub fn crc32(bytes: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        std::array::from_fn(|n| {
            let mut c = n as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            c
        })
    });
    !bytes.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

/// Adler-32 (RFC 1950 §8.2): two sums modulo 65521.
pub fn adler32(bytes: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    let (mut a, mut b) = (1u32, 0u32);
    // 5552 bytes is the most that cannot overflow the sums before reducing.
    for chunk in bytes.chunks(5552) {
        for &x in chunk {
            a += u32::from(x);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    b << 16 | a
}

/// A zlib stream (RFC 1950) of stored deflate blocks (RFC 1951) holding `data`.
pub fn zlib_stored(data: &[u8]) -> Vec<u8> {
    // CMF 0x78: deflate, 32 KiB window; FLG 0x01 makes CMF·256 + FLG a
    // multiple of 31 (no dictionary, "fastest" level).
    let mut out = vec![0x78, 0x01];
    let mut blocks = data.chunks(0xffff).peekable();
    if blocks.peek().is_none() {
        out.extend([1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none())); // BFINAL, BTYPE = 00
        let len = block.len() as u16;
        out.extend(len.to_le_bytes());
        out.extend((!len).to_le_bytes());
        out.extend(block);
    }
    out.extend(adler32(data).to_be_bytes());
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend((data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend(kind);
    out.extend(data);
    let crc = crc32(&out[start..]);
    out.extend(crc.to_be_bytes());
}

/// A PNG of `width` × `height` RGBA8 pixels (row-major, top row first).
/// Panics if `rgba` is not `4 × width × height` bytes (test support).
pub fn encode_rgba8(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    assert_eq!(rgba.len(), 4 * width as usize * height as usize);
    let mut out = SIGNATURE.to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    // Bit depth 8, colour type 6 (RGBA), deflate, adaptive filtering
    // method 0, no interlace.
    ihdr.extend([8, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    let mut raw = Vec::with_capacity(rgba.len() + height as usize);
    for row in rgba.chunks(4 * width as usize).take(height as usize) {
        raw.push(0); // filter type None
        raw.extend(row);
    }
    chunk(&mut out, b"IDAT", &zlib_stored(&raw));
    chunk(&mut out, b"IEND", &[]);
    out
}

/// Write [`encode_rgba8`]'s PNG to `path`.
pub fn write_rgba8(
    path: &std::path::Path,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> std::io::Result<()> {
    std::fs::write(path, encode_rgba8(width, height, rgba))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_published_check_values() {
        // The CRC-32 check value of "123456789" (the catalogue of
        // parametrised CRC algorithms, CRC-32/ISO-HDLC).
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
        // RFC 1950: Adler-32 of nothing is 1; "Wikipedia" is the worked
        // example of the Adler-32 article: 0x11E60398.
        assert_eq!(adler32(b""), 1);
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
        // Long inputs reduce modulo 65521 without overflowing.
        let big = vec![0xffu8; 1 << 20];
        let (mut a, mut b) = (1u64, 0u64);
        for &x in &big {
            a = (a + u64::from(x)) % 65521;
            b = (b + a) % 65521;
        }
        assert_eq!(adler32(&big), (b << 16 | a) as u32);
    }

    /// Read a PNG back by the specification: signature, chunk CRCs, IHDR,
    /// the zlib header, stored blocks with LEN/NLEN, Adler-32, filter bytes.
    fn decode(png: &[u8]) -> (u32, u32, Vec<u8>, Vec<[u8; 4]>) {
        assert_eq!(png[..8], SIGNATURE);
        let mut pos = 8;
        let mut chunks = Vec::new();
        while pos < png.len() {
            let len = u32::from_be_bytes(png[pos..pos + 4].try_into().unwrap()) as usize;
            let kind: [u8; 4] = png[pos + 4..pos + 8].try_into().unwrap();
            let data = &png[pos + 8..pos + 8 + len];
            let crc = u32::from_be_bytes(png[pos + 8 + len..pos + 12 + len].try_into().unwrap());
            assert_eq!(crc, crc32(&png[pos + 4..pos + 8 + len]), "{kind:?}");
            chunks.push((kind, data.to_vec()));
            pos += 12 + len;
        }
        assert_eq!(pos, png.len());
        let kinds: Vec<[u8; 4]> = chunks.iter().map(|c| c.0).collect();
        assert_eq!(kinds, [*b"IHDR", *b"IDAT", *b"IEND"]);
        let ihdr = &chunks[0].1;
        let w = u32::from_be_bytes(ihdr[0..4].try_into().unwrap());
        let h = u32::from_be_bytes(ihdr[4..8].try_into().unwrap());
        assert_eq!(ihdr[8..], [8, 6, 0, 0, 0]);
        let z = &chunks[1].1;
        assert_eq!((u16::from(z[0]) << 8 | u16::from(z[1])) % 31, 0);
        assert_eq!(z[0] & 0x0f, 8, "deflate");
        let mut raw = Vec::new();
        let mut p = 2;
        loop {
            let header = z[p];
            assert_eq!(header >> 1, 0, "stored block");
            let len = u16::from_le_bytes([z[p + 1], z[p + 2]]);
            let nlen = u16::from_le_bytes([z[p + 3], z[p + 4]]);
            assert_eq!(nlen, !len);
            raw.extend(&z[p + 5..p + 5 + len as usize]);
            p += 5 + len as usize;
            if header & 1 == 1 {
                break;
            }
        }
        assert_eq!(z[p..], adler32(&raw).to_be_bytes());
        let stride = 1 + 4 * w as usize;
        assert_eq!(raw.len(), stride * h as usize);
        let filters: Vec<u8> = raw.chunks(stride).map(|r| r[0]).collect();
        let pixels = raw
            .chunks(stride)
            .flat_map(|r| {
                r[1..]
                    .chunks(4)
                    .map(|p| [p[0], p[1], p[2], p[3]])
                    .collect::<Vec<_>>()
            })
            .collect();
        // IEND's CRC is the CRC of "IEND" alone: AE 42 60 82.
        assert_eq!(png[png.len() - 4..], [0xae, 0x42, 0x60, 0x82]);
        (w, h, filters, pixels)
    }

    #[test]
    fn frames_decode_back_to_their_pixels() {
        // 200 × 120 RGBA: 96,120 bytes of scanlines, two stored blocks.
        let (w, h) = (200u32, 120u32);
        let rgba: Vec<u8> = (0..w * h)
            .flat_map(|i| {
                let (x, y) = (i % w, i / w);
                [x as u8, y as u8, (x ^ y) as u8, 255 - (x + y) as u8]
            })
            .collect();
        let png = encode_rgba8(w, h, &rgba);
        let (dw, dh, filters, pixels) = decode(&png);
        assert_eq!((dw, dh), (w, h));
        assert!(filters.iter().all(|&f| f == 0));
        let flat: Vec<u8> = pixels.concat();
        assert_eq!(flat, rgba);
        // A 1 × 1 image and an empty stream still frame correctly.
        let (_, _, _, one) = decode(&encode_rgba8(1, 1, &[1, 2, 3, 4]));
        assert_eq!(one, vec![[1, 2, 3, 4]]);
        assert_eq!(
            zlib_stored(&[]),
            [0x78, 0x01, 1, 0, 0, 0xff, 0xff, 0, 0, 0, 1]
        );
    }

    /// An independent reader: Python's zlib (if python3 is present)
    /// inflates the IDAT stream to the same scanlines.
    #[test]
    fn python_zlib_inflates_the_image_data() {
        let (w, h) = (3u32, 2u32);
        let rgba: Vec<u8> = (0..24).collect();
        let png = encode_rgba8(w, h, &rgba);
        let dir = std::env::temp_dir().join(format!("bifrost-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.png");
        write_rgba8(&path, w, h, &rgba).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), png);
        let script = "import sys,zlib,struct\n\
            d=open(sys.argv[1],'rb').read()[8:]\n\
            out=b''\n\
            while d:\n\
            \x20n=struct.unpack('>I',d[:4])[0]\n\
            \x20t=d[4:8]\n\
            \x20assert zlib.crc32(d[4:8+n])==struct.unpack('>I',d[8+n:12+n])[0]\n\
            \x20out+=d[8:8+n] if t==b'IDAT' else b''\n\
            \x20d=d[12+n:]\n\
            sys.stdout.write(zlib.decompress(out).hex())\n";
        let Ok(run) = std::process::Command::new("python3")
            .arg("-c")
            .arg(script)
            .arg(&path)
            .output()
        else {
            eprintln!("skipped: python3 not available");
            return;
        };
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let mut want = String::new();
        for row in rgba.chunks(12) {
            want += "00";
            for b in row {
                want += &format!("{b:02x}");
            }
        }
        assert_eq!(String::from_utf8(run.stdout).unwrap(), want);
    }
}

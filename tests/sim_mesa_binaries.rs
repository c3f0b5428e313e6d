//! Mesa's standalone compute binaries (the reference vectors' G52 shaders,
//! see docs/DESIGN.md "The reference vectors") run through the COMPUTE job
//! emitter (`jm::compute`) on the simulated GPU, with PanVk's descriptor
//! conventions reproduced: FAU word 0/1 = compute sysvals (workgroup base,
//! group count), word 2 = descriptor set 0 (32-byte storage-buffer entries:
//! address, size), word 3 = the user push constants (what the PanVk snapshots
//! show). Results are checked against the GLSL, on v7 (8-lane warps) and v6
//! (4-lane warps). Skipped without the data.

use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::{Buffer, Run, SimGpu, binary_from_code};

fn code(name: &str) -> Option<Vec<u8>> {
    std::fs::read(format!(
        "{}/{name}.bin",
        bifrost_vk::reference_path!("mesa-g52/shaders")
    ))
    .ok()
}

/// Runs `name` with storage buffers `bindings` (set 0) and user push
/// constant words `push`.
fn dispatch(
    gpu: &mut SimGpu,
    name: &str,
    bindings: &[Buffer],
    push: &[u64],
    local: [u32; 3],
    groups: [u32; 3],
) -> Option<Run> {
    dispatch_with_ubos(gpu, name, bindings, &[], push, local, groups)
}

/// [`dispatch`] with a UBO table (`ubos`: address, bytes; index = position).
fn dispatch_with_ubos(
    gpu: &mut SimGpu,
    name: &str,
    bindings: &[Buffer],
    ubos: &[(u64, u32)],
    push: &[u64],
    local: [u32; 3],
    groups: [u32; 3],
) -> Option<Run> {
    let code = code(name)?;
    let set = gpu.alloc(4096);
    for (i, b) in bindings.iter().enumerate() {
        gpu.write(set.va + 32 * i as u64, &b.va.to_le_bytes());
        gpu.write(set.va + 32 * i as u64 + 8, &(b.size as u32).to_le_bytes());
    }
    let mut uniforms = vec![0u64, u64::from(groups[0]) << 32, set.va];
    uniforms.extend_from_slice(push);
    let mut binary = binary_from_code(&code, uniforms.len() as u32);
    binary.ubo_count = ubos.len() as u32;
    let code = gpu.upload(&binary);
    let run = gpu
        .run_compute_job(&bifrost_vk::jm::ComputeJob {
            binary: &binary,
            code,
            push_uniforms: &uniforms,
            local_size: local,
            groups,
            ubos,
            attributes: None,
            push_buffer: None,
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    eprintln!("{name}: {:?}", run.counters);
    assert_eq!(
        run.counters.hazards, 0,
        "{name}: reads before scoreboard waits"
    );
    Some(run)
}

const MODELS: [SimModel; 2] = [SimModel::G52, SimModel::G72];

#[test]
fn cs_loop() {
    for model in MODELS {
        let mut gpu = SimGpu::new(model);
        let x = gpu.alloc(4096);
        let y = gpu.alloc(4096);
        let n = gpu.alloc(4096);
        let xs: Vec<f32> = (0..1024)
            .map(|i| ((i * 37) % 101) as f32 * 0.75 - 20.0)
            .collect();
        gpu.write_f32s(x.va, &xs);
        let (scale, count) = (1.5f32, 40u32);
        let push = u64::from(scale.to_bits()) | (u64::from(count) << 32);
        if dispatch(
            &mut gpu,
            "cs_loop",
            &[x, y, n],
            &[push],
            [32, 1, 1],
            [4, 1, 1],
        )
        .is_none()
        {
            return;
        }
        let ys = gpu.read_f32s(y.va, 128);
        let ns = gpu.read_u32s(n.va, 128);
        for i in 0..128u32 {
            let mut acc = 0.0f32;
            let mut k = 0;
            while k < count {
                acc = acc.mul_add(scale, xs[((i + k) & 1023) as usize]);
                if acc > 1000.0 {
                    break;
                }
                k += 1;
            }
            assert_eq!(
                (ys[i as usize], ns[i as usize]),
                (acc, k),
                "{model:?} i={i}"
            );
        }
    }
}

#[test]
fn cs_divergent_if() {
    let mut results = Vec::new();
    for model in MODELS {
        let mut gpu = SimGpu::new(model);
        let d = gpu.alloc(4096);
        let o = gpu.alloc(32768);
        let input: Vec<u32> = (0..512u32)
            .map(|g| match g % 7 {
                0 => u32::MAX,
                1 | 4 => 2 * g + 1,
                _ => g * g,
            })
            .collect();
        gpu.write_u32s(d.va, &input);
        if dispatch(
            &mut gpu,
            "cs_divergent_if",
            &[d, o],
            &[],
            [8, 8, 1],
            [8, 1, 1],
        )
        .is_none()
        {
            return;
        }
        let dv = gpu.read_u32s(d.va, 512);
        let ov = gpu.read_f32s(o.va, 4096 + 64);
        let mut expect_o = vec![0.0f32; 4096 + 64];
        let mut expect_d = input.clone();
        // Invocations in workgroup order; the o[l + 4096] writes race between
        // workgroups (last writer wins), so compute them in dispatch order.
        for wg in 0..8u32 {
            for ly in 0..8u32 {
                for lx in 0..8u32 {
                    let (gx, gy) = (wg * 8 + lx, ly);
                    let g = (gy * 64 + gx) as usize;
                    let l = (ly * 8 + lx) as usize;
                    let v = input[g];
                    if v == u32::MAX {
                        continue;
                    }
                    let r = if v & 1 != 0 {
                        expect_d[g] = v.wrapping_mul(3).wrapping_add(1);
                        v as f32 * 0.5
                    } else {
                        let r = (v as f32).sqrt() + ly as f32;
                        expect_o[l + 4096] = r;
                        r
                    };
                    expect_o[g] = r + wg as f32;
                }
            }
        }
        assert_eq!(dv, expect_d, "{model:?}");
        for (i, (g, e)) in ov.iter().zip(&expect_o).enumerate() {
            assert!(
                (g - e).abs() <= 1e-5 * e.abs().max(1.0),
                "{model:?} o[{i}] = {g}, want {e}"
            );
        }
        results.push(ov);
    }
    assert_eq!(results[0], results[1], "v6 and v7 warps agree");
}

fn int_arith_ref(x: u32, y: i32) -> [u32; 4] {
    let yu = y as u32;
    let r0 = x
        .wrapping_add(7)
        .wrapping_mul(13)
        .wrapping_sub(x >> 3)
        .wrapping_add(x << 5)
        .wrapping_sub(x.wrapping_mul(yu));
    let r1 = (x & 0x00ff00ff) | (yu ^ 0x5a5a5a5a) | !(x >> 28);
    let r2 = y
        .wrapping_abs()
        .wrapping_add(y.min(-3))
        .wrapping_sub(y.max(x as i32))
        .wrapping_add(y / 7)
        .wrapping_add(y.rem_euclid(5))
        .wrapping_add(y >> 2);
    let msb = |v: u32| {
        if v == 0 {
            u32::MAX
        } else {
            31 - v.leading_zeros()
        }
    };
    let lsb = |v: u32| if v == 0 { u32::MAX } else { v.trailing_zeros() };
    let r3 = (x / (yu | 1))
        .wrapping_add(x % 10)
        .wrapping_add((x >> 4) & 0xff)
        .wrapping_add((x & !(0xf << 8)) | ((yu & 0xf) << 8))
        .wrapping_add(x.reverse_bits())
        .wrapping_add(x.count_ones())
        .wrapping_add(msb(x))
        .wrapping_add(lsb(yu));
    let wide = u64::from(x) * u64::from(yu);
    let (hi, lo) = ((wide >> 32) as u32, wide as u32);
    [r0.wrapping_add(hi), r1 ^ lo, r2 as u32, r3]
}

#[test]
fn cs_int_arith() {
    for model in MODELS {
        let mut gpu = SimGpu::new(model);
        let a = gpu.alloc(4096);
        let b = gpu.alloc(4096);
        let o = gpu.alloc(4096);
        let xs: Vec<u32> = (0..64u32)
            .map(|i| i.wrapping_mul(0x9e37_79b9).rotate_left(i % 13) ^ (i * 3))
            .collect();
        let ys: Vec<i32> = (0..64i32)
            .map(|i| match i % 4 {
                0 => i * 1000 - 20000,
                1 => -(i * i * 77),
                2 => i * 31,
                _ => 0x0765_4321 - i * 99_999,
            })
            .collect();
        gpu.write_u32s(a.va, &xs);
        gpu.write_u32s(b.va, &ys.iter().map(|&y| y as u32).collect::<Vec<_>>());
        if dispatch(
            &mut gpu,
            "cs_int_arith",
            &[a, b, o],
            &[],
            [64, 1, 1],
            [1, 1, 1],
        )
        .is_none()
        {
            return;
        }
        let out = gpu.read_u32s(o.va, 256);
        for i in 0..64 {
            assert_eq!(
                &out[4 * i..4 * i + 4],
                &int_arith_ref(xs[i], ys[i]),
                "{model:?} x={:#x} y={}",
                xs[i],
                ys[i]
            );
        }
    }
}

#[test]
fn cs_compare_select() {
    for model in MODELS {
        let mut gpu = SimGpu::new(model);
        let v = gpu.alloc(4096);
        let iv = gpu.alloc(4096);
        let o = gpu.alloc(4096);
        let fs: Vec<[f32; 4]> = (0..64)
            .map(|i| {
                let f = i as f32;
                match i % 5 {
                    0 => [f, f + 1.0, f, f32::NAN],
                    1 => [2.0, -1.0, 3.0, 3.0],
                    2 => [f * 0.5, f * 0.25, -f, 1.0],
                    3 => [1.0, 2.0, 3.0, 4.0],
                    _ => [-f, 0.0, f, -0.5],
                }
            })
            .collect();
        let is: Vec<[i32; 4]> = (0..64)
            .map(|i| match i % 4 {
                0 => [i, i + 1, -5, 3],
                1 => [0, -1, 7, 17],
                2 => [-i, -2 * i, 1, 17],
                _ => [i * 3, i, -1, -1],
            })
            .collect();
        gpu.write_f32s(v.va, &fs.iter().flatten().copied().collect::<Vec<_>>());
        gpu.write_u32s(
            iv.va,
            &is.iter().flatten().map(|&x| x as u32).collect::<Vec<_>>(),
        );
        if dispatch(
            &mut gpu,
            "cs_compare_select",
            &[v, iv, o],
            &[],
            [64, 1, 1],
            [1, 1, 1],
        )
        .is_none()
        {
            return;
        }
        let out = gpu.read_u32s(o.va, 256);
        for i in 0..64 {
            let f = fs[i];
            let n = is[i];
            let c = [
                f[0] < f[1],
                f[2] >= f[3],
                f[0] == f[2] || f[3].is_nan(),
                n[0] < n[1],
                (n[2] as u32) > (n[3] as u32),
                n[0] != 0 && n[3] == 17,
                f.iter().all(|&x| x > 0.0),
                n.contains(&-1),
            ];
            let mask = c
                .iter()
                .enumerate()
                .fold(0u32, |m, (k, &b)| m | (u32::from(b) << k));
            let s0 = if c[0] { f[2] } else { f[3] };
            let s1 = if c[3] { n[0] } else { n[1].wrapping_neg() };
            let s2 = if c[4] != c[5] { u32::MAX } else { mask };
            let sw = [f[3], f[2], f[1], f[0]];
            let yx = [f[1], f[0], f[3], f[2]];
            let s3: Vec<f32> = (0..4)
                .map(|k| if f[k] < yx[k] { sw[k] } else { f[k] })
                .collect();
            let e3 = s3[1].mul_add(s3[2], s3[0]) - s3[3];
            let got = &out[4 * i..4 * i + 4];
            assert_eq!(got[0], s0.to_bits(), "{model:?} s0 i={i}");
            assert_eq!(got[1], s1 as u32, "{model:?} s1 i={i}");
            assert_eq!(got[2], s2, "{model:?} s2 i={i}");
            let g3 = f32::from_bits(got[3]);
            assert!(
                (g3 - e3).abs() <= 1e-5 * e3.abs().max(1.0) || (g3.is_nan() && e3.is_nan()),
                "{model:?} s3 i={i}: {g3} vs {e3}"
            );
        }
    }
}

/// IEEE half → f32 (reference for the test, independent of the simulator).
fn half(h: u16) -> f32 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    match e {
        0 => s * m * 2f32.powi(-24),
        31 => s * f32::INFINITY,
        _ => s * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

/// f32 → half for values exactly representable in half.
fn to_half(x: f32) -> u16 {
    (0..=0xffffu32)
        .map(|h| h as u16)
        .find(|&h| half(h) == x && (h & 0x8000 != 0) == x.is_sign_negative())
        .expect("exactly representable")
}

#[test]
fn cs_convert() {
    for model in MODELS {
        let mut gpu = SimGpu::new(model);
        let u = gpu.alloc(4096);
        let of = gpu.alloc(4096);
        let ou = gpu.alloc(4096);
        let halves = [1.5f32, -2.25, 0.0, 100.0, -0.125, 7.0, 1024.0, -3.5];
        let fbits = [123.75f32, 0.5, 2.0, 1000.0, 3.25, 64.0, 9.5, 17.0];
        let input: Vec<[u32; 4]> = (0..64u32)
            .map(|i| {
                // Small enough that float(x) is exact in half precision.
                let x = if i % 8 == 0 { 0 } else { (i * 29 + 3) % 2048 };
                let sy = ((i as i32 * 1234) % 32000 - 16000) & !1;
                let sy2 = ((i as i32 * -777) % 30000) & !1;
                let y = (sy as u16 as u32) | ((sy2 as u16 as u32) << 16);
                let z = fbits[(i % 8) as usize].to_bits();
                let hw = u32::from(to_half(halves[(i % 8) as usize]))
                    | (u32::from(to_half(halves[((i + 3) % 8) as usize])) << 16);
                [x, y, z, hw]
            })
            .collect();
        gpu.write_u32s(u.va, &input.iter().flatten().copied().collect::<Vec<_>>());
        if dispatch(
            &mut gpu,
            "cs_convert",
            &[u, of, ou],
            &[],
            [64, 1, 1],
            [1, 1, 1],
        )
        .is_none()
        {
            return;
        }
        let gf = gpu.read_f32s(of.va, 256);
        let gu = gpu.read_u32s(ou.va, 256);
        for (i, w) in input.iter().enumerate() {
            let f_from_u = w[0] as f32;
            let f_from_i = w[1] as i32 as f32;
            let f_bits = f32::from_bits(w[2]);
            let hx = half(w[3] as u16);
            let hy = half((w[3] >> 16) as u16);
            let bytes: Vec<f32> = (0..4)
                .map(|k| ((w[0] >> (8 * k)) & 0xff) as f32 / 255.0)
                .collect();
            let sn = |h: u32| ((h as u16 as i16) as f32 / 32767.0).max(-1.0);
            let snorm = [sn(w[1]), sn(w[1] >> 16)];
            let f_bool = if w[2] > w[3] { 1.0 } else { 0.0 };
            let u_byte = (w[3] >> 16) & 0xff;
            let s_byte = ((w[3] << 8) as i32) >> 24;
            let ef = [
                f_from_u + f_from_i,
                f_bits * hx,
                hy + bytes[2] + snorm[0],
                f_bool + u_byte as f32 + s_byte as f32,
            ];
            for k in 0..4 {
                let g = gf[4 * i + k];
                assert!(
                    (g - ef[k]).abs() <= 1e-5 * ef[k].abs().max(1.0),
                    "{model:?} of[{i}].{k} = {g}, want {}",
                    ef[k]
                );
            }
            let u_from_f = f_bits as u32;
            let i_from_f = (hx * 100.0) as i32;
            let half_packed = u32::from(to_half(f_from_u)) | (u32::from(to_half(f_bits)) << 16);
            let unorm_packed = (0..4).fold(0u32, |a, k| {
                let b = bytes[3 - k];
                a | (((b.clamp(0.0, 1.0) * 255.0).round() as u32) << (8 * k))
            });
            let sp = |x: f32| ((x * 0.5).clamp(-1.0, 1.0) * 32767.0).round() as i32 as u16 as u32;
            let snorm_packed = sp(snorm[0]) | (sp(snorm[1]) << 16);
            let eu = [
                u_from_f,
                (i_from_f as u32).wrapping_add(u32::from(w[0] != 0)),
                half_packed ^ unorm_packed,
                snorm_packed.wrapping_add(f_from_i.to_bits()),
            ];
            assert_eq!(&gu[4 * i..4 * i + 4], &eu, "{model:?} ou[{i}] for {w:x?}");
        }
    }
}

#[test]
fn cs_float_arith_within_tolerance() {
    for model in MODELS {
        let mut gpu = SimGpu::new(model);
        let v = gpu.alloc(4096);
        let o = gpu.alloc(4096);
        let xs: Vec<[f32; 4]> = (0..64)
            .map(|i| {
                let f = i as f32;
                [
                    0.37 * f - 9.0,
                    1.25 + 0.11 * f,
                    (f - 32.0) * 0.173,
                    if i % 3 == 0 { -2.5 - f } else { 0.5 + 0.07 * f },
                ]
            })
            .collect();
        gpu.write_f32s(v.va, &xs.iter().flatten().copied().collect::<Vec<_>>());
        if dispatch(
            &mut gpu,
            "cs_float_arith",
            &[v, o],
            &[],
            [64, 1, 1],
            [1, 1, 1],
        )
        .is_none()
        {
            return;
        }
        let got = gpu.read_f32s(o.va, 256);
        let mut worst = 0.0f64;
        for (i, x) in xs.iter().enumerate() {
            let [xx, xy, xz, xw] = x.map(f64::from);
            let a = xx * xy + xz;
            let b = xy * xz - xw;
            let c = xx / xw + xy.abs().sqrt() + 1.0 / (xz * xz + 1.0).sqrt();
            let d = xz.exp2() + (xw.abs() + 1.0).log2() + xx.sin() + xy.cos();
            let sign = if xz > 0.0 {
                1.0
            } else if xz < 0.0 {
                -1.0
            } else {
                0.0
            };
            let e = xx.floor()
                + (xy - xy.floor())
                + xz.clamp(0.0, 1.0)
                + xw.min(2.5)
                + (-xx).max(xy)
                + sign
                + xw.trunc()
                + xx.round_ties_even()
                + xy.ceil();
            let dot = xx * xw + xy * xz + xz * xy + xw * xx;
            let expect = [a, b, c, d].map(|t| t * e - dot * 0.25);
            for k in 0..4 {
                let g = f64::from(got[4 * i + k]);
                // sin/cos use a 64-entry table plus a 2nd-order correction,
                // exp2/log2 and rcp/rsq their own approximations: allow for
                // those, scaled by the magnitudes involved.
                let scale = e.abs().max(1.0) * [a, b, c, d][k].abs().max(1.0) + dot.abs();
                let tol = 2e-4 * scale;
                worst = worst.max((g - expect[k]).abs() / scale);
                assert!(
                    (g - expect[k]).abs() <= tol,
                    "{model:?} o[{i}].{k} = {g}, GLSL says {}",
                    expect[k]
                );
            }
        }
        eprintln!("cs_float_arith {model:?}: worst scaled error {worst:e}");
    }
}

/// The memory `cs_buffer_reference` works on: 64 particles of 256 bytes,
/// `out_words` and the window `Words(addr)` writes into.
struct BufferReferenceSetup {
    particles: Buffer,
    out: Buffer,
    words: Buffer,
    /// `pc.base`: `addr = base + i * stride + 2^32` must land in `words`
    /// (the VA space ends at 4 GiB), so base wraps below zero and the
    /// 64-bit additions carry into (and out of) the high word.
    base: u64,
    stride: u32,
}

impl BufferReferenceSetup {
    fn new(gpu: &mut SimGpu) -> BufferReferenceSetup {
        let particles = gpu.alloc(64 * 256);
        let out = gpu.alloc(4096);
        let words = gpu.alloc(64 * 64 + 64);
        for i in 0..64u64 {
            let f = i as f32;
            gpu.write_f32s(particles.va + 256 * i, &[f, 2.0 * f, -f, 1.0]);
            gpu.write_f32s(particles.va + 256 * i + 16, &[0.5, -1.0, 0.25, 2.0]);
            // pad[13] at 32 + 52.
            gpu.write_f32s(particles.va + 256 * i + 32 + 52, &[0.125 * f]);
        }
        let base = words.va.wrapping_sub(1 << 32);
        BufferReferenceSetup {
            particles,
            out,
            words,
            base,
            stride: 64,
        }
    }

    /// The push constants (`PC`: particles, out_words, base, stride).
    fn push(&self) -> [u64; 4] {
        [
            self.particles.va,
            self.out.va,
            self.base,
            u64::from(self.stride),
        ]
    }

    /// Every byte the shader may touch, buffer by buffer.
    fn memory(&self, gpu: &SimGpu) -> [Vec<u8>; 3] {
        [&self.particles, &self.out, &self.words].map(|b| gpu.read(b.va, b.size as usize))
    }

    /// What the GLSL computes, invocation by invocation (one workgroup of 64).
    fn check(&self, gpu: &SimGpu, who: &str) {
        for i in 0..64u64 {
            let f = i as f32;
            let k = 0.125 * f;
            let pos = [f + 0.5 * k, 2.0 * f - k, -f + 0.25 * k, 1.0 + 2.0 * k];
            assert_eq!(
                gpu.read_f32s(self.particles.va + 256 * i, 4),
                pos,
                "{who} p[{i}]"
            );
            let addr = self
                .base
                .wrapping_add(i * u64::from(self.stride))
                .wrapping_add(1 << 32);
            assert_eq!(gpu.read_f32s(addr + 12, 1)[0], pos[0], "{who} w[3] of {i}");
            assert_eq!(
                gpu.read_u32s(self.out.va + 4 * i, 1)[0],
                ((addr >> 32) as u32) ^ (addr as u32),
                "{who} out_words[{i}]"
            );
        }
    }
}

/// Mesa's binary of `cs_buffer_reference` on `model`, or `None` without the data.
fn mesa_buffer_reference(model: SimModel) -> Option<(SimGpu, BufferReferenceSetup)> {
    let mut gpu = SimGpu::new(model);
    let setup = BufferReferenceSetup::new(&mut gpu);
    let code = code("cs_buffer_reference")?;
    // No descriptor sets: u0/u1 sysvals, then the push constants.
    let mut uniforms = vec![0u64, 1 << 32];
    uniforms.extend_from_slice(&setup.push());
    let binary = binary_from_code(&code, uniforms.len() as u32);
    let run = gpu
        .run_compute(&binary, &uniforms, [64, 1, 1], [1, 1, 1])
        .unwrap_or_else(|e| panic!("{model:?}: {e}"));
    assert_eq!(run.counters.hazards, 0);
    Some((gpu, setup))
}

#[test]
fn cs_buffer_reference_64bit_addresses() {
    for model in MODELS {
        let Some((gpu, setup)) = mesa_buffer_reference(model) else {
            return;
        };
        setup.check(&gpu, &format!("mesa {model:?}"));
    }
}

/// The same SPIR-V through our compiler (`PhysicalStorageBufferAddresses`:
/// pointers from push constants, a pointer from a 64-bit integer, 64-bit
/// address arithmetic), run in the same set-up: the memory must be what
/// the GLSL computes, what `ir::interp` computes from the lowered IR, and
/// byte for byte what Mesa's binary leaves.
#[test]
fn cs_buffer_reference_ours() {
    use bifrost_vk::compiler::bifrost::{Options, compile};
    use bifrost_vk::compiler::ir::Stage;
    use bifrost_vk::compiler::ir::interp::{DrawState, Memory, run_workgroup};
    use bifrost_vk::compiler::passes::SysvalBlock;
    use bifrost_vk::compiler::pipeline::compile_front;

    let path = format!(
        "{}/cs_buffer_reference.spv",
        bifrost_vk::reference_path!("mesa-g52/shaders")
    );
    let Ok(spv) = std::fs::read(&path) else {
        eprintln!("skipped: no {path}");
        return;
    };
    let front = compile_front(&spv, "main", Stage::Compute, &Default::default())
        .unwrap_or_else(|e| panic!("front half: {e}"));
    let lowered = &front.main;
    for model in MODELS {
        let mut gpu = SimGpu::new(model);
        let setup = BufferReferenceSetup::new(&mut gpu);
        let before = setup.memory(&gpu);
        let push: Vec<u8> = setup.push().iter().flat_map(|w| w.to_le_bytes()).collect();
        let push_buf = gpu.alloc(push.len() as u64);
        gpu.write(push_buf.va, &push);
        let sysvals = SysvalBlock {
            push_constants_address: push_buf.va,
            num_workgroups: [1, 1, 1],
            ..SysvalBlock::default()
        };
        let words = lowered.push_uniforms.fill_words(&sysvals, &push);
        let options = Options {
            arch: model.arch().into(),
            push_uniform_words: Some(lowered.push_uniforms.fau_words()),
            ubo_table: false,
        };
        let binary = compile(&lowered.shader, options).unwrap_or_else(|e| panic!("{model:?}: {e}"));
        assert!(
            binary.buffers.is_empty(),
            "no descriptors: {:?}",
            binary.buffers
        );
        let run = gpu
            .run_compute(&binary, &words, [64, 1, 1], [1, 1, 1])
            .unwrap_or_else(|e| panic!("{model:?}: {e}"));
        assert_eq!(run.counters.hazards, 0);
        setup.check(&gpu, &format!("ours {model:?}"));
        let ours = setup.memory(&gpu);

        // The interpreter, from the same lowered IR and the same memory.
        let mut mem = Memory::new();
        for (b, bytes) in [&setup.particles, &setup.out, &setup.words]
            .into_iter()
            .zip(&before)
        {
            mem.map(b.va, bytes.clone()).unwrap();
        }
        mem.map(push_buf.va, push.clone()).unwrap();
        let state = DrawState {
            push_uniforms: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            push_constants: push.clone(),
            ..DrawState::default()
        };
        run_workgroup(&lowered.shader, &state, &mut mem, [0, 0, 0])
            .unwrap_or_else(|e| panic!("interpreter: {e}"));
        for (b, got) in [&setup.particles, &setup.out, &setup.words]
            .into_iter()
            .zip(&ours)
        {
            assert!(
                mem.range(b.va).unwrap() == got.as_slice(),
                "{model:?}: the interpreter and the simulator differ at {:#x}",
                b.va
            );
        }

        // Mesa's binary in the same set-up leaves the same bytes.
        if let Some((mesa_gpu, mesa_setup)) = mesa_buffer_reference(model) {
            assert!(
                mesa_setup.memory(&mesa_gpu) == ours,
                "{model:?}: memory differs from Mesa's"
            );
        }
    }
}

/// `cs_ubo_push`'s UBO (std140: mat4 m, vec4 bias, uvec4 sel, vec4
/// table[16]; 352 bytes), push constants (scale, n, offset) and what its
/// GLSL computes for invocation `i` when the bound range is `range` bytes:
/// the UBO table's `Entries` is the range in 16-byte units, a vec4 past it
/// reads zeros (the simulator's robust reading of the hardware's check).
/// Every value is a small multiple of 1/2, so the sums are exact in any
/// order and with or without fused multiply-adds.
struct UboPush {
    ubo: Vec<f32>,
    scale: f32,
    n: u32,
    offset: [f32; 2],
}

impl UboPush {
    const BYTES: u32 = 352;

    fn new() -> UboPush {
        let mut ubo = vec![0f32; Self::BYTES as usize / 4];
        for (j, w) in ubo[..16].iter_mut().enumerate() {
            *w = ((j * 5) % 7) as f32 - 3.0;
        }
        ubo[16..20].copy_from_slice(&[1.0, 2.0, -3.0, 4.5]);
        // sel.x = 5 (a uint in the float array's bytes).
        ubo[20] = f32::from_bits(5);
        for t in 0..16 {
            for k in 0..4 {
                ubo[24 + 4 * t + k] = (10 * t + k) as f32 - 70.0;
            }
        }
        UboPush {
            ubo,
            scale: 0.5,
            n: 100,
            offset: [3.0, -2.0],
        }
    }

    fn push_bytes(&self) -> Vec<u8> {
        [
            self.scale.to_bits(),
            self.n,
            self.offset[0].to_bits(),
            self.offset[1].to_bits(),
        ]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
    }

    fn expected(&self, i: u32, range: u32) -> Option<[f32; 4]> {
        if i >= self.n {
            return None;
        }
        let vec4 = |byte: u32| -> [f32; 4] {
            if byte + 16 > range.div_ceil(16) * 16 {
                return [0.0; 4];
            }
            let w = byte as usize / 4;
            [
                self.ubo[w],
                self.ubo[w + 1],
                self.ubo[w + 2],
                self.ubo[w + 3],
            ]
        };
        let p = [i as f32 * self.scale, self.offset[0], self.offset[1], 1.0];
        let bias = vec4(64);
        let sel = self.ubo[20].to_bits();
        let t = vec4(96 + 16 * ((i + sel) & 15));
        let mut r = [0f32; 4];
        for (k, r) in r.iter_mut().enumerate() {
            let column = |j: u32| vec4(16 * j)[k];
            *r = (0..4).map(|j| column(j as u32) * p[j]).sum::<f32>() + bias[k] + t[k];
        }
        Some(r)
    }
}

/// `cs_ubo_push` reads its UBO through the job's UBO table: Mesa's binary
/// (`LOAD.i128.ubo`, PanVk's layout: UBO 0, the output buffer at set
/// entry 1, push constants at FAU word 3) and ours as the driver compiles
/// it (`Options::ubo_table`: the same `LOAD.*.ubo` messages, the output
/// buffer's address word after the push constants) give the GLSL's values
/// on v7 and v6, with the whole UBO bound and with a range that ends
/// before `table[13]` (those entries read zeros); ours also equals
/// `ir::interp` on the lowered IR with the whole UBO.
#[test]
fn cs_ubo_push_through_the_ubo_table() {
    use bifrost_vk::compiler::bifrost::{Options, compile};
    use bifrost_vk::compiler::ir::Stage;
    use bifrost_vk::compiler::ir::interp::{BufferRange, DrawState, Memory, run_workgroup};
    use bifrost_vk::compiler::passes::SysvalBlock;
    use bifrost_vk::compiler::pipeline::compile_front;

    let path = format!(
        "{}/cs_ubo_push.spv",
        bifrost_vk::reference_path!("mesa-g52/shaders")
    );
    let Ok(spv) = std::fs::read(&path) else {
        eprintln!("skipped: no {path}");
        return;
    };
    let u = UboPush::new();
    let push = u.push_bytes();
    let front = compile_front(&spv, "main", Stage::Compute, &Default::default())
        .unwrap_or_else(|e| panic!("front half: {e}"));
    let lowered = &front.main;
    const INVOCATIONS: u32 = 128;
    let out_bytes = 16 * u64::from(INVOCATIONS);
    let check = |got: &[f32], range: u32, what: &str| {
        for i in 0..INVOCATIONS {
            let g = &got[4 * i as usize..4 * i as usize + 4];
            match u.expected(i, range) {
                Some(want) => assert_eq!(g, want, "{what}: invocation {i}"),
                // Returned early: the canary stays.
                None => assert!(
                    g.iter().all(|x| x.to_bits() == 0xeeee_eeee),
                    "{what}: invocation {i} wrote {g:?}"
                ),
            }
        }
    };
    for model in MODELS {
        for range in [UboPush::BYTES, 96 + 13 * 16 - 8] {
            let what = format!("{model:?}, a {range}-byte range");
            // Ours.
            let mut gpu = SimGpu::new(model);
            let ubo = gpu.alloc(4096);
            gpu.write_f32s(ubo.va, &u.ubo);
            let out = gpu.alloc(out_bytes);
            gpu.write_u32s(out.va, &vec![0xeeee_eeee; 4 * INVOCATIONS as usize]);
            let options = Options {
                arch: model.arch().into(),
                push_uniform_words: Some(lowered.push_uniforms.fau_words()),
                ubo_table: true,
            };
            let binary =
                compile(&lowered.shader, options).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(binary.ubos, [(0, 0)], "{what}");
            assert_eq!(
                binary.buffers,
                [(0, 1)],
                "{what}: only the output's address"
            );
            let sysvals = SysvalBlock {
                num_workgroups: [2, 1, 1],
                ..SysvalBlock::default()
            };
            let mut words = lowered.push_uniforms.fill_words(&sysvals, &push);
            words.push(out.va);
            let code = gpu.upload(&binary);
            // Without its UBO table the job is not written at all.
            let job = |ubos| bifrost_vk::jm::ComputeJob {
                binary: &binary,
                code,
                push_uniforms: &words,
                local_size: [64, 1, 1],
                groups: [2, 1, 1],
                ubos,
                attributes: None,
                push_buffer: None,
            };
            match gpu.run_compute_job(&job(&[])) {
                Err(bifrost_vk::testing::RunError::Jm(e)) => {
                    assert!(e.contains("fewer UBO table entries"), "{what}: {e}")
                }
                other => panic!("{what}: a job without its UBO table gave {other:?}"),
            }
            let run = gpu
                .run_compute_job(&job(&[(ubo.va, range)]))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(run.counters.hazards, 0, "{what}");
            let ours = gpu.read_f32s(out.va, 4 * INVOCATIONS as usize);
            check(&ours, range, &format!("ours, {what}"));

            if range == UboPush::BYTES {
                // The interpreter on the same lowered IR.
                let mut mem = Memory::new();
                mem.map(ubo.va, gpu.read(ubo.va, 4096)).unwrap();
                mem.map(out.va, vec![0xee; out_bytes as usize]).unwrap();
                let mut state = DrawState {
                    push_uniforms: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
                    push_constants: push.clone(),
                    ..DrawState::default()
                };
                state.ubos.insert(
                    (0, 0),
                    BufferRange {
                        address: ubo.va,
                        size: u64::from(range),
                    },
                );
                state.ssbos.insert(
                    (0, 1),
                    BufferRange {
                        address: out.va,
                        size: out_bytes,
                    },
                );
                for g in 0..2 {
                    run_workgroup(&lowered.shader, &state, &mut mem, [g, 0, 0])
                        .unwrap_or_else(|e| panic!("interpreter: {e}"));
                }
                assert!(
                    mem.range(out.va).unwrap() == gpu.read(out.va, out_bytes as usize),
                    "{what}: the interpreter and the simulator differ"
                );
            }

            // Mesa's binary in the same memory.
            let mut gpu = SimGpu::new(model);
            let ubo = gpu.alloc(4096);
            gpu.write_f32s(ubo.va, &u.ubo);
            let out = gpu.alloc(out_bytes);
            gpu.write_u32s(out.va, &vec![0xeeee_eeee; 4 * INVOCATIONS as usize]);
            let words: Vec<u64> = push
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            if dispatch_with_ubos(
                &mut gpu,
                "cs_ubo_push",
                &[ubo, out],
                &[(ubo.va, range)],
                &words,
                [64, 1, 1],
                [2, 1, 1],
            )
            .is_none()
            {
                continue;
            }
            let mesa = gpu.read_f32s(out.va, 4 * INVOCATIONS as usize);
            check(&mesa, range, &format!("Mesa's binary, {what}"));
        }
    }
}

//! Compile time of the Bifrost backend (IR → machine code), `cargo bench
//! --bench bifrost_compile`. The shaders are the differential-test programs
//! of `tests/backend_sim.rs`.

use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::Shader;

fn main() {
    divan::main();
}

const ARITH: &str = r#"shader compute "arith" {
  info local_size 8 1 1 shared 0 push 0
  values 32
  %0:i32x3 = load_sysval sysval=global_invocation_id
  %1:i32 = swizzle %0.x
  %2:i32 = const 0x3
  %3:i32 = imul %1, %2
  %4:i32 = iadd %3, %1
  %5:i32 = load_uniform offset=0
  %6:i32 = isub %4, %5
  %7:i32 = ishl %6, %2
  %8:i32 = ushr %7, %5
  %9:i32 = ixor %8, %1
  %10:i32 = i2f %9
  %11:i32 = const 0x3f000000
  %12:i32 = fmul %10, %11
  %13:i32 = fadd %12, %10
  %14:b1 = flt %13, %11
  %15:i32 = bcsel %14, %13, %9
  %16:i64 = load_uniform offset=8
  %17:i32 = const 0x4
  %18:i32 = imul %1, %17
  %19:i64 = u2u %18
  %20:i64 = iadd %16, %19
  store_global %15, %20
}"#;

const CONTROL: &str = r#"shader compute "control" {
  info local_size 4 1 1 shared 0 push 0
  values 40
  %0:i32x3 = load_sysval sysval=global_invocation_id
  %1:i32 = swizzle %0.x
  %2:i32 = const 0x0
  %3:i32 = const 0x1
  %4:i32 = load_uniform offset=0
  %20:i32 = loop (%5:i32 = %2, %6:i32 = %2) {
    %7:b1 = uge %5, %4
    if %7 {
      %30:i32 = iadd %6, %4
      break %30
    } else {
      yield
    }
    %8:i32 = iand %5, %3
    %9:b1 = ieq %8, %2
    %10:i32 = iadd %5, %3
    if %9 {
      continue %10, %6
    } else {
      yield
    }
    %11:b1 = ult %1, %5
    %12:i32 = if %11 {
      %13:i32 = imul %5, %1
      %14:b1 = ine %13, %3
      %15:i32 = if %14 {
        yield %13
      } else {
        %16:i32 = isub %2, %13
        yield %16
      }
      yield %15
    } else {
      yield %5
    }
    %17:i32 = iadd %6, %12
    continue %10, %17
  }
  %21:i64 = load_uniform offset=8
  %22:i32 = const 0x4
  %23:i32 = imul %1, %22
  %24:i64 = u2u %23
  %25:i64 = iadd %21, %24
  store_global %20, %25
}"#;

const MEMORY: &str = r#"shader compute "memory" {
  info local_size 8 1 1 shared 64 push 0
  values 40
  %0:i32x3 = load_sysval sysval=local_invocation_id
  %1:i32 = swizzle %0.x
  %2:i64 = load_uniform offset=0
  %3:i32 = const 0x10
  %4:i32 = imul %1, %3
  %5:i64 = u2u %4
  %6:i64 = iadd %2, %5
  %7:i32 = load_global %6
  %8:i32x2 = load_global %6
  %9:i32x3 = load_global %6
  %10:i32x4 = load_global %6
  %11:i64 = load_global %6
  %12:i32 = const 0x2
  %13:i32 = ishl %1, %12
  store_shared %7, %13
  barrier
  %14:i32 = const 0x1c
  %15:i32 = isub %14, %13
  %16:i32 = load_shared %15
  %17:i32 = swizzle %8.y
  %18:i32 = swizzle %9.z
  %19:i32 = swizzle %10.w
  %20:i32 = iadd %16, %17
  %21:i32 = iadd %18, %19
  %26:i32 = const 0x100
  %27:i64 = u2u %26
  %28:i64 = iadd %6, %27
  %22:i32x4 = vec %20, %21, %17, %18
  store_global %22, %28
  %29:i32 = const 0x200
  %31:i64 = u2u %29
  %32:i64 = iadd %6, %31
  store_global %11, %32
  %33:i32 = const 0x300
  %34:i64 = u2u %33
  %35:i64 = iadd %6, %34
  %23:i32x3 = vec %20, %21, %19
  store_global %23, %35
}"#;

const DIVMUL: &str = r#"shader compute "divmul" {
  info local_size 8 1 1 shared 0 push 0
  values 60
  %0:i32x3 = load_sysval sysval=global_invocation_id
  %1:i32 = swizzle %0.x
  %2:i64 = load_uniform offset=0
  %3:i32 = const 0x8
  %4:i32 = imul %1, %3
  %5:i64 = u2u %4
  %6:i64 = iadd %2, %5
  %7:i32x2 = load_global %6
  %8:i32 = swizzle %7.x
  %9:i32 = swizzle %7.y
  %10:i32 = udiv %8, %9
  %11:i32 = umod %8, %9
  %12:i32 = umul_high %8, %9
  %13:i64 = u2u %8
  %14:i64 = u2u %9
  %15:i64 = imul %13, %14
  %16:i16 = load_global %6
  %17:i32 = u2u %16
  %18:i8 = load_global %6
  %19:i32 = i2i %18
  %20:i32 = const 0x7
  %21:i32 = udiv %8, %20
  %22:i32 = const 0x10
  %23:i32 = umod %8, %22
  %24:i32 = const 0x40
  %25:i32 = imul %1, %24
  %26:i32 = const 0x100
  %27:i32 = iadd %25, %26
  %28:i64 = u2u %27
  %29:i64 = iadd %2, %28
  %30:i32x4 = vec %10, %11, %12, %17
  store_global %30, %29
  %31:i32 = const 0x10
  %32:i64 = u2u %31
  %33:i64 = iadd %29, %32
  store_global %15, %33
  %34:i32x3 = vec %19, %21, %23
  %35:i32 = const 0x18
  %36:i64 = u2u %35
  %37:i64 = iadd %29, %36
  store_global %34, %37
}"#;

fn bench(b: divan::Bencher, text: &str) {
    let s = Shader::parse(text).expect("parses");
    b.bench(|| compile(divan::black_box(&s), Options::default()).expect("compiles"));
}

#[divan::bench]
fn arith(b: divan::Bencher) {
    bench(b, ARITH);
}

#[divan::bench]
fn control_flow(b: divan::Bencher) {
    bench(b, CONTROL);
}

#[divan::bench]
fn memory(b: divan::Bencher) {
    bench(b, MEMORY);
}

#[divan::bench]
fn division_and_wide_multiply(b: divan::Bencher) {
    bench(b, DIVMUL);
}

/// The XFB variant of a small vertex shader (position + a captured vec4
/// and a captured scalar), lowered as the driver does: `lower_io` →
/// `lower_xfb` → `lower_sysvals`, then the backend.
fn xfb_variant() -> Shader {
    use bifrost_vk::compiler::ir::*;
    use bifrost_vk::compiler::passes::{lower_io, lower_sysvals, lower_xfb};
    let mut s = Shader::new(Stage::Vertex);
    s.info.xfb_mode = true;
    let u32t = ValueType::U32;
    s.inputs = vec![Input {
        name: "a".into(),
        location: 0,
        component: 0,
        ty: ValueType::new(32, 4),
    }];
    s.outputs.push(Output {
        name: "gl_Position".into(),
        slot: OutputSlot::BuiltIn(BuiltIn::Position),
        ty: ValueType::new(32, 4),
        xfb: Some(Xfb {
            buffer: 0,
            stride: 20,
            offset: 0,
            stream: 0,
        }),
    });
    s.outputs.push(Output {
        name: "id".into(),
        slot: OutputSlot::Location {
            location: 0,
            component: 0,
        },
        ty: u32t,
        xfb: Some(Xfb {
            buffer: 0,
            stride: 20,
            offset: 16,
            stream: 0,
        }),
    });
    let mut b = Builder::new(&mut s);
    let a = b.load(
        Intrinsic::LoadInput {
            location: 0,
            component: 0,
        },
        ValueType::new(32, 4),
        &[],
    );
    let vi = b.sysval(SysVal::VertexIndex, u32t);
    b.store(Intrinsic::StoreOutput { output: 0 }, &[a]);
    b.store(Intrinsic::StoreOutput { output: 1 }, &[vi]);
    b.finish();
    lower_io(&mut s);
    assert!(lower_xfb(&mut s));
    lower_sysvals(&mut s);
    s
}

#[divan::bench]
fn xfb_variant_small(b: divan::Bencher) {
    let s = xfb_variant();
    b.bench(|| compile(divan::black_box(&s), Options::default()).expect("compiles"));
}

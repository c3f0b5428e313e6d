//! Compile time of the Bifrost backend (IR → machine code), `cargo bench
//! --bench bifrost_compile`. The shaders are the differential-test programs
//! of `tests/backend_sim.rs`, kept once in `tests/programs/*.ir`.

use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::Shader;

fn main() {
    divan::main();
}

const ARITH: &str = include_str!("../tests/programs/arith.ir");

const CONTROL: &str = include_str!("../tests/programs/control.ir");

const MEMORY: &str = include_str!("../tests/programs/memory.ir");

const DIVMUL: &str = include_str!("../tests/programs/divmul.ir");

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
        interpolation: Interpolation::Smooth,
        sampling: Sampling::Center,
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

//! Backend tests: compile IR shaders (text form), check the output decodes
//! with `hw::isa`, and that its disassembly assembles back to the same bytes.

use super::*;
use crate::compiler::ir::Shader;
use crate::hw::isa::decode_shader;

/// Compiles, decodes, and round-trips the disassembly through the assembler.
pub(crate) fn check(text: &str) -> ShaderBinary {
    let s = Shader::parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let bin = compile(&s, Options::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let body = &bin.code[..bin.code.len() - 128];
    assert!(bin.code[body.len()..].iter().all(|&b| b == 0));
    let clauses = decode_shader(&bin.code).unwrap_or_else(|e| panic!("decode: {e}\n{text}"));
    assert_eq!(clauses.len() as u32, bin.stats.clauses);
    let dis = disasm::disassemble(&bin.code).expect("disassembles");
    // The assembler makes its own port/constant choices, so compare what
    // the bytes mean: the reassembled text disassembles identically.
    let again = asm::assemble(&dis).unwrap_or_else(|e| panic!("assemble: {e}\n{dis}"));
    let dis2 = disasm::disassemble(&again).expect("reassembled code disassembles");
    assert_eq!(dis, dis2, "round trip differs");
    bin
}

pub(crate) const ARITH: &str = r#"shader compute "arith" {
  info local_size 1 1 1 shared 0 push 0
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

#[test]
fn compiles_arith() {
    let bin = check(ARITH);
    assert!(bin.preloads.global_invocation[0]);
    assert_eq!(bin.uniform_words, 2);
}

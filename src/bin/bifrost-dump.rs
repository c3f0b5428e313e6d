//! `bifrost-dump FILE.snap...`: print the job chain of PANSNAP1 snapshots in
//! pandecode's text format, shaders disassembled with our Mesa-exact
//! disassembler (reserved-bit reports go to stderr).
//!
//! A thin shell over `bifrost_vk::hw::decode`; it must never grow decoding
//! logic of its own. Exit status: 0 when every file decodes cleanly, 1 when a
//! decode error or a reserved-bit report occurred, 2 on usage or I/O errors.

use std::io::Write;
use std::process::ExitCode;

use bifrost_vk::compiler::bifrost::disasm::disassemble;
use bifrost_vk::hw::decode::{Options, decode_snapshot};
use bifrost_vk::hw::snapshot::Snapshot;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() || files.iter().any(|f| f == "-h" || f == "--help") {
        eprintln!("usage: bifrost-dump FILE.snap...");
        return ExitCode::from(2);
    }
    let mut status = ExitCode::SUCCESS;
    for file in &files {
        let data = match std::fs::read(file) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{file}: {e}");
                return ExitCode::from(2);
            }
        };
        let snap = match Snapshot::parse(&data) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{file}: {e}");
                return ExitCode::from(2);
            }
        };
        let disasm = |code: &[u8]| {
            disassemble(code).unwrap_or_else(|e| format!("// disassembly failed: {e}\n"))
        };
        let opts = Options {
            disassemble: Some(&disasm),
        };
        let (listing, result) = decode_snapshot(&snap, &opts);
        let _ = std::io::stdout().write_all(listing.text.as_bytes());
        let _ = std::io::stderr().write_all(listing.errors.as_bytes());
        if !listing.errors.is_empty() {
            status = ExitCode::from(1);
        }
        if let Err(e) = result {
            eprintln!("{file}: {e}");
            status = ExitCode::from(1);
        }
    }
    status
}

//! Writes the loader manifest for the library being built to
//! `target/<profile>/bifrost_vk_icd.json` (see icd/README.md).

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=icd/bifrost_vk_icd.json.in");
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    // OUT_DIR is target/<profile>/build/<package>-<hash>/out.
    let Some(profile_dir) = out_dir.ancestors().nth(3) else {
        println!("cargo:warning=unexpected OUT_DIR layout; no ICD manifest written");
        return;
    };
    let library = profile_dir.join("libbifrost_vk.so");
    let template = std::fs::read_to_string("icd/bifrost_vk_icd.json.in")
        .expect("icd/bifrost_vk_icd.json.in is part of the source tree");
    let json_path = library
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    let manifest = template.replace("@LIBRARY_PATH@", &json_path);
    let target = profile_dir.join("bifrost_vk_icd.json");
    let unchanged = std::fs::read_to_string(&target).ok().as_deref() == Some(manifest.as_str());
    if !unchanged && let Err(e) = std::fs::write(&target, manifest) {
        println!("cargo:warning=cannot write {}: {e}", target.display());
    }
}

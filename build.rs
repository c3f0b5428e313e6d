//! Writes the loader manifest for the library being built to
//! `target/<profile>/bifrost_vk_icd.json` (see icd/README.md), and hashes
//! the driver's source for the pipeline cache UUID.

use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "src/util/sha256.rs"]
mod sha256;

fn main() {
    println!("cargo:rerun-if-changed=icd/bifrost_vk_icd.json.in");
    println!("cargo:rerun-if-changed=build.rs");
    source_hash();
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

/// `BIFROST_VK_SOURCE_SHA256`: SHA-256 over every file under `src/` (path
/// and contents, in path order). `pipelineCacheUUID` is derived from it
/// (`vk::physical_device::pipeline_cache_uuid`), so any change to the
/// compiler, or to anything that reads what it cached, invalidates the
/// pipeline caches applications saved with an older build.
fn source_hash() {
    println!("cargo:rerun-if-changed=src");
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, files);
            } else {
                files.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(Path::new("src"), &mut files);
    files.sort();
    let mut h = sha256::Sha256::new();
    for f in &files {
        let name = f.to_string_lossy();
        h.update(&(name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        let bytes = std::fs::read(f).unwrap_or_default();
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    let hex: String = h.finish().iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=BIFROST_VK_SOURCE_SHA256={hex}");
}

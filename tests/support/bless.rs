//! Checked-in expectations, rewritten with `BLESS=1` (shared by the IR test
//! files: `#[path = "support/bless.rs"] mod bless;`).

use std::path::Path;

/// Whether the run should rewrite expectations instead of comparing.
pub fn enabled() -> bool {
    std::env::var("BLESS").is_ok_and(|v| v == "1")
}

/// Compare `actual` with the file at `path` (missing file = mismatch), or
/// write it when blessing. Returns a readable mismatch report.
#[allow(dead_code)]
pub fn check(path: &Path, actual: &str) -> Result<(), String> {
    if enabled() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        return std::fs::write(path, actual).map_err(|e| format!("{}: {e}", path.display()));
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => Ok(()),
        Ok(expected) => Err(format!(
            "{}:\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        )),
        Err(e) => Err(format!("{}: {e} (BLESS=1 to create)", path.display())),
    }
}

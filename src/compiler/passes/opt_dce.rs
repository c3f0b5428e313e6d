//! `opt_dce` (placeholder while being written).

use crate::compiler::ir::*;

impl Shader {
    pub fn opt_dce(&mut self) -> bool {
        self.run_pass("opt_dce", |_| false)
    }
}

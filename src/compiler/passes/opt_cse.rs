//! `opt_cse` (placeholder while being written).

use crate::compiler::ir::*;

impl Shader {
    pub fn opt_cse(&mut self) -> bool {
        self.run_pass("opt_cse", |_| false)
    }
}

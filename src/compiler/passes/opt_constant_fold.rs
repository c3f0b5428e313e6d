//! `opt_constant_fold` (placeholder while being written).

use crate::compiler::ir::*;

impl Shader {
    pub fn opt_constant_fold(&mut self) -> bool {
        self.run_pass("opt_constant_fold", |_| false)
    }
}

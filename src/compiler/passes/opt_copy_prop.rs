//! `opt_copy_prop` (placeholder while being written).

use crate::compiler::ir::*;

impl Shader {
    pub fn opt_copy_prop(&mut self) -> bool {
        self.run_pass("opt_copy_prop", |_| false)
    }
}

//! `opt_algebraic` (placeholder while being written).

use crate::compiler::ir::*;

impl Shader {
    pub fn opt_algebraic(&mut self) -> bool {
        self.run_pass("opt_algebraic", |_| false)
    }
}

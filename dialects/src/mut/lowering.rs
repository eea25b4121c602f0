//! Lowering of the in-place ops a value-semantics graph may keep: a
//! trailing `mut.copy_` into an argument (functionalize with
//! `keep-input-mutations`) becomes a copy kernel writing the argument's
//! buffer. Other mutations never reach codegen.

use crate::lowering::LowerCtx;

pub fn copy_(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let (dst, src) = (lc.operand(0)?, lc.operand(1)?);
    lc.copy_into(src, dst)
}

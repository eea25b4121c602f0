//! Vectorization of innermost loops (f32x4). Filled in below.

use super::kernel::Gen;
use aot_ir::{Diagnostic, Op};

pub(super) fn try_vectorize(_g: &mut Gen<'_, '_>, _op: Op) -> Result<bool, Diagnostic> {
    Ok(false)
}

//! Derivative rules of the `rng` dialect: only dropout is differentiable
//! (w.r.t. its input), through the mask it returned — never by drawing again.

use crate::autodiff::{Grads, VjpCtx};
use aot_ir::*;

/// `dropout` and `philox_dropout` (x is the last operand): g · mask / (1 - p),
/// or g itself when not training; as PyTorch, p = 1 gives zeros.
pub fn dropout(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    let xi = c.inputs.len() - 1;
    if !c.need(xi) {
        return Ok(c.grads([]));
    }
    let g = c.g()?;
    let gx = if super::kernels::dropout_draws(&c.attrs()) {
        let p = c.attrs().f64("p").unwrap_or(0.5);
        let e = c.elem(g)?;
        let mask = c.cast(c.y(1), e)?;
        let m = c.mul(g, mask)?;
        c.scale(m, if p < 1.0 { 1.0 / (1.0 - p) } else { 0.0 })?
    } else {
        g
    };
    let mut out: Grads = (0..c.inputs.len()).map(|_| None).collect();
    out[xi] = Some(gx);
    Ok(out)
}

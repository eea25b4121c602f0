//! The functions native kernels call (every CPU backend; GPU kernels call
//! libdevice's functions of the same names, [`libdevice_name`]): the math table's `libm` wrappers (the
//! functions the interpreter evaluates, so `exact` results match bit for
//! bit), `f16` conversions (the `half` crate's, as the buffers use), and
//! the eight-lane polynomial helpers of [`crate::lanes8`].
//! Symbols and addresses come from the table; nothing here names a math
//! function.

use aot_dialects::r#loop::math::MathFact;
use aot_dialects::r#loop::MATH;

/// Argument kinds of a libcall signature.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sig {
    /// `f32 -> f32`
    F32,
    /// `f64 -> f64`
    F64,
    /// `(f32, f32) -> f32`
    F32x2,
    /// `(f64, f64) -> f64`
    F64x2,
    /// `u16 -> f32`
    HalfToF32,
    /// `f32 -> u16`
    F32ToHalf,
    /// `(*mut f32, i64) -> ()`: a polynomial over a buffer, in place
    /// ([`crate::lanes8`]).
    Lanes8,
}

extern "C" fn aot_f16_to_f32(x: u16) -> f32 {
    half::f16::from_bits(x).to_f32()
}

extern "C" fn aot_f32_to_f16(x: f32) -> u16 {
    half::f16::from_f32(x).to_bits()
}

pub const F16_TO_F32: &str = "aot_f16_to_f32";
pub const F32_TO_F16: &str = "aot_f32_to_f16";

/// The signature of a math row's libcall for `f32` or `f64` operands.
pub fn math_sig(f: &MathFact, f64: bool) -> Sig {
    match (f.arity(), f64) {
        (1, false) => Sig::F32,
        (1, true) => Sig::F64,
        (_, false) => Sig::F32x2,
        (_, true) => Sig::F64x2,
    }
}

/// The name of libcall `symbol` in CUDA's libdevice, which GPU kernels call
/// instead: `__nv_` and the `libm` name for a math row (libdevice follows
/// libm's names and signatures), the round-to-nearest conversions for
/// `f16`. `None` for a symbol that is not a libcall.
pub fn libdevice_name(symbol: &str) -> Option<String> {
    match symbol {
        F16_TO_F32 => Some("__nv_half2float".into()),
        F32_TO_F16 => Some("__nv_float2half_rn".into()),
        _ => MATH
            .iter()
            .flat_map(|f| [f.symbol(false), f.symbol(true)])
            .find(|&s| s == symbol)
            .and_then(|s| s.strip_prefix("aot_"))
            .map(|libm| format!("__nv_{libm}")),
    }
}

/// `(symbol, address, signature)` of every libcall.
pub fn all() -> impl Iterator<Item = (&'static str, *const u8, Sig)> {
    let math = MATH.iter().flat_map(|f| [false, true].map(|w| (f.symbol(w), f.address(w), math_sig(f, w))));
    let halves = [
        (F16_TO_F32, aot_f16_to_f32 as *const u8, Sig::HalfToF32),
        (F32_TO_F16, aot_f32_to_f16 as *const u8, Sig::F32ToHalf),
    ];
    let lanes8 = crate::lanes8::all().map(|(s, p)| (s, p, Sig::Lanes8));
    math.chain(halves).chain(lanes8)
}

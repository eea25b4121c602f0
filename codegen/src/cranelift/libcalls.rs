//! The functions kernels call: `libm`'s math (the same functions the
//! interpreter uses for random sampling, so `exact` results match bit for
//! bit) and `f16` conversions (the `half` crate's, as the buffers use).

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
}

macro_rules! unary {
    ($name:ident, $f:path, $t:ty) => {
        extern "C" fn $name(x: $t) -> $t {
            $f(x)
        }
    };
}

unary!(aot_expf, libm::expf, f32);
unary!(aot_exp, libm::exp, f64);
unary!(aot_logf, libm::logf, f32);
unary!(aot_log, libm::log, f64);
unary!(aot_log1pf, libm::log1pf, f32);
unary!(aot_log1p, libm::log1p, f64);
unary!(aot_sinf, libm::sinf, f32);
unary!(aot_sin, libm::sin, f64);
unary!(aot_cosf, libm::cosf, f32);
unary!(aot_cos, libm::cos, f64);
unary!(aot_tanhf, libm::tanhf, f32);
unary!(aot_tanh, libm::tanh, f64);
unary!(aot_erff, libm::erff, f32);
unary!(aot_erf, libm::erf, f64);
unary!(aot_erfcf, libm::erfcf, f32);
unary!(aot_erfc, libm::erfc, f64);

extern "C" fn aot_powf(x: f32, y: f32) -> f32 {
    libm::powf(x, y)
}

extern "C" fn aot_pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

extern "C" fn aot_f16_to_f32(x: u16) -> f32 {
    half::f16::from_bits(x).to_f32()
}

extern "C" fn aot_f32_to_f16(x: f32) -> u16 {
    half::f16::from_f32(x).to_bits()
}

/// `(symbol, address, signature)` of every libcall.
pub const TABLE: &[(&str, *const u8, Sig)] = &[
    ("aot_expf", aot_expf as *const u8, Sig::F32),
    ("aot_exp", aot_exp as *const u8, Sig::F64),
    ("aot_logf", aot_logf as *const u8, Sig::F32),
    ("aot_log", aot_log as *const u8, Sig::F64),
    ("aot_log1pf", aot_log1pf as *const u8, Sig::F32),
    ("aot_log1p", aot_log1p as *const u8, Sig::F64),
    ("aot_sinf", aot_sinf as *const u8, Sig::F32),
    ("aot_sin", aot_sin as *const u8, Sig::F64),
    ("aot_cosf", aot_cosf as *const u8, Sig::F32),
    ("aot_cos", aot_cos as *const u8, Sig::F64),
    ("aot_tanhf", aot_tanhf as *const u8, Sig::F32),
    ("aot_tanh", aot_tanh as *const u8, Sig::F64),
    ("aot_erff", aot_erff as *const u8, Sig::F32),
    ("aot_erf", aot_erf as *const u8, Sig::F64),
    ("aot_erfcf", aot_erfcf as *const u8, Sig::F32),
    ("aot_erfc", aot_erfc as *const u8, Sig::F64),
    ("aot_powf", aot_powf as *const u8, Sig::F32x2),
    ("aot_pow", aot_pow as *const u8, Sig::F64x2),
    ("aot_f16_to_f32", aot_f16_to_f32 as *const u8, Sig::HalfToF32),
    ("aot_f32_to_f16", aot_f32_to_f16 as *const u8, Sig::F32ToHalf),
];

/// The libcall of math op `op` (`exp`, `log`, ...) for f32 or f64.
pub fn math_symbol(op: &str, f64: bool) -> Option<&'static str> {
    Some(match (op, f64) {
        ("exp", false) => "aot_expf",
        ("exp", true) => "aot_exp",
        ("log", false) => "aot_logf",
        ("log", true) => "aot_log",
        ("log1p", false) => "aot_log1pf",
        ("log1p", true) => "aot_log1p",
        ("sin", false) => "aot_sinf",
        ("sin", true) => "aot_sin",
        ("cos", false) => "aot_cosf",
        ("cos", true) => "aot_cos",
        ("tanh", false) => "aot_tanhf",
        ("tanh", true) => "aot_tanh",
        ("erf", false) => "aot_erff",
        ("erf", true) => "aot_erf",
        ("erfc", false) => "aot_erfcf",
        ("erfc", true) => "aot_erfc",
        ("pow", false) => "aot_powf",
        ("pow", true) => "aot_pow",
        _ => return None,
    })
}

pub fn signature(name: &str) -> Option<Sig> {
    TABLE.iter().find(|(n, _, _)| *n == name).map(|(_, _, s)| *s)
}

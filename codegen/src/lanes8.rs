//! The math table's polynomials on eight `f32` lanes (AVX2 and FMA), as
//! functions native kernels call over a buffer: `aot_lanes8_<poly>(p, n)`
//! replaces the `n` floats at `p` (`n` a multiple of eight) by the
//! polynomial's values, in place.
//!
//! Why: Cranelift's vectors are 128 bits wide, four lanes, where these
//! cores run eight per instruction (sixteen with AVX-512, which the helpers
//! use where the CPU has it); a kernel that spends its time in
//! `exp`, `tanh`, `erf` or `erfc` (GELU, sigmoid, softmax) ran at a third
//! of eager PyTorch's speed. The Cranelift backend's strip-mined loops
//! (`cranelift::vector::strip`) gather a strip of arguments into a buffer,
//! call one of these, and read the values back.
//!
//! Invariant: every value is the same bits as the backend's own four-lane
//! code and the scalar remainder compute, because all three run the one
//! generic polynomial ([`Poly::emit`]) on primitives with the same IEEE
//! semantics: fused multiply-adds, `min`/`max` as the compare-and-select
//! [`Lanes`] specifies, `floor` by rounding mode, the exponent-field
//! `exp2i`. The tests check it on every row over the rows' input ranges,
//! special values included.

use aot_dialects::r#loop::math::{Lanes, Poly};

/// Every polynomial, each with a helper here ([`symbol`]).
pub const POLYS: [Poly; 4] = [Poly::Exp, Poly::Tanh, Poly::Erf, Poly::Erfc];

/// The symbol of `p`'s helper.
pub const fn symbol(p: Poly) -> &'static str {
    match p {
        Poly::Exp => "aot_lanes8_exp",
        Poly::Tanh => "aot_lanes8_tanh",
        Poly::Erf => "aot_lanes8_erf",
        Poly::Erfc => "aot_lanes8_erfc",
    }
}

/// Whether the helpers can run here (an x86-64 CPU with AVX2 and FMA),
/// and `AOT_LANES8` does not say `0` (to compare both forms on one
/// machine).
pub fn available() -> bool {
    use std::sync::OnceLock;
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| std::env::var("AOT_LANES8").as_deref() != Ok("0") && imp::detected())
}

/// `(symbol, address)` of every helper (for the JIT's symbol table; a
/// kernel calls them only where [`available`]).
pub fn all() -> impl Iterator<Item = (&'static str, *const u8)> {
    imp::ENTRIES.iter().map(|&(s, f)| (s, f as *const u8))
}

/// `p` on the floats of `x` in place, with the helper where it runs and the
/// scalar form elsewhere (the same bits): what tests compare against.
pub fn apply(p: Poly, x: &mut [f32]) {
    let whole = x.len() / 8 * 8;
    if available() {
        let f = imp::ENTRIES.iter().find(|(s, _)| *s == symbol(p)).map(|&(_, f)| f);
        if let Some(f) = f {
            // SAFETY: `whole` floats at `x` are initialized and writable,
            // `whole` is a multiple of 8, and the CPU has AVX2 and FMA.
            unsafe { f(x.as_mut_ptr(), whole as i64) };
        }
    } else {
        for v in &mut x[..whole] {
            *v = p.emit(&mut aot_dialects::r#loop::math::Scalar32, *v);
        }
    }
    for v in &mut x[whole..] {
        *v = p.emit(&mut aot_dialects::r#loop::math::Scalar32, *v);
    }
}

type Helper = unsafe extern "C" fn(*mut f32, i64);

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::{Helper, Lanes, Poly};
    use std::arch::x86_64::*;

    pub fn detected() -> bool {
        is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
    }

    /// The primitives on `__m256`. Every method is inlined into the
    /// `#[target_feature]` entry points below, where the intrinsics are
    /// legal; nothing calls them elsewhere.
    struct Avx2;

    impl Lanes for Avx2 {
        type F = __m256;
        type M = __m256;
        #[inline(always)]
        fn splat(&mut self, c: f32) -> __m256 {
            unsafe { _mm256_set1_ps(c) }
        }
        #[inline(always)]
        fn add(&mut self, a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_add_ps(a, b) }
        }
        #[inline(always)]
        fn sub(&mut self, a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_sub_ps(a, b) }
        }
        #[inline(always)]
        fn mul(&mut self, a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_mul_ps(a, b) }
        }
        #[inline(always)]
        fn mul_add(&mut self, a: __m256, b: __m256, c: __m256) -> __m256 {
            unsafe { _mm256_fmadd_ps(a, b, c) }
        }
        #[inline(always)]
        fn div(&mut self, a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_div_ps(a, b) }
        }
        // `minps(b, a)` is `b < a ? b : a`: a NaN `a` passes, as specified.
        #[inline(always)]
        fn min(&mut self, a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_min_ps(b, a) }
        }
        #[inline(always)]
        fn max(&mut self, a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_max_ps(b, a) }
        }
        #[inline(always)]
        fn floor(&mut self, a: __m256) -> __m256 {
            unsafe { _mm256_floor_ps(a) }
        }
        #[inline(always)]
        fn abs(&mut self, a: __m256) -> __m256 {
            unsafe { _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff))) }
        }
        #[inline(always)]
        fn lt(&mut self, a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(a, b) }
        }
        #[inline(always)]
        fn gt(&mut self, a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(a, b) }
        }
        #[inline(always)]
        fn select(&mut self, m: __m256, a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_blendv_ps(b, a, m) }
        }
        #[inline(always)]
        fn with_sign_of(&mut self, mag: __m256, x: __m256) -> __m256 {
            unsafe {
                let sign = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MIN)));
                _mm256_or_ps(mag, sign)
            }
        }
        // The backends' trick: `n + 127 + 1.5·2^23` holds the biased
        // exponent in its low mantissa bits; shifted by 23 it is `2^n`.
        #[inline(always)]
        fn exp2i(&mut self, n: __m256) -> __m256 {
            unsafe {
                let biased = _mm256_add_ps(n, _mm256_set1_ps(127.0 + 12_582_912.0));
                _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_castps_si256(biased)))
            }
        }
    }

    /// The primitives on `__m512` (sixteen lanes), with `__mmask16` masks:
    /// the same IEEE operations as [`Avx2`]'s, so the same bits.
    struct Avx512;

    impl Lanes for Avx512 {
        type F = __m512;
        type M = __mmask16;
        #[inline(always)]
        fn splat(&mut self, c: f32) -> __m512 {
            unsafe { _mm512_set1_ps(c) }
        }
        #[inline(always)]
        fn add(&mut self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_add_ps(a, b) }
        }
        #[inline(always)]
        fn sub(&mut self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_sub_ps(a, b) }
        }
        #[inline(always)]
        fn mul(&mut self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_mul_ps(a, b) }
        }
        #[inline(always)]
        fn mul_add(&mut self, a: __m512, b: __m512, c: __m512) -> __m512 {
            unsafe { _mm512_fmadd_ps(a, b, c) }
        }
        #[inline(always)]
        fn div(&mut self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_div_ps(a, b) }
        }
        // As `minps(b, a)`: `b < a ? b : a`, a NaN `a` passes.
        #[inline(always)]
        fn min(&mut self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_min_ps(b, a) }
        }
        #[inline(always)]
        fn max(&mut self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_max_ps(b, a) }
        }
        #[inline(always)]
        fn floor(&mut self, a: __m512) -> __m512 {
            unsafe { _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(a) }
        }
        #[inline(always)]
        fn abs(&mut self, a: __m512) -> __m512 {
            unsafe { _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x7fff_ffff))) }
        }
        #[inline(always)]
        fn lt(&mut self, a: __m512, b: __m512) -> __mmask16 {
            unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, b) }
        }
        #[inline(always)]
        fn gt(&mut self, a: __m512, b: __m512) -> __mmask16 {
            unsafe { _mm512_cmp_ps_mask::<_CMP_GT_OQ>(a, b) }
        }
        #[inline(always)]
        fn select(&mut self, m: __mmask16, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_mask_blend_ps(m, b, a) }
        }
        #[inline(always)]
        fn with_sign_of(&mut self, mag: __m512, x: __m512) -> __m512 {
            unsafe {
                let sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(i32::MIN));
                _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(mag), sign))
            }
        }
        #[inline(always)]
        fn exp2i(&mut self, n: __m512) -> __m512 {
            unsafe {
                let biased = _mm512_add_ps(n, _mm512_set1_ps(127.0 + 12_582_912.0));
                _mm512_castsi512_ps(_mm512_slli_epi32::<23>(_mm512_castps_si512(biased)))
            }
        }
    }

    /// Whether the sixteen-lane loop runs (AVX-512F and `AOT_LANES16` not
    /// `0`, to compare both forms on one machine).
    fn wide() -> bool {
        use std::sync::OnceLock;
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| std::env::var("AOT_LANES16").as_deref() != Ok("0") && is_x86_feature_detected!("avx512f"))
    }

    /// [`run`]'s loop on sixteen lanes: `n` floats from `x`, in place, up to
    /// the last multiple of 16; returns where it stopped.
    ///
    /// # Safety
    /// As [`run`]'s, and the CPU has AVX-512F.
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn run16(p: Poly, x: *mut f32, n: i64) -> i64 {
        let mut i = 0i64;
        while i + 16 <= n {
            // SAFETY: i + 16 <= n, within the caller's buffer.
            unsafe {
                let at = x.offset(i as isize);
                let v = _mm512_loadu_ps(at);
                let r = p.emit(&mut Avx512, v);
                _mm512_storeu_ps(at, r);
            }
            i += 16;
        }
        i
    }

    /// `p` over `n` floats at `x` (`n` a multiple of 8), in place: sixteen
    /// lanes at a time where the CPU has AVX-512 (one instruction per
    /// sixteen, where a 256-bit core needs two), the last eight on eight.
    ///
    /// # Safety
    /// `x..x+n` is valid for reads and writes; the CPU has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run(p: Poly, x: *mut f32, n: i64) {
        // SAFETY: the caller's contract; `wide` checked AVX-512F.
        let mut i = if wide() { unsafe { run16(p, x, n) } } else { 0 };
        while i + 8 <= n {
            // SAFETY: i + 8 <= n, within the caller's buffer.
            unsafe {
                let at = x.offset(i as isize);
                let v = _mm256_loadu_ps(at);
                let r = p.emit(&mut Avx2, v);
                _mm256_storeu_ps(at, r);
            }
            i += 8;
        }
    }

    macro_rules! helper {
        ($name:ident, $poly:expr) => {
            /// # Safety
            /// As [`run`]'s.
            #[target_feature(enable = "avx2,fma")]
            unsafe extern "C" fn $name(x: *mut f32, n: i64) {
                // SAFETY: passed on from the caller.
                unsafe { run($poly, x, n) }
            }
        };
    }
    helper!(aot_lanes8_exp, Poly::Exp);
    helper!(aot_lanes8_tanh, Poly::Tanh);
    helper!(aot_lanes8_erf, Poly::Erf);
    helper!(aot_lanes8_erfc, Poly::Erfc);

    pub const ENTRIES: [(&str, Helper); 4] = [
        (super::symbol(Poly::Exp), aot_lanes8_exp),
        (super::symbol(Poly::Tanh), aot_lanes8_tanh),
        (super::symbol(Poly::Erf), aot_lanes8_erf),
        (super::symbol(Poly::Erfc), aot_lanes8_erfc),
    ];
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    use super::Helper;

    pub fn detected() -> bool {
        false
    }

    pub const ENTRIES: [(&str, Helper); 0] = [];
}

#[cfg(test)]
mod tests {
    use super::*;
    use aot_dialects::r#loop::math::{test_inputs, Scalar32};

    /// Bits of the eight-lane helper against the scalar form, for every
    /// polynomial over a wide range and the special values.
    #[test]
    fn helpers_match_the_scalar_form_bit_for_bit() {
        if !available() {
            eprintln!("skipped: no AVX2 and FMA here (or AOT_LANES8=0)");
            return;
        }
        let mut xs = test_inputs(120.0);
        xs.extend([0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN_POSITIVE, -1e-40, 1e-45]);
        xs.extend((0..20000).map(|i| f32::from_bits((i as u32).wrapping_mul(2_654_435_761))));
        // (Lengths that leave eight, then none, after the sixteen-lane loop
        // where the CPU has AVX-512, and a scalar remainder of five.)
        let whole = xs.len() / 16 * 16;
        for len in [whole + 8, whole, whole + 13] {
            xs.resize(len, 0.5);
            check(&xs);
        }
    }

    fn check(xs: &[f32]) {
        for p in POLYS {
            let mut got = xs.to_vec();
            apply(p, &mut got);
            for (&x, &g) in xs.iter().zip(&got) {
                let want = p.emit(&mut Scalar32, x);
                assert!(
                    g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                    "{p:?}({x:e}): eight lanes give {g:e}, the scalar form {want:e}"
                );
            }
        }
    }
}

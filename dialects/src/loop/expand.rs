//! The compound scalar operations of the loop dialect, written once over
//! the primitives a code generator supplies ([`Primitives`]): floor
//! division and modulo (`loop.div`/`loop.rem` on integers round toward
//! negative infinity; hardware truncates), the divisor that cannot trap,
//! and `f32` to `bf16` rounding (to nearest even, NaN kept a quiet NaN).
//!
//! A backend implements the dozen primitives on its own values and gets
//! the same formulas, in the same order of operations, as every other
//! backend: the emitted code reads alike, and a fix here fixes them all
//! (as [`super::math`] does for the math functions and the runtime's
//! `philox::rounds` for Philox).
//!
//! Invariant: each expansion issues its primitives in the order written
//! here; backends rely on it only for the readability of what they emit,
//! never for correctness.

/// Binary integer operations of [`Primitives::binary`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntOp {
    Add,
    Sub,
    And,
    Or,
    Xor,
    /// Signed division, truncating.
    SDiv,
    /// Signed remainder, with the dividend's sign.
    SRem,
    /// Logical shift right.
    ShrU,
}

/// Integer comparisons of [`Primitives::cmp`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntCmp {
    Eq,
    Ne,
    /// Signed less-than.
    Slt,
}

/// What a code generator supplies for the expansions: values of its own
/// (`Value`), integer arithmetic on them, conditions (what a comparison
/// gives), and the three `f32` bit operations `bf16` rounding needs.
pub trait Primitives {
    type Value: Copy;
    type Error;
    /// The integer `k` of `like`'s type.
    fn int(&mut self, like: Self::Value, k: i64) -> Result<Self::Value, Self::Error>;
    fn binary(&mut self, op: IntOp, a: Self::Value, b: Self::Value) -> Result<Self::Value, Self::Error>;
    /// `op` with a constant right operand (of `a`'s type).
    fn binary_imm(&mut self, op: IntOp, a: Self::Value, k: i64) -> Result<Self::Value, Self::Error>;
    fn cmp(&mut self, p: IntCmp, a: Self::Value, b: Self::Value) -> Result<Self::Value, Self::Error>;
    /// The same operation on two conditions (`and`/`or`).
    fn cond(&mut self, op: IntOp, a: Self::Value, b: Self::Value) -> Result<Self::Value, Self::Error>;
    fn select(&mut self, c: Self::Value, a: Self::Value, b: Self::Value) -> Result<Self::Value, Self::Error>;
    /// A condition as 0 or 1 of `like`'s type.
    fn zext_cond(&mut self, c: Self::Value, like: Self::Value) -> Result<Self::Value, Self::Error>;
    /// The bits of an `f32` as an `i32`.
    fn f32_bits(&mut self, x: Self::Value) -> Result<Self::Value, Self::Error>;
    /// Whether an `f32` is NaN.
    fn is_nan(&mut self, x: Self::Value) -> Result<Self::Value, Self::Error>;
    /// The low 16 bits of an `i32`.
    fn low_i16(&mut self, v: Self::Value) -> Result<Self::Value, Self::Error>;
}

/// A divisor that cannot trap: `d` with 0 and -1 replaced by 1. (Lowering
/// divides only by positive constants; a backend passes a known constant
/// through without this.)
pub fn safe_divisor<P: Primitives>(p: &mut P, d: P::Value) -> Result<P::Value, P::Error> {
    let zero = p.int(d, 0)?;
    let one = p.int(d, 1)?;
    let is_zero = p.cmp(IntCmp::Eq, d, zero)?;
    let minus_one = p.int(d, -1)?;
    let is_minus_one = p.cmp(IntCmp::Eq, d, minus_one)?;
    let bad = p.cond(IntOp::Or, is_zero, is_minus_one)?;
    p.select(bad, one, d)
}

/// Floor division (`div`) or modulo, the result taking the divisor's sign:
/// the truncating quotient less one, or the remainder plus the divisor,
/// where the remainder is nonzero and its sign differs from the divisor's.
pub fn floor_divrem<P: Primitives>(p: &mut P, div: bool, a: P::Value, d: P::Value) -> Result<P::Value, P::Error> {
    let q = p.binary(IntOp::SDiv, a, d)?;
    let r = p.binary(IntOp::SRem, a, d)?;
    let zero = p.int(a, 0)?;
    let nonzero = p.cmp(IntCmp::Ne, r, zero)?;
    let signs = p.binary(IntOp::Xor, r, d)?;
    let differ = p.cmp(IntCmp::Slt, signs, zero)?;
    let adjust = p.cond(IntOp::And, nonzero, differ)?;
    if div {
        let one = p.zext_cond(adjust, a)?;
        p.binary(IntOp::Sub, q, one)
    } else {
        let shifted = p.binary(IntOp::Add, r, d)?;
        p.select(adjust, shifted, r)
    }
}

/// `f32` to `bf16` bits, rounded to nearest even; a NaN stays NaN, quieted
/// (its top mantissa bit set), so rounding can never carry it to infinity.
pub fn f32_to_bf16<P: Primitives>(p: &mut P, x: P::Value) -> Result<P::Value, P::Error> {
    let bits = p.f32_bits(x)?;
    let high = p.binary_imm(IntOp::ShrU, bits, 16)?;
    let lsb = p.binary_imm(IntOp::And, high, 1)?;
    let biased = p.binary_imm(IntOp::Add, bits, 0x7fff)?;
    let biased = p.binary(IntOp::Add, biased, lsb)?;
    let rounded = p.binary_imm(IntOp::ShrU, biased, 16)?;
    let quiet = p.binary_imm(IntOp::Or, high, 0x40)?;
    let nan = p.is_nan(x)?;
    let v = p.select(nan, quiet, rounded)?;
    p.low_i16(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expansions on plain integers (`f32` bits as `i64`), against the
    /// definitions.
    struct Plain;

    impl Primitives for Plain {
        type Value = i64;
        type Error = ();
        fn int(&mut self, _: i64, k: i64) -> Result<i64, ()> {
            Ok(k)
        }
        fn binary(&mut self, op: IntOp, a: i64, b: i64) -> Result<i64, ()> {
            Ok(match op {
                IntOp::Add => a.wrapping_add(b),
                IntOp::Sub => a.wrapping_sub(b),
                IntOp::And => a & b,
                IntOp::Or => a | b,
                IntOp::Xor => a ^ b,
                IntOp::SDiv => a.checked_div(b).ok_or(())?,
                IntOp::SRem => a.checked_rem(b).ok_or(())?,
                IntOp::ShrU => ((a as u32) >> b) as i64,
            })
        }
        fn binary_imm(&mut self, op: IntOp, a: i64, k: i64) -> Result<i64, ()> {
            self.binary(op, a, k)
        }
        fn cmp(&mut self, p: IntCmp, a: i64, b: i64) -> Result<i64, ()> {
            Ok(i64::from(match p {
                IntCmp::Eq => a == b,
                IntCmp::Ne => a != b,
                IntCmp::Slt => a < b,
            }))
        }
        fn cond(&mut self, op: IntOp, a: i64, b: i64) -> Result<i64, ()> {
            self.binary(op, a, b)
        }
        fn select(&mut self, c: i64, a: i64, b: i64) -> Result<i64, ()> {
            Ok(if c != 0 { a } else { b })
        }
        fn zext_cond(&mut self, c: i64, _: i64) -> Result<i64, ()> {
            Ok(c)
        }
        fn f32_bits(&mut self, x: i64) -> Result<i64, ()> {
            Ok(x & 0xffff_ffff)
        }
        fn is_nan(&mut self, x: i64) -> Result<i64, ()> {
            Ok(i64::from(f32::from_bits(x as u32).is_nan()))
        }
        fn low_i16(&mut self, v: i64) -> Result<i64, ()> {
            Ok(v & 0xffff)
        }
    }

    #[test]
    fn floor_division_and_modulo_take_the_divisor_s_sign() {
        for a in -9i64..=9 {
            for d in [-4i64, -3, -1, 1, 2, 3, 5] {
                let d = safe_divisor(&mut Plain, d).expect("never traps");
                let floor = (a as f64 / d as f64).floor() as i64;
                assert_eq!(floor_divrem(&mut Plain, true, a, d), Ok(floor), "{a} div {d}");
                assert_eq!(floor_divrem(&mut Plain, false, a, d), Ok(a - d * floor), "{a} rem {d}");
            }
        }
        assert_eq!(safe_divisor(&mut Plain, 0), Ok(1));
        assert_eq!(safe_divisor(&mut Plain, -1), Ok(1));
        assert_eq!(floor_divrem(&mut Plain, true, i64::MIN, safe_divisor(&mut Plain, -1).unwrap()), Ok(i64::MIN));
    }

    #[test]
    fn bf16_rounds_to_nearest_even_and_keeps_nans() {
        let bf16 = |x: f32| f32_to_bf16(&mut Plain, x.to_bits() as i64).expect("bits") as u16;
        assert_eq!(bf16(1.0), 0x3f80);
        // Halfway cases go to the even neighbour.
        assert_eq!(bf16(f32::from_bits(0x3f80_8000)), 0x3f80);
        assert_eq!(bf16(f32::from_bits(0x3f81_8000)), 0x3f82);
        assert_eq!(bf16(f32::from_bits(0x3f80_8001)), 0x3f81);
        assert_eq!(bf16(f32::MAX), 0x7f80, "rounds up to infinity");
        let nan = bf16(f32::from_bits(0x7f80_0001));
        assert_eq!(nan & 0x7f80, 0x7f80);
        assert_ne!(nan & 0x7f, 0, "a NaN stays a NaN");
    }
}

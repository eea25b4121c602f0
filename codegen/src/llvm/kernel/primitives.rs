//! The shared formulas, emitted as LLVM IR: the math table's lane
//! polynomials on scalars ([`ScalarLanes`]), Philox's word operations
//! ([`LlvmWords`]) and the loop dialect's compound scalar ops
//! ([`LlvmPrimitives`]). Each implements a trait whose algorithm is written
//! once elsewhere; nothing here decides a formula.

use super::*;

/// The math table's polynomials on one `f32` at a time: the same operations
/// as the Cranelift lanes, so the same bits; LLVM's vectorizer widens them.
pub(super) struct ScalarLanes<'g, 'a, 'll> {
    pub(super) g: &'g Gen<'a, 'll>,
    /// The first builder failure (an internal error), reported after.
    pub(super) error: Option<String>,
}

impl<'ll> ScalarLanes<'_, '_, 'll> {
    fn keep<T>(&mut self, r: Result<T, String>, fallback: impl FnOnce() -> T) -> T {
        match r {
            Ok(v) => v,
            Err(e) => {
                self.error.get_or_insert(e);
                fallback()
            }
        }
    }

    fn f32(&self) -> FloatType<'ll> {
        self.g.ll.f32_type()
    }

    fn float(&mut self, r: Result<V<'ll>, String>) -> FloatValue<'ll> {
        let zero = self.f32().const_zero();
        self.keep(r.map(|v| v.into_float_value()), || zero)
    }
}

impl<'ll> Lanes for ScalarLanes<'_, '_, 'll> {
    type F = FloatValue<'ll>;
    type M = IntValue<'ll>;

    fn splat(&mut self, c: f32) -> Self::F {
        self.f32().const_float(f64::from(c))
    }
    fn add(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.b.build_float_add(a, b, "").map(Into::into).map_err(bug);
        self.float(r)
    }
    fn sub(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.b.build_float_sub(a, b, "").map(Into::into).map_err(bug);
        self.float(r)
    }
    fn mul(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.b.build_float_mul(a, b, "").map(Into::into).map_err(bug);
        self.float(r)
    }
    fn mul_add(&mut self, a: Self::F, b: Self::F, c: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.fma", &[self.f32().into()], &[a.into(), b.into(), c.into()]);
        self.float(r)
    }
    fn div(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.b.build_float_div(a, b, "").map(Into::into).map_err(bug);
        self.float(r)
    }
    fn min(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.minimum", &[self.f32().into()], &[a.into(), b.into()]);
        self.float(r)
    }
    fn max(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.maximum", &[self.f32().into()], &[a.into(), b.into()]);
        self.float(r)
    }
    fn floor(&mut self, a: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.floor", &[self.f32().into()], &[a.into()]);
        self.float(r)
    }
    fn abs(&mut self, a: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.fabs", &[self.f32().into()], &[a.into()]);
        self.float(r)
    }
    fn lt(&mut self, a: Self::F, b: Self::F) -> Self::M {
        let r = self.g.b.build_float_compare(FloatPredicate::OLT, a, b, "").map_err(bug);
        let f = self.g.ll.bool_type().const_zero();
        self.keep(r, || f)
    }
    fn gt(&mut self, a: Self::F, b: Self::F) -> Self::M {
        let r = self.g.b.build_float_compare(FloatPredicate::OGT, a, b, "").map_err(bug);
        let f = self.g.ll.bool_type().const_zero();
        self.keep(r, || f)
    }
    fn select(&mut self, m: Self::M, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.b.build_select(m, a, b, "").map_err(bug);
        self.float(r)
    }
    fn with_sign_of(&mut self, mag: Self::F, x: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.copysign", &[self.f32().into()], &[mag.into(), x.into()]);
        self.float(r)
    }
    fn exp2i(&mut self, n: Self::F) -> Self::F {
        // (n + 127) << 23 as the bits of an f32: exact for n in -126..=127.
        let g = self.g;
        let i32t = g.ll.i32_type();
        let r = (|| -> Result<V<'ll>, String> {
            let i = g.b.build_float_to_signed_int(n, i32t, "").map_err(bug)?;
            let e = g.b.build_int_add(i, i32t.const_int(127, false), "").map_err(bug)?;
            let s = g.b.build_left_shift(e, i32t.const_int(23, false), "").map_err(bug)?;
            g.b.build_bit_cast(s, g.ll.f32_type(), "").map_err(bug)
        })();
        self.float(r)
    }
}

/// Philox's word operations on LLVM `i64` values holding 32 bits.
pub(super) struct LlvmWords<'a, 'll> {
    pub(super) b: &'a Builder<'ll>,
    pub(super) t: inkwell::types::IntType<'ll>,
}

impl<'ll> philox::Words for LlvmWords<'_, 'll> {
    type Word = IntValue<'ll>;
    type Error = String;
    type Product = IntValue<'ll>;

    fn mul(&mut self, m: u32, x: &IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        self.b.build_int_mul(*x, self.t.const_int(m as u64, false), "").map_err(bug)
    }

    fn hi(&mut self, p: &IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        self.b.build_right_shift(*p, self.t.const_int(32, false), false, "").map_err(bug)
    }

    fn lo(&mut self, p: &IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        self.b.build_and(*p, self.t.const_int(0xffff_ffff, false), "").map_err(bug)
    }

    fn add(&mut self, k: &IntValue<'ll>, step: u32) -> Result<IntValue<'ll>, String> {
        let sum = self.b.build_int_add(*k, self.t.const_int(step as u64, false), "").map_err(bug)?;
        self.b.build_and(sum, self.t.const_int(0xffff_ffff, false), "").map_err(bug)
    }

    fn xor(&mut self, a: &IntValue<'ll>, b: &IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        self.b.build_xor(*a, *b, "").map_err(bug)
    }
}

/// The loop dialect's compound scalar ops ([`expand`]) on LLVM values.
pub(super) struct LlvmPrimitives<'a, 'll> {
    pub(super) b: &'a Builder<'ll>,
    pub(super) ll: &'ll LlContext,
}

impl<'ll> expand::Primitives for LlvmPrimitives<'_, 'll> {
    type Value = V<'ll>;
    type Error = String;

    fn int(&mut self, like: V<'ll>, k: i64) -> Result<V<'ll>, String> {
        Ok(like.into_int_value().get_type().const_int(k as u64, true).into())
    }

    fn binary(&mut self, op: IntOp, a: V<'ll>, b: V<'ll>) -> Result<V<'ll>, String> {
        let (a, b, bd) = (a.into_int_value(), b.into_int_value(), self.b);
        let v = match op {
            IntOp::Add => bd.build_int_add(a, b, ""),
            IntOp::Sub => bd.build_int_sub(a, b, ""),
            IntOp::And => bd.build_and(a, b, ""),
            IntOp::Or => bd.build_or(a, b, ""),
            IntOp::Xor => bd.build_xor(a, b, ""),
            IntOp::SDiv => bd.build_int_signed_div(a, b, ""),
            IntOp::SRem => bd.build_int_signed_rem(a, b, ""),
            IntOp::ShrU => bd.build_right_shift(a, b, false, ""),
        };
        Ok(v.map_err(bug)?.into())
    }

    fn binary_imm(&mut self, op: IntOp, a: V<'ll>, k: i64) -> Result<V<'ll>, String> {
        let b = self.int(a, k)?;
        self.binary(op, a, b)
    }

    fn cmp(&mut self, p: IntCmp, a: V<'ll>, b: V<'ll>) -> Result<V<'ll>, String> {
        let p = match p {
            IntCmp::Eq => IntPredicate::EQ,
            IntCmp::Ne => IntPredicate::NE,
            IntCmp::Slt => IntPredicate::SLT,
        };
        Ok(self.b.build_int_compare(p, a.into_int_value(), b.into_int_value(), "").map_err(bug)?.into())
    }

    fn cond(&mut self, op: IntOp, a: V<'ll>, b: V<'ll>) -> Result<V<'ll>, String> {
        self.binary(op, a, b)
    }

    fn select(&mut self, c: V<'ll>, a: V<'ll>, b: V<'ll>) -> Result<V<'ll>, String> {
        self.b.build_select(c.into_int_value(), a, b, "").map_err(bug)
    }

    fn zext_cond(&mut self, c: V<'ll>, like: V<'ll>) -> Result<V<'ll>, String> {
        let t = like.into_int_value().get_type();
        Ok(self.b.build_int_z_extend(c.into_int_value(), t, "").map_err(bug)?.into())
    }

    fn f32_bits(&mut self, x: V<'ll>) -> Result<V<'ll>, String> {
        self.b.build_bit_cast(x, self.ll.i32_type(), "").map_err(bug)
    }

    fn is_nan(&mut self, x: V<'ll>) -> Result<V<'ll>, String> {
        let x = x.into_float_value();
        Ok(self.b.build_float_compare(FloatPredicate::UNO, x, x, "").map_err(bug)?.into())
    }

    fn low_i16(&mut self, v: V<'ll>) -> Result<V<'ll>, String> {
        Ok(self.b.build_int_truncate(v.into_int_value(), self.ll.i16_type(), "").map_err(bug)?.into())
    }
}

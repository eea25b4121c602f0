//! Type data.
//!
//! Types are interned in the [`crate::Context`] and referred to by
//! [`crate::Type`]. The builtin type system is deliberately small: scalar
//! element types, `index`, `none`, function types, ranked tensors with static
//! (or, reserved for symbolic shapes, dynamic `?`) dimensions, and memrefs
//! (buffers with an explicit strided layout, used by the loop dialect). A
//! tensor type says nothing about strides: layout is a property of the runtime
//! tensor object, never of the SSA type.

use crate::entity::Type;
use smallvec::SmallVec;
use std::fmt;

/// The marker for a dynamic dimension (`?`), as MLIR's `ShapedType::kDynamic`.
pub const DYNAMIC: i64 = i64::MIN;

/// Shapes are short; four inline dims cover almost every tensor.
pub type Shape = SmallVec<[i64; 4]>;

/// Element types of tensors (and scalar types).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum ElemType {
    F32,
    F64,
    F16,
    BF16,
    I64,
    I32,
    I8,
    /// `i1`, PyTorch's `bool`.
    I1,
}

/// `x` in `bf16`, as PyTorch converts: to `f32` first, then to the nearest
/// `bf16` (ties to even). `half`'s own `bf16::from_f64` rounds some values
/// just above a tie down (`1 + 2⁻⁸ + 2⁻²³` to 1, where PyTorch and
/// `from_f32` give `1 + 2⁻⁷`), so every conversion of ours goes through
/// here.
pub fn bf16_of(x: f64) -> half::bf16 {
    half::bf16::from_f32(x as f32)
}

/// `x` in `f16`, as PyTorch converts: to `f32` first (c10's `Half` is made
/// from a `float`), then to the nearest `f16`.
pub fn f16_of(x: f64) -> half::f16 {
    half::f16::from_f32(x as f32)
}

impl ElemType {
    pub const ALL: [ElemType; 8] = [
        ElemType::F32,
        ElemType::F64,
        ElemType::F16,
        ElemType::BF16,
        ElemType::I64,
        ElemType::I32,
        ElemType::I8,
        ElemType::I1,
    ];

    /// The MLIR spelling (`f32`, `i1`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
            ElemType::I64 => "i64",
            ElemType::I32 => "i32",
            ElemType::I8 => "i8",
            ElemType::I1 => "i1",
        }
    }

    pub fn from_name(s: &str) -> Option<ElemType> {
        Some(match s {
            "f32" => ElemType::F32,
            "f64" => ElemType::F64,
            "f16" => ElemType::F16,
            "bf16" => ElemType::BF16,
            "i64" => ElemType::I64,
            "i32" => ElemType::I32,
            "i8" => ElemType::I8,
            "i1" => ElemType::I1,
            _ => return None,
        })
    }

    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F32 | ElemType::F64 | ElemType::F16 | ElemType::BF16)
    }

    pub fn is_int(self) -> bool {
        !self.is_float()
    }

    pub fn is_bool(self) -> bool {
        self == ElemType::I1
    }

    /// Bytes per element in memory (`i1` is stored as one byte, like `torch.bool`).
    pub fn byte_size(self) -> usize {
        match self {
            ElemType::F64 | ElemType::I64 => 8,
            ElemType::F32 | ElemType::I32 => 4,
            ElemType::F16 | ElemType::BF16 => 2,
            ElemType::I8 | ElemType::I1 => 1,
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A ranked tensor type: `tensor<2x3xf32>`, `tensor<f32>` (0-d).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TensorType {
    pub shape: Shape,
    pub elem: ElemType,
}

impl TensorType {
    pub fn new(shape: impl Into<Shape>, elem: ElemType) -> Self {
        Self { shape: shape.into(), elem }
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    pub fn has_static_shape(&self) -> bool {
        self.shape.iter().all(|&d| d != DYNAMIC && !crate::sym::is_symbolic(d))
    }

    /// Whether a size is symbolic (see [`crate::sym`]).
    pub fn is_symbolic(&self) -> bool {
        !crate::sym::is_static(&self.shape)
    }

    /// Number of elements; dynamic dims count as zero. Saturates at
    /// `i64::MAX`: the verifier rejects types whose count overflows, so only
    /// unverified IR can see the saturated value (use
    /// [`crate::size::checked_numel`] where that matters).
    pub fn numel(&self) -> i64 {
        self.shape
            .iter()
            .map(|&d| if d == DYNAMIC { 0 } else { d.max(0) })
            .try_fold(1i64, |n, d| n.checked_mul(d))
            .unwrap_or(i64::MAX)
    }

    /// Elements, a symbolic size counted as [`crate::sym::SIZE_HINT`] (a
    /// cost model's estimate; saturates as [`Self::numel`]).
    pub fn numel_at_hint(&self) -> i64 {
        if !self.is_symbolic() {
            return self.numel();
        }
        crate::sym::numel(&self.shape).ok().and_then(crate::sym::at_hint).map_or(i64::MAX, |n| n.max(0))
    }

    /// Bytes of a dense tensor of this type; saturates as [`Self::numel`].
    pub fn byte_size(&self) -> i64 {
        self.numel().saturating_mul(self.elem.byte_size() as i64)
    }

    pub fn with_elem(&self, elem: ElemType) -> Self {
        Self { shape: self.shape.clone(), elem }
    }

    pub fn with_shape(&self, shape: impl Into<Shape>) -> Self {
        Self { shape: shape.into(), elem: self.elem }
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor<")?;
        write_dims(f, &self.shape)?;
        write!(f, "{}>", self.elem)
    }
}

/// A buffer with an explicit strided layout: `memref<4x4xf32>` (contiguous)
/// or `memref<4x4xf32, strided<[1, 4], offset: 2>>`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct MemRefType {
    pub shape: Shape,
    pub elem: ElemType,
    /// `None` means the contiguous row-major layout.
    pub layout: Option<(Shape, i64)>,
}

impl fmt::Display for MemRefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("memref<")?;
        write_dims(f, &self.shape)?;
        write!(f, "{}", self.elem)?;
        if let Some((strides, offset)) = &self.layout {
            f.write_str(", strided<[")?;
            for (i, s) in strides.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_size(f, *s)?;
            }
            f.write_str("], offset: ")?;
            write_size(f, *offset)?;
            f.write_str(">")?;
        }
        f.write_str(">")
    }
}

/// One size of a layout (a stride, an offset): an integer or a symbolic
/// expression, spelled as a shape spells it.
fn write_size(f: &mut impl fmt::Write, d: i64) -> fmt::Result {
    if crate::sym::is_symbolic(d) {
        f.write_str(&crate::sym::display(d))
    } else {
        write!(f, "{d}")
    }
}

pub(crate) fn write_dims(f: &mut impl fmt::Write, shape: &[i64]) -> fmt::Result {
    for &d in shape {
        if d == DYNAMIC {
            f.write_str("?x")?;
        } else if crate::sym::is_symbolic(d) {
            write!(f, "{}x", crate::sym::display(d))?;
        } else {
            write!(f, "{d}x")?;
        }
    }
    Ok(())
}

/// A tensor subclass value: `!aot.subclass<@TwoTensor, tensor<2x3xf32>>`.
///
/// `class` names an `aot.subclass` declaration of the enclosing module;
/// `tensor` is the outer shape and dtype a user sees. Ops see a subclass
/// value through its outer tensor type ([`TypeData::as_tensor`]), so shape
/// inference and verification are those of the dense op; the dispatch
/// (the op applied to each inner component) is `flatten-subclasses`' job,
/// and no later pass or backend sees this type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SubclassType {
    pub class: String,
    pub tensor: TensorType,
}

impl fmt::Display for SubclassType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("!aot.subclass<")?;
        crate::printer::write_symbol_to(&self.class, f)?;
        write!(f, ", {}>", self.tensor)
    }
}

/// The data of an interned type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeData {
    /// A scalar of one of the element types (`f32`, `i64`, `i1`, ...).
    Elem(ElemType),
    Index,
    None,
    Tensor(TensorType),
    /// A tensor subclass value (see [`SubclassType`]).
    Subclass(SubclassType),
    MemRef(MemRefType),
    Function {
        inputs: Vec<Type>,
        results: Vec<Type>,
    },
}

impl TypeData {
    pub fn tensor(shape: &[i64], elem: ElemType) -> TypeData {
        TypeData::Tensor(TensorType::new(shape, elem))
    }

    /// The tensor type of a tensor, or the outer tensor type of a subclass
    /// value (ops verify and infer on subclass operands as on dense ones).
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            TypeData::Tensor(t) => Some(t),
            TypeData::Subclass(s) => Some(&s.tensor),
            _ => None,
        }
    }

    /// The subclass type, if this is one.
    pub fn as_subclass(&self) -> Option<&SubclassType> {
        match self {
            TypeData::Subclass(s) => Some(s),
            _ => None,
        }
    }
}

impl From<TensorType> for TypeData {
    fn from(t: TensorType) -> Self {
        TypeData::Tensor(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Conversions to the half types round as PyTorch's do (values checked
    /// against `torch.Tensor.bfloat16()` and `.half()`).
    #[test]
    fn half_types_round_as_pytorch() {
        // An f32 just above a bf16 tie rounds up (half's `bf16::from_f64`
        // gave 1).
        assert_eq!(bf16_of(f32::from_bits(0x3f80_8001) as f64).to_f64(), 1.0078125);
        // Ties to even, both ways.
        assert_eq!(bf16_of(f32::from_bits(0x3f80_8000) as f64).to_f64(), 1.0);
        assert_eq!(bf16_of(f32::from_bits(0x3f81_8000) as f64).to_f64(), 1.015625);
        // An f64 above a tie by less than f32 resolves goes through f32
        // first, as PyTorch's conversions do: the tie, then to even.
        assert_eq!(f16_of(1.0 + 2f64.powi(-11) + 2f64.powi(-40)).to_f64(), 1.0);
        assert_eq!(bf16_of(1.0 + 2f64.powi(-8) + 2f64.powi(-40)).to_f64(), 1.0);
        assert_eq!(f16_of(1.0 + 2f64.powi(-11) + 2f64.powi(-23)).to_f64(), 1.0 + 2f64.powi(-10));
        assert!(bf16_of(f64::NAN).is_nan() && f16_of(f64::NAN).is_nan());
        assert_eq!(bf16_of(f64::MAX).to_f64(), f64::INFINITY);
    }
}

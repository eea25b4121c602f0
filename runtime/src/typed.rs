//! Typed construction and reading of tensors: the embedding API's way to get
//! data in and out without going through `f64`.
//!
//! `Tensor::from_slice::<f32>(&data, &[2, 3])` builds a contiguous tensor
//! whose dtype is the Rust element type's ([`Element::DTYPE`]) and whose
//! buffer holds exactly those values; `t.to_vec::<f32>()` reads the values
//! seen through a tensor's strides, row-major. Invariants established here:
//! a constructed tensor has non-negative dims, an element count that fits
//! `i64` and the allocation limit ([`aot_ir::size`]), exactly as many values
//! as elements, and a physical buffer type consistent with its dtype (the
//! dtype itself, or `f64` for a float dtype: the interpreter's f64 mode).
//! Every violation is a [`TensorError`], never padding or truncation.
//!
//! Half-precision elements use the `half` crate's [`f16`](struct@f16) and [`bf16`]
//! (re-exported here); `i1` tensors are built from and read as `bool`.

use crate::buffer::Buffer;
use crate::tensor::{contiguous_strides, Storage, Tensor};
use aot_ir::size::{check_alloc_shape, checked_extent, checked_numel, AllocError};
use aot_ir::{ElemType, Shape};
pub use half::{bf16, f16};

/// Why a tensor could not be built, viewed or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TensorError {
    #[error("negative size in shape {0:?}")]
    NegativeSize(Vec<i64>),
    #[error("the element count of shape {0:?} overflows a 64-bit integer")]
    Overflow(Vec<i64>),
    #[error("shape {shape:?} needs {numel} values, got {len}")]
    Length { len: usize, shape: Vec<i64>, numel: i64 },
    #[error("the tensor is {actual}, but {requested} values were asked for")]
    DType { requested: ElemType, actual: ElemType },
    #[error(
        "a {dtype} tensor cannot be stored in a {physical} buffer (the buffer type must be the dtype, or f64 for a float dtype)"
    )]
    Physical { dtype: ElemType, physical: ElemType },
    #[error("{0}")]
    Layout(String),
    #[error(transparent)]
    Alloc(#[from] AllocError),
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that is the element type of a tensor dtype: `f32`, `f64`,
/// [`f16`](struct@f16), [`bf16`], `i64`, `i32`, `i8` and `bool` (`i1`).
pub trait Element: Copy + sealed::Sealed + 'static {
    /// The dtype of tensors of this element type.
    const DTYPE: ElemType;
    #[doc(hidden)]
    fn into_buffer(data: &[Self]) -> Buffer;
    /// Element `i` of a buffer whose logical dtype is [`Self::DTYPE`]
    /// (its physical type may be wider: f64 mode).
    #[doc(hidden)]
    fn read(buf: &Buffer, i: usize) -> Self;
}

macro_rules! element {
    ($t:ty, $dtype:ident, $variant:ident, |$b:ident, $i:ident| $other:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: ElemType = ElemType::$dtype;
            fn into_buffer(data: &[Self]) -> Buffer {
                Buffer::$variant(data.to_vec().into())
            }
            fn read($b: &Buffer, $i: usize) -> Self {
                match $b {
                    Buffer::$variant(v) => v[$i],
                    _ => $other,
                }
            }
        }
    };
}

element!(f32, F32, F32, |b, i| b.get_f64(i) as f32);
element!(f64, F64, F64, |b, i| b.get_f64(i));
element!(f16, F16, F16, |b, i| aot_ir::types::f16_of(b.get_f64(i)));
element!(bf16, BF16, BF16, |b, i| aot_ir::types::bf16_of(b.get_f64(i)));
element!(i64, I64, I64, |b, i| b.get_i64(i));
element!(i32, I32, I32, |b, i| b.get_i64(i) as i32);
element!(i8, I8, I8, |b, i| b.get_i64(i) as i8);

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: ElemType = ElemType::I1;
    fn into_buffer(data: &[Self]) -> Buffer {
        Buffer::Bool(data.iter().map(|&b| b as u8).collect())
    }
    fn read(buf: &Buffer, i: usize) -> Self {
        buf.get_i64(i) != 0
    }
}

/// A shape or stride list: `&[i64]`, `&[usize]`, arrays and vectors of
/// either (and `i32` arrays, so that `&[2, 3]` works as a literal).
pub trait Dims {
    /// The dims as `i64`, or an error when one does not fit.
    fn to_dims(&self) -> Result<Vec<i64>, TensorError>;
}

impl Dims for [i64] {
    fn to_dims(&self) -> Result<Vec<i64>, TensorError> {
        Ok(self.to_vec())
    }
}

impl Dims for [i32] {
    fn to_dims(&self) -> Result<Vec<i64>, TensorError> {
        Ok(self.iter().map(|&d| d as i64).collect())
    }
}

impl Dims for [usize] {
    fn to_dims(&self) -> Result<Vec<i64>, TensorError> {
        self.iter().map(|&d| i64::try_from(d).map_err(|_| TensorError::Overflow(vec![i64::MAX]))).collect()
    }
}

impl<T, const N: usize> Dims for [T; N]
where
    [T]: Dims,
{
    fn to_dims(&self) -> Result<Vec<i64>, TensorError> {
        self[..].to_dims()
    }
}

impl<T> Dims for Vec<T>
where
    [T]: Dims,
{
    fn to_dims(&self) -> Result<Vec<i64>, TensorError> {
        self[..].to_dims()
    }
}

/// Checks a shape for a dense tensor of `physical` elements: non-negative
/// dims, a countable number of elements, within the allocation limit.
fn checked_shape(shape: &[i64], physical: ElemType) -> Result<i64, TensorError> {
    if shape.iter().any(|&d| d < 0) {
        return Err(TensorError::NegativeSize(shape.to_vec()));
    }
    let n = checked_numel(shape).ok_or_else(|| TensorError::Overflow(shape.to_vec()))?;
    check_alloc_shape(shape, physical, "a tensor")?;
    Ok(n)
}

/// The physical buffer type a tensor of `dtype` may have.
fn check_physical(dtype: ElemType, physical: ElemType) -> Result<(), TensorError> {
    if physical == dtype || (dtype.is_float() && physical == ElemType::F64) {
        Ok(())
    } else {
        Err(TensorError::Physical { dtype, physical })
    }
}

fn dense(storage: crate::StorageRef, dtype: ElemType, shape: &[i64]) -> Result<Tensor, TensorError> {
    Tensor::from_parts(storage, dtype, Shape::from_slice(shape), contiguous_strides(shape), 0)
        .map_err(TensorError::Layout)
}

impl Tensor {
    /// A contiguous tensor of dtype `T::DTYPE` holding `data` (row-major).
    /// `data` must have exactly as many values as `shape` has elements.
    ///
    /// ```
    /// use aot_runtime::Tensor;
    /// let t = Tensor::from_slice::<f32>(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    /// assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    /// assert!(Tensor::from_slice::<f32>(&[1.0, 2.0], &[3usize]).is_err());
    /// ```
    pub fn from_slice<T: Element>(data: &[T], shape: &(impl Dims + ?Sized)) -> Result<Tensor, TensorError> {
        let shape = shape.to_dims()?;
        let n = checked_shape(&shape, T::DTYPE)?;
        if data.len() as u64 != n as u64 {
            return Err(TensorError::Length { len: data.len(), shape, numel: n });
        }
        dense(Storage::new(T::into_buffer(data)), T::DTYPE, &shape)
    }

    /// A 0-d tensor holding `value`.
    pub fn scalar<T: Element>(value: T) -> Tensor {
        Tensor::from_parts(Storage::new(T::into_buffer(&[value])), T::DTYPE, Shape::new(), Shape::new(), 0)
            .expect("a 0-d tensor fits its one-element storage")
    }

    /// A contiguous tensor of zeros of dtype `dtype`, checked like
    /// [`Tensor::from_slice`].
    pub fn try_zeros(dtype: ElemType, shape: &(impl Dims + ?Sized)) -> Result<Tensor, TensorError> {
        let shape = shape.to_dims()?;
        let n = checked_shape(&shape, dtype)?;
        dense(Storage::new(Buffer::zeros(dtype, n as usize)), dtype, &shape)
    }

    /// [`Tensor::from_f64`] with every rule checked: the number of values,
    /// the shape, the allocation limit, and the physical buffer type (the
    /// dtype, or f64 for a float dtype).
    pub fn try_from_f64(
        dtype: ElemType,
        shape: &[i64],
        data: &[f64],
        physical: ElemType,
    ) -> Result<Tensor, TensorError> {
        try_from_values(dtype, shape, data, physical, Buffer::set_f64)
    }

    /// [`Tensor::from_i64`] with every rule checked (see
    /// [`Tensor::try_from_f64`]).
    pub fn try_from_i64(
        dtype: ElemType,
        shape: &[i64],
        data: &[i64],
        physical: ElemType,
    ) -> Result<Tensor, TensorError> {
        try_from_values(dtype, shape, data, physical, Buffer::set_i64)
    }

    /// The values seen through this tensor, row-major, as `T`; an error
    /// unless the tensor's dtype is `T::DTYPE`.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, TensorError> {
        let actual = self.dtype();
        if actual != T::DTYPE {
            return Err(TensorError::DType { requested: T::DTYPE, actual });
        }
        let idx = self.storage_indices();
        let st = self.storage();
        let b = st.buf();
        Ok(idx.into_iter().map(|i| T::read(&b, i)).collect())
    }

    /// The single value of a one-element tensor, as `T`.
    pub fn item<T: Element>(&self) -> Result<T, TensorError> {
        let v = self.to_vec::<T>()?;
        match v[..] {
            [x] => Ok(x),
            _ => Err(TensorError::Length { len: v.len(), shape: self.sizes().to_vec(), numel: 1 }),
        }
    }

    /// A view of this tensor's storage with the given sizes, strides and
    /// storage offset (PyTorch's `as_strided`; no autograd relation is
    /// recorded). The layout must stay inside the storage.
    pub fn as_strided(
        &self,
        size: &(impl Dims + ?Sized),
        stride: &(impl Dims + ?Sized),
        offset: i64,
    ) -> Result<Tensor, TensorError> {
        let (size, stride) = (size.to_dims()?, stride.to_dims()?);
        // Checked first: the runtime's own bounds check assumes a layout
        // whose extent is computable.
        if checked_extent(&size, &stride, offset).is_none() {
            return Err(TensorError::Layout(format!(
                "a view with size {size:?}, stride {stride:?} and offset {offset} has no 64-bit extent"
            )));
        }
        self.alias_with(Shape::from_slice(&size), Shape::from_slice(&stride), offset).map_err(TensorError::Layout)
    }
}

/// The checked constructor behind [`Tensor::try_from_f64`] and
/// [`Tensor::try_from_i64`]: `set` writes one value, rounding to the buffer.
fn try_from_values<T: Copy>(
    dtype: ElemType,
    shape: &[i64],
    data: &[T],
    physical: ElemType,
    set: fn(&mut Buffer, usize, T),
) -> Result<Tensor, TensorError> {
    check_physical(dtype, physical)?;
    let n = checked_shape(shape, physical)?;
    if data.len() as u64 != n as u64 {
        return Err(TensorError::Length { len: data.len(), shape: shape.to_vec(), numel: n });
    }
    let mut buf = Buffer::zeros(physical, data.len());
    for (i, &x) in data.iter().enumerate() {
        set(&mut buf, i, x);
    }
    dense(Storage::new(buf), dtype, shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_type_round_trips() {
        fn check<T: Element + PartialEq + std::fmt::Debug>(data: &[T]) {
            let t = Tensor::from_slice(data, &[data.len()]).unwrap();
            assert_eq!(t.dtype(), T::DTYPE);
            assert_eq!(t.physical(), T::DTYPE);
            assert_eq!(t.to_vec::<T>().unwrap(), data);
        }
        check::<f32>(&[1.5, -2.0, 3.25]);
        check::<f64>(&[0.1, 1e300]);
        check::<f16>(&[f16::from_f32(0.5), f16::from_f32(-3.0)]);
        check::<bf16>(&[bf16::from_f32(1.0), bf16::from_f32(256.0)]);
        check::<i64>(&[9007199254740993, i64::MIN, i64::MAX]);
        check::<i32>(&[i32::MIN, 7]);
        check::<i8>(&[-128, 127]);
        check::<bool>(&[true, false, true]);
    }

    #[test]
    fn construction_checks_length_shape_and_limit() {
        assert_eq!(
            Tensor::from_slice::<f32>(&[1.0, 2.0], &[3]).unwrap_err(),
            TensorError::Length { len: 2, shape: vec![3], numel: 3 }
        );
        assert!(matches!(Tensor::from_slice::<f32>(&[], &[-1i64]), Err(TensorError::NegativeSize(_))));
        assert!(matches!(Tensor::from_slice::<i8>(&[], &[1i64 << 62, 1 << 62]), Err(TensorError::Overflow(_))));
        assert!(matches!(Tensor::try_zeros(ElemType::F32, &[1i64 << 40, 1 << 20]), Err(TensorError::Alloc(_))));
        let shape: Vec<usize> = vec![2, 2];
        assert_eq!(Tensor::from_slice(&[1i32, 2, 3, 4], &shape).unwrap().sizes().to_vec(), vec![2, 2]);
        assert_eq!(Tensor::scalar(2.5f64).item::<f64>(), Ok(2.5));
    }

    #[test]
    fn reading_checks_the_dtype_and_follows_strides() {
        let t = Tensor::from_slice::<f32>(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3]).unwrap();
        assert_eq!(
            t.to_vec::<f64>().unwrap_err(),
            TensorError::DType { requested: ElemType::F64, actual: ElemType::F32 }
        );
        let tt = t.as_strided(&[3, 2], &[1, 3], 0).unwrap();
        assert_eq!(tt.to_vec::<f32>().unwrap(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        assert!(t.as_strided(&[4], &[2], 0).is_err());
        assert!(matches!(t.as_strided(&[4], &[i64::MAX], 0), Err(TensorError::Layout(_))));
    }

    #[test]
    fn inconsistent_physical_types_are_refused() {
        assert!(Tensor::try_from_f64(ElemType::F32, &[2], &[1.0, 2.0], ElemType::F64).is_ok());
        assert_eq!(
            Tensor::try_from_f64(ElemType::F64, &[2], &[1.0, 2.0], ElemType::F32).unwrap_err(),
            TensorError::Physical { dtype: ElemType::F64, physical: ElemType::F32 }
        );
        assert!(Tensor::try_from_i64(ElemType::I64, &[1], &[1], ElemType::F64).is_err());
        assert!(Tensor::try_from_f64(ElemType::F32, &[3], &[1.0], ElemType::F32).is_err());
        // A float tensor in an f64 buffer (the interpreter's f64 mode) reads as its dtype.
        let wide = Tensor::try_from_f64(ElemType::F32, &[1], &[0.1], ElemType::F64).unwrap();
        assert_eq!(wide.to_vec::<f32>().unwrap(), vec![0.1f32]);
    }
}

//! The typed tensor API of the embedding facade: tensors built from Rust
//! slices of every element type go through compiled functions on both
//! backends and come back as the same Rust types, exactly (an `i64` never
//! passes through `f64`); construction refuses wrong lengths, negative or
//! overflowing shapes and inconsistent buffer types; reading refuses a dtype
//! mismatch; function names are accepted with or without '@'.

use aot::ir::ElemType;
use aot::{bf16, f16, Backend, Error, Module, Options, Tensor, TensorError};

const WHERE_I64: &str = "func.func @pick(%c: tensor<4xi1>, %a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = tensor.where %c, %a, %b : tensor<4xi1>, tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
";

#[test]
fn exact_i64_values_go_through_compiled_code_on_both_backends() -> Result<(), Error> {
    let m = Module::parse(WHERE_I64, "pick.mlir")?;
    let c = Tensor::from_slice(&[true, false, true, false], &[4usize])?;
    let a = Tensor::from_slice::<i64>(&[9007199254740993, i64::MAX, -9223372036854775807, 123456789012345678], &[4])?;
    let b = Tensor::from_slice::<i64>(&[1, 2, 3, 4], &[4])?;
    for &(_, backend) in Backend::available().iter().filter(|(_, b)| b.runs_everything_here()) {
        let mut f =
            m.compile(Some("@pick"), &[c.clone(), a.clone(), b.clone()], &Options::inference().with_backend(backend))?;
        let out = f.call(&[c.clone(), a.clone(), b.clone()])?;
        assert_eq!(out[0].to_vec::<i64>()?, vec![9007199254740993, 2, -9223372036854775807, 4], "{backend:?}");
        // Reading as another type is an error, not a conversion.
        assert!(matches!(out[0].to_vec::<f64>(), Err(TensorError::DType { .. })));
    }
    // Without '@' too.
    assert!(m.compile(Some("pick"), &[c.clone(), a.clone(), b.clone()], &Options::inference()).is_ok());
    Ok(())
}

#[test]
fn every_element_type_round_trips_through_a_compiled_copy() -> Result<(), Error> {
    fn round_trip<T: aot::Element + PartialEq + std::fmt::Debug>(ty: &str, data: &[T]) -> Result<(), Error> {
        let text = format!(
            "func.func @id(%x: tensor<2x{ty}>) -> tensor<2x{ty}> {{
  %0 = tensor.clone %x : tensor<2x{ty}>
  return %0 : tensor<2x{ty}>
}}
"
        );
        let m = Module::parse(text, "id.mlir")?;
        let x = Tensor::from_slice(data, &[2])?;
        for &(_, backend) in Backend::available().iter().filter(|(_, b)| b.runs_everything_here()) {
            let mut f = m.compile(None, std::slice::from_ref(&x), &Options::inference().with_backend(backend))?;
            let out = f.call(std::slice::from_ref(&x))?;
            assert_eq!(out[0].to_vec::<T>()?, data, "{ty} on {backend:?}");
        }
        Ok(())
    }
    round_trip::<f32>("f32", &[1.5, -0.25])?;
    round_trip::<f64>("f64", &[0.1, -1e300])?;
    round_trip::<f16>("f16", &[f16::from_f32(0.5), f16::from_f32(-2.0)])?;
    round_trip::<bf16>("bf16", &[bf16::from_f32(3.0), bf16::from_f32(-0.125)])?;
    round_trip::<i64>("i64", &[i64::MIN, i64::MAX])?;
    round_trip::<i32>("i32", &[i32::MIN, 5])?;
    round_trip::<i8>("i8", &[-128, 127])?;
    round_trip::<bool>("i1", &[true, false])?;
    Ok(())
}

#[test]
fn construction_is_validated() {
    // Short data is an error, never zero padding.
    assert_eq!(
        Tensor::from_slice::<f32>(&[1.0, 2.0, 3.0], &[2, 2]).err(),
        Some(TensorError::Length { len: 3, shape: vec![2, 2], numel: 4 })
    );
    assert!(matches!(Tensor::from_slice::<f32>(&[1.0; 5], &[2, 2]), Err(TensorError::Length { .. })));
    assert!(matches!(Tensor::from_slice::<f32>(&[], &[-2, 0]), Err(TensorError::NegativeSize(_))));
    assert!(matches!(Tensor::from_slice::<i8>(&[], &[1i64 << 62, 8]), Err(TensorError::Overflow(_))));
    assert!(matches!(Tensor::try_zeros(ElemType::F64, &[1i64 << 50]), Err(TensorError::Alloc(_))));
    // An f32 tensor in an f32 or f64 (interpreter f64 mode) buffer is fine;
    // an f64 tensor in an f32 buffer, or an integer in a float buffer, is refused.
    assert!(Tensor::try_from_f64(ElemType::F32, &[1], &[1.0], ElemType::F64).is_ok());
    assert!(matches!(
        Tensor::try_from_f64(ElemType::F64, &[1], &[1.0], ElemType::F32),
        Err(TensorError::Physical { .. })
    ));
    assert!(matches!(
        Tensor::try_from_i64(ElemType::I32, &[1], &[1], ElemType::I64),
        Err(TensorError::Physical { .. })
    ));
    // Shapes as usize vectors and i64 slices alike.
    let dims: Vec<usize> = vec![3, 1];
    assert_eq!(Tensor::from_slice::<f64>(&[1.0, 2.0, 3.0], &dims).unwrap().sizes().to_vec(), vec![3, 1]);
    let dims: &[i64] = &[1, 3];
    assert_eq!(Tensor::from_slice::<f64>(&[1.0, 2.0, 3.0], dims).unwrap().sizes().to_vec(), vec![1, 3]);
}

#[test]
fn views_by_layout_and_tensor_errors_convert_into_the_facade_error() {
    let base = Tensor::from_slice::<f32>(&[1.0, 2.0, 3.0, 4.0], &[4]).unwrap();
    let v = base.as_strided(&[2, 2], &[1, 2], 0).unwrap();
    assert_eq!(v.to_vec::<f32>().unwrap(), vec![1.0, 3.0, 2.0, 4.0]);
    assert!(base.as_strided(&[3], &[2], 0).is_err());
    let e: Error = Tensor::from_slice::<f32>(&[1.0], &[2]).unwrap_err().into();
    assert!(matches!(e, Error::Tensor(_)));
    assert_eq!(e.to_string(), "shape [2] needs 2 values, got 1");
}

//! The storage byte counters the memory benchmarks read. This binary holds
//! a single test, so no other thread allocates tensors while it measures.

use aot_ir::ElemType;
use aot_runtime::tensor::{memory, Tensor};

#[test]
fn live_and_peak_bytes_follow_storages() {
    let base = memory::live_bytes();
    memory::reset_peak();
    let a = Tensor::zeros(ElemType::F32, &[4, 8], ElemType::F32);
    assert_eq!(memory::live_bytes(), base + 128);
    // Another handle shares the storage: no new bytes.
    let v = a.clone();
    let b = Tensor::zeros(ElemType::F64, &[16], ElemType::F64);
    let c = Tensor::zeros(ElemType::I1, &[10], ElemType::I1);
    assert_eq!(memory::live_bytes(), base + 128 + 128 + 10);
    drop(b);
    assert_eq!(memory::live_bytes(), base + 138);
    assert_eq!(memory::peak_bytes(), base + 266);
    // Resizing counts the difference.
    a.storage().resize(64).unwrap();
    assert_eq!(memory::live_bytes(), base + 256 + 10);
    a.storage().resize(8).unwrap();
    assert_eq!(memory::live_bytes(), base + 32 + 10);
    drop(a);
    assert_eq!(memory::live_bytes(), base + 42, "a handle keeps its storage alive");
    drop(v);
    drop(c);
    assert_eq!(memory::live_bytes(), base);
    memory::reset_peak();
    assert_eq!(memory::peak_bytes(), base);
}

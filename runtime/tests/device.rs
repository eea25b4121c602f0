//! Device-resident storages on the host-memory device: placing tensors
//! keeps their aliasing, copies within the device cross no bus, reads and
//! writes from the host do (counted), and addresses outside the device's
//! allocations are refused, not touched.

use aot_ir::ElemType;
use aot_runtime::device::{Crossings, DeviceMemory, HostMemory, Strided};
use aot_runtime::tensor::{Storage, Tensor};
use std::rc::Rc;

fn memory() -> (Rc<HostMemory>, Rc<dyn DeviceMemory>) {
    let m = HostMemory::new();
    let d: Rc<dyn DeviceMemory> = m.clone();
    (m, d)
}

fn sh(v: &[i64]) -> aot_ir::Shape {
    aot_ir::Shape::from_slice(v)
}

fn counts(mem: &Rc<dyn DeviceMemory>) -> Crossings {
    mem.crossings()
}

#[test]
fn placing_tensors_keeps_views_of_one_storage_together() {
    let (_, mem) = memory();
    let base = Tensor::from_f64(ElemType::F32, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], ElemType::F32);
    let col = base.alias_with(sh(&[2]), sh(&[3]), 1).unwrap();
    let row = base.alias_with(sh(&[3]), sh(&[1]), 3).unwrap();
    Tensor::make_resident(&[col.clone(), row.clone()], &mem).unwrap();
    // One upload for the one storage; the views see it.
    assert_eq!(counts(&mem).uploads, 1);
    assert!(col.shares_storage(&row) && col.is_on_device());
    // (`alias_with` makes detached aliases, not views: the object they
    // were made from is not among the tensors placed, and stays.)
    assert!(!base.is_on_device());
    assert_eq!(col.read_f64(), vec![2.0, 5.0]);
    assert_eq!(counts(&mem).downloads, 1);
    // A copy on the device into a view of the same storage: no crossing.
    let before = counts(&mem);
    let src = Tensor::from_f64(ElemType::F32, &[3], &[7.0, 8.0, 9.0], ElemType::F32).to_device(&mem).unwrap();
    let uploaded = counts(&mem).since(&before);
    assert_eq!((uploaded.uploads, uploaded.uploaded_bytes), (1, 12));
    let before = counts(&mem);
    row.copy_values_from(&src);
    assert_eq!(counts(&mem).since(&before).copies(), 0, "a copy within the device crossed the bus");
    let whole = row.alias_with(sh(&[6]), sh(&[1]), 0).unwrap();
    assert_eq!(whole.to_host().unwrap().read_f64(), vec![1.0, 2.0, 3.0, 7.0, 8.0, 9.0]);
}

#[test]
fn device_copies_stay_on_the_device() {
    let (_, mem) = memory();
    let x = Tensor::from_f64(ElemType::F64, &[4], &[1.0, -2.0, 3.5, 0.25], ElemType::F64).to_device(&mem).unwrap();
    let before = counts(&mem);
    let y = x.deep_clone();
    assert!(y.is_on_device() && !y.shares_storage(&x));
    // Growing a device storage moves it to a new block on the device; the
    // new elements are zero.
    y.storage().resize(6).unwrap();
    assert_eq!(counts(&mem).since(&before).copies(), 0);
    let y6 = y.alias_with(sh(&[6]), sh(&[1]), 0).unwrap();
    assert_eq!(y6.read_f64(), vec![1.0, -2.0, 3.5, 0.25, 0.0, 0.0]);
    // A transposed read of a device tensor on the host: its values, one
    // download of the storage.
    let m = Tensor::from_f64(ElemType::F32, &[2, 2], &[1.0, 2.0, 3.0, 4.0], ElemType::F32).to_device(&mem).unwrap();
    let t = m.alias_with(sh(&[2, 2]), sh(&[1, 2]), 0).unwrap();
    let before = counts(&mem);
    assert_eq!(t.to_host().unwrap().read_f64(), vec![1.0, 3.0, 2.0, 4.0]);
    assert_eq!(counts(&mem).since(&before).downloads, 1);
}

#[test]
fn host_writes_reach_the_device() {
    let (_, mem) = memory();
    let x = Tensor::zeros_on(&mem, ElemType::I64, &[3], ElemType::I64).unwrap();
    assert_eq!(x.read_i64(), vec![0, 0, 0]);
    x.write_i64(&[4, 5, 6]);
    assert_eq!(x.read_i64(), vec![4, 5, 6]);
    // A host tensor and a device one: the values go across.
    let h = Tensor::zeros(ElemType::I64, &[3], ElemType::I64);
    h.copy_values_from(&x);
    assert_eq!(h.read_i64(), vec![4, 5, 6]);
}

#[test]
fn addresses_outside_the_allocations_are_refused() {
    let (host, mem) = memory();
    let s = Storage::on_device(&mem, ElemType::F32, 4).unwrap();
    let a = s.device_addr().unwrap();
    assert!(host.check(a, 16).is_ok());
    let e = mem.upload(a + 8, &[0u8; 16]).unwrap_err();
    assert!(e.contains("outside every allocation"), "{e}");
    let e = mem.download(a.wrapping_sub(64), &mut [0u8; 4]).unwrap_err();
    assert!(e.contains("outside every allocation"), "{e}");
    // A strided copy whose last element lies past the block.
    let sizes = [3i64];
    let (wide, unit) = ([2i64], [1i64]);
    let dst = Strided { addr: a, elem_bytes: 4, sizes: &sizes, strides: &wide, offset: 0 };
    let src = Strided { addr: a, elem_bytes: 4, sizes: &sizes, strides: &unit, offset: 0 };
    assert!(mem.copy_strided(dst, src).unwrap_err().contains("outside every allocation"));
    // An overlapping strided copy reads every element before writing one.
    s.write_host_buffer(aot_runtime::Buffer::F32(vec![1.0f32, 2.0, 3.0, 4.0].into())).unwrap();
    let shifted = Strided { addr: a, elem_bytes: 4, sizes: &sizes, strides: &unit, offset: 1 };
    mem.copy_strided(shifted, src).unwrap();
    let back = Tensor::from_parts(s.clone(), ElemType::F32, sh(&[4]), sh(&[1]), 0).unwrap();
    assert_eq!(back.read_f64(), vec![1.0, 1.0, 2.0, 3.0]);
    // Freed with its last storage.
    let live = host.live_bytes();
    drop(back);
    drop(s);
    assert_eq!(host.live_bytes(), live - 16);
}

#[test]
fn a_device_storage_is_empty_to_host_buffer_access() {
    let (_, mem) = memory();
    let s = Storage::on_device(&mem, ElemType::F32, 8).unwrap();
    // The host buffer holds nothing (its elements are the device's), and
    // the storage reports the device's length.
    assert_eq!(s.buf().len(), 0);
    assert_eq!((s.len(), s.byte_len()), (8, 32));
    assert!(Storage::reclaim(s.clone()).is_none());
}

//! Compiled calls bind the caller's buffers without copying them: a large
//! contiguous argument mutated in place costs no storage of its size (the
//! storage counters are process-wide, so this binary holds one test).

use aot::ir::ElemType;
use aot::runtime::tensor::memory;
use aot::{Module, Options, Tensor};

#[test]
fn contiguous_arguments_are_bound_in_place() {
    let n = 1 << 20;
    let text = format!(
        "func.func @inc(%x: tensor<{n}xf32>) {{
  %c = tensor.full {{value = 1.0}} : tensor<{n}xf32>
  mut.add_ %x, %c : tensor<{n}xf32>, tensor<{n}xf32>
  return
}}
"
    );
    let m = Module::parse(text, "inc.mlir").unwrap();
    let x = Tensor::zeros(ElemType::F32, &[n], ElemType::F32);
    let mut f = m.compile(None, std::slice::from_ref(&x), &Options::inference()).unwrap();
    f.call(std::slice::from_ref(&x)).unwrap();
    memory::reset_peak();
    let before = memory::live_bytes();
    f.call(std::slice::from_ref(&x)).unwrap();
    let extra = memory::peak_bytes() - before;
    assert!(extra < (n as u64) * 4 / 8, "a call allocated {extra} bytes for a {}-byte argument", n * 4);
    assert!(x.read_f64().iter().all(|&v| v == 2.0));
}

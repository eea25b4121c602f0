//! PTX for NVIDIA GPUs (cargo feature `cuda`): the shape of what the
//! kernel emitter produces for the GPU. That `ptxas` accepts every kernel
//! of the corpus is `scripts/check-ptx.py`'s job (run by the test script);
//! running kernels on a device needs the CUDA runtime, not built yet.
#![cfg(feature = "cuda")]

use aot::codegen::llvm::ptx::Sm;
use aot::ir::{parse_module, Context, Op, ParseOptions};

/// `text` parsed as file `t.mlir`: the context, the module and its entry.
fn parsed(text: &str) -> (Context, Op, Op) {
    aot::init();
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, text, &ParseOptions { file: "t.mlir".into(), first_line: 1 }).expect("parses");
    let f = aot::dialects::func::entry_func(&ctx, m, None).expect("entry").op;
    (ctx, m, f)
}

/// The module's PTX; `ctx` keeps its lowered functions.
fn emit(ctx: &mut Context, m: Op, sm: Sm) -> String {
    let mut pm = aot::codegen::pass_manager(Default::default()).expect("pipeline");
    aot::codegen::emit_text(ctx, m, aot::codegen::Native::Ptx(sm), &mut pm, &mut std::io::sink()).expect("emits")
}

fn ptx(text: &str, sm: Sm) -> String {
    let (mut ctx, m, _) = parsed(text);
    emit(&mut ctx, m, sm)
}

#[test]
fn kernels_are_grid_stride_entries_calling_libdevice() {
    let text = "func.func @f(%x: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<f32>) {
  %0 = tensor.sin %x : tensor<64x32xf32>
  %1 = tensor.sum %x {dims = [0, 1]} : tensor<64x32xf32> -> tensor<f32>
  return %0, %1 : tensor<64x32xf32>, tensor<f32>
}
";
    for sm in Sm::ALL {
        let out = ptx(text, sm);
        assert!(out.starts_with("// function @f\n"), "{out}");
        assert!(out.contains(&format!(".target {}", sm.name())), "{out}");
        // Two entries, each taking (buffers, lo, hi, status).
        let entries: Vec<&str> = out.lines().filter(|l| l.starts_with(".visible .entry")).collect();
        assert_eq!(entries.len(), 2, "{out}");
        assert!(out.contains("_param_3"), "an entry lacks its status parameter:\n{out}");
        // The elementwise kernel strides over the whole grid.
        for reg in ["%tid.x", "%ntid.x", "%ctaid.x", "%nctaid.x"] {
            assert!(out.contains(reg), "no {reg}:\n{out}");
        }
        // sin has no lane polynomial: libdevice's, left external.
        assert!(out.contains(".extern .func  (.param .b32 func_retval0) __nv_sinf"), "{out}");
    }
    assert!(Sm::parse("sm_70").unwrap_err().contains("available: sm_80, sm_90"));
}

#[test]
fn a_failed_check_writes_its_code_to_the_status_word() {
    // The Philox offset check of a functionalized random op.
    let text = "func.func @f(%seed: tensor<i64>, %offset: tensor<i64>) -> tensor<256xf32> {
  %u = rng.philox_uniform %seed, %offset {high = 1.0, low = 0.0} : tensor<i64> -> tensor<256xf32>
  return %u : tensor<256xf32>
}
";
    let out = ptx(text, Sm::Sm80);
    assert!(out.contains("st.global.u32"), "no store of a check's code:\n{out}");
}

/// `Native::Ptx` names an architecture to print PTX for; running is the
/// `cuda` backend's (`Native::Cuda`, for the GPU that is there).
#[test]
fn ptx_for_a_named_architecture_is_text_only() {
    let text = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
";
    let (mut ctx, _, f) = parsed(text);
    let mut sink = String::new();
    let e = aot::codegen::compile_function(&mut ctx, f, aot::codegen::Native::Ptx(Sm::Sm80), &mut sink)
        .err()
        .expect("text only");
    assert!(e.message.contains("text only") && e.message.contains("cuda backend"), "{}", e.message);
}

#[test]
fn a_libdevice_that_cannot_be_read_is_a_located_error() {
    let text = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.sin %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
";
    let (mut ctx, m, f) = parsed(text);
    // Lower through the codegen pipeline first (emit_text does it too).
    emit(&mut ctx, m, Sm::Sm80);
    let mut sink = String::new();
    let missing = std::path::Path::new("/nonexistent/libdevice.10.bc");
    let e = aot::codegen::llvm::ptx::emit_with(&ctx, f, Sm::Sm80, Some(missing), &mut sink).unwrap_err();
    assert!(e.message.contains("cannot read libdevice at /nonexistent/libdevice.10.bc"), "{}", e.message);
    assert_eq!(ctx.loc_file_line_col(e.loc), Some(("t.mlir", 1, 1)), "not located on the function: {e}");
}

/// A kernel that reduces rows runs one warp per row: lanes take every 32nd
/// column and combine with a butterfly of shuffles (f32 and f64), store
/// loops are split across the lanes and followed by a warp barrier. A
/// kernel with a check keeps one thread per row (a lane leaving early
/// would break the shuffles).
#[test]
fn row_reductions_run_one_warp_per_row() {
    let text = "func.func @f(%x: tensor<64x100xf32>, %d: tensor<8x300xf64>) -> (tensor<64xf32>, tensor<64x100xf32>, tensor<8xf64>) {
  %0 = tensor.sum %x {dims = [1]} : tensor<64x100xf32> -> tensor<64xf32>
  %1 = tensor.softmax %x {dim = 1} : tensor<64x100xf32>
  %2 = tensor.amax %d {dims = [1]} : tensor<8x300xf64> -> tensor<8xf64>
  return %0, %1, %2 : tensor<64xf32>, tensor<64x100xf32>, tensor<8xf64>
}
";
    for sm in Sm::ALL {
        let out = ptx(text, sm);
        assert!(out.contains("shfl.sync.bfly.b32"), "{out}");
        assert!(out.contains("bar.warp.sync"), "the softmax's store loop needs a warp barrier:\n{out}");
        // Three kernels, each warp-mapped: five shuffle rounds per carried
        // value (f64 values shuffle two halves).
        let shuffles = out.matches("shfl.sync.bfly.b32").count();
        assert!(shuffles >= 5 * (1 + 2) + 10, "{shuffles} shuffles:\n{out}");
    }
    let checked = "func.func @f(%x: tensor<4x8xf32>, %i: tensor<4x8xi64>) -> tensor<4x8xf32> {
  %0 = tensor.gather %x, %i {dim = 1} : tensor<4x8xf32>, tensor<4x8xi64> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
";
    let out = ptx(checked, Sm::Sm80);
    assert!(!out.contains("shfl.sync"), "a kernel with a check must not be warp-mapped:\n{out}");
}

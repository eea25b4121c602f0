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
    let native = ptx_for(sm);
    let mut pm = aot::codegen::pass_manager_for(native.target, Default::default()).expect("pipeline");
    aot::codegen::emit_text(ctx, m, &native, &mut pm, &mut std::io::sink()).expect("emits")
}

/// The `ptx` target writing PTX for `sm`.
fn ptx_for(sm: Sm) -> aot::codegen::Native {
    let options =
        aot::codegen::target::Options { emit: Some("ptx"), gpu_arch: Some(sm.name().into()), ..Default::default() };
    aot::codegen::Native::named("ptx", options).expect("the ptx target")
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
        // sin has no lane polynomial: libdevice's, left external unless
        // AOT_LIBDEVICE names libdevice to link in (as on a GPU machine).
        if std::env::var_os("AOT_LIBDEVICE").is_some_and(|p| !p.is_empty()) {
            // (Linked in, and inlined: nothing is left external.)
            assert!(!out.contains(".extern .func"), "{out}");
        } else {
            assert!(out.contains(".extern .func  (.param .b32 func_retval0) __nv_sinf"), "{out}");
        }
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

/// The `ptx` target names an architecture to print PTX for; running is the
/// `cuda` target's (for the GPU that is there).
#[test]
fn ptx_for_a_named_architecture_is_text_only() {
    let text = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
";
    let (mut ctx, _, f) = parsed(text);
    let mut sink = String::new();
    let e = aot::codegen::compile_function(&mut ctx, f, &ptx_for(Sm::Sm80), &mut sink).err().expect("text only");
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

/// Rows of 1024 elements or more are shared by a whole block: each warp
/// combines its lanes with shuffles, then the warps' values meet in
/// shared memory between two block barriers (f32 and f64 slots), and the
/// softmax's store loop ends with a block barrier rather than a warp's.
/// Shorter rows stay one warp per row.
#[test]
fn long_rows_run_one_block_per_row() {
    let text = "func.func @f(%x: tensor<8x4096xf32>, %d: tensor<3x1024xf64>) -> (tensor<8x4096xf32>, tensor<3xf64>) {
  %0 = tensor.softmax %x {dim = 1} : tensor<8x4096xf32>
  %1 = tensor.sum %d {dims = [1]} : tensor<3x1024xf64> -> tensor<3xf64>
  return %0, %1 : tensor<8x4096xf32>, tensor<3xf64>
}
";
    for sm in Sm::ALL {
        let out = ptx(text, sm);
        for needle in [
            ".shared .align 4 .b8 aot_$_rows_$_f32[32]",
            ".shared .align 8 .b8 aot_$_rows_$_f64[64]",
            "st.shared.f32",
            "st.shared.f64",
            "%ctaid.x",
        ] {
            assert!(out.contains(needle), "no {needle}:\n{out}");
        }
        // Two barriers per combined value: softmax's max and sum, the f64 sum.
        let barriers = out.matches("bar.sync \t0;").count();
        assert!(barriers > 2 * 3, "{barriers} block barriers:\n{out}");
        assert!(!out.contains("bar.warp.sync"), "a block's store loop needs a block barrier:\n{out}");
    }
    let short = "func.func @f(%x: tensor<8x1023xf32>) -> tensor<8xf32> {
  %0 = tensor.sum %x {dims = [1]} : tensor<8x1023xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
";
    let out = ptx(short, Sm::Sm80);
    assert!(out.contains("shfl.sync.bfly.b32") && !out.contains(".shared"), "rows under 1024 stay per warp:\n{out}");
}

/// A kernel without a parallel loop that reduces (a sum or a max to one
/// value, a nest of loops over a matrix) runs on one block: its lanes
/// split the innermost loop and carry their partial values through the
/// nest, then combine as a block. Without a reduction it stays on one
/// thread.
#[test]
fn a_full_reduction_runs_on_one_block() {
    let text = "func.func @f(%x: tensor<64x300xf32>, %d: tensor<5x7x9xf64>) -> (tensor<f32>, tensor<f64>) {
  %0 = tensor.sum %x {dims = [0, 1]} : tensor<64x300xf32> -> tensor<f32>
  %1 = tensor.amax %d {dims = [0, 1, 2]} : tensor<5x7x9xf64> -> tensor<f64>
  return %0, %1 : tensor<f32>, tensor<f64>
}
";
    for sm in Sm::ALL {
        let out = ptx(text, sm);
        assert_eq!(out.matches(".visible .entry").count(), 2, "{out}");
        for needle in ["st.shared.f32", "st.shared.f64", "bar.sync", "setp.nan.f64"] {
            assert!(out.contains(needle), "no {needle}:\n{out}");
        }
        assert!(!out.contains("%ctaid.x"), "one block needs no block index:\n{out}");
    }
    // A kernel of one element (no loop at all) keeps one thread: thread
    // 0 works, the others leave.
    let scalar = "func.func @f(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = tensor.mul %a, %b : tensor<f32>, tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}
";
    let out = ptx(scalar, Sm::Sm80);
    assert!(out.contains("mul.rn.f32") && !out.contains(".shared") && !out.contains("shfl"), "{out}");
}

/// Elementwise rows run one warp per row, and where every access runs
/// along the row contiguously from an aligned start, each lane takes 16
/// bytes at a time: LLVM merges them into 128-bit loads and stores of
/// global memory (four f32, two f64). A transposed read (stride 1024
/// along the row) keeps one element per access.
#[test]
fn contiguous_rows_use_128_bit_global_accesses() {
    let text = "func.func @f(%x: tensor<64x512xf32>, %y: tensor<64x512xf32>, %d: tensor<16x256xf64>) -> (tensor<64x512xf32>, tensor<16x256xf64>) {
  %0 = tensor.mul %x, %y : tensor<64x512xf32>, tensor<64x512xf32> -> tensor<64x512xf32>
  %1 = tensor.tanh %0 : tensor<64x512xf32> -> tensor<64x512xf32>
  %2 = tensor.mul %d, %d : tensor<16x256xf64>, tensor<16x256xf64> -> tensor<16x256xf64>
  return %1, %2 : tensor<64x512xf32>, tensor<16x256xf64>
}
";
    for sm in Sm::ALL {
        let out = ptx(text, sm);
        for needle in ["ld.global.v4.f32", "st.global.v4.f32", "ld.global.v2.f64", "st.global.v2.f64", "bar.warp.sync"]
        {
            assert!(out.contains(needle), "no {needle}:\n{out}");
        }
        // Unaligned buffers take the element-by-element path.
        assert!(out.contains("ld.global.f32") && out.contains("st.global.f32"), "{out}");
        assert!(!out.contains("ld.f32") && !out.contains("st.f32"), "generic accesses:\n{out}");
    }
    // (A row-major first operand lays the result out row-major: the
    // transposed one is then read along its columns.)
    let transposed = "func.func @f(%x: tensor<1024x64xf32>, %y: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %0 = view.t %x : tensor<1024x64xf32> -> tensor<64x1024xf32>
  %1 = tensor.add %y, %0 : tensor<64x1024xf32>, tensor<64x1024xf32> -> tensor<64x1024xf32>
  return %1 : tensor<64x1024xf32>
}
";
    let out = ptx(transposed, Sm::Sm80);
    assert!(!out.contains(".v4.") && out.contains("ld.global.f32"), "{out}");
}

/// A row's lanes meet only after its planned loops, so a row body whose
/// store reaches a buffer it loaded or stored since they last met keeps
/// one thread per row: a lane running ahead would write an element that
/// a lane behind still reads, or that it then overwrites with the earlier
/// value. The same kernel without the conflicting access is mapped.
#[test]
fn a_row_that_races_with_itself_keeps_one_thread() {
    let kernel = |prologue: &str| {
        format!(
            "func.func @f(%x: memref<4x64xf32>) -> memref<4x64xf32> {{
  %y = loop.alloc : memref<4x64xf32>
  loop.kernel \"k\" (%a = %x : memref<4x64xf32>, %b = %y : memref<4x64xf32>) {{
    loop.for %i = 0 to 4 parallel {{
      %z = loop.constant 0 : index
{prologue}
      loop.for %j = 0 to 64 {{
        %v = loop.load %a[%i, %j] : memref<4x64xf32>
        loop.store %v, %b[%i, %j] : memref<4x64xf32>
      }}
    }}
  }}
  return %y : memref<4x64xf32>
}}
"
        )
    };
    let mapped = ptx(&kernel("      %c = loop.load %a[%i, %z] : memref<4x64xf32>"), Sm::Sm80);
    assert!(mapped.contains("bar.warp.sync"), "a row that reads another buffer is mapped:\n{mapped}");
    for prologue in [
        // Stored by every lane, then by the lane that owns element 0.
        "      %c = loop.constant 1.0 : f32\n      loop.store %c, %b[%i, %z] : memref<4x64xf32>",
        // Read by every lane, written by the lane that owns element 0.
        "      %c = loop.load %b[%i, %z] : memref<4x64xf32>",
    ] {
        let out = ptx(&kernel(prologue), Sm::Sm80);
        assert!(!out.contains("bar.warp.sync") && !out.contains("bar.sync"), "{prologue}:\n{out}");
    }
}

//! The runtime's device hook (`codegen::executor::Device`, what the CUDA
//! backend implements) checked on any machine with the host-memory device
//! (`codegen::host_device`) called with host tensors: it keeps its own
//! copies of a call's buffers and runs the Cranelift kernels and the host
//! GEMM on them, and must give the plain runtime's bits on every corpus
//! program it can take. This exercises what the GPU runs rely on: pointer
//! translation into mirrors (views, shared storages, `set_` onto a result),
//! which regions are copied in (arguments, constants) and which are not
//! (results and the arena, whose fresh device memory holds a pattern, to
//! show they are written before they are read), write-back of exactly the
//! written regions, and the resumption after a step the host runs itself
//! (`set_`, `resize_`). Resident calls (arguments already in the device's
//! memory) are the differential, gradient and convention suites' `hostdev`
//! cases.

use aot::codegen::executor::Device;
use aot::codegen::host_device::HostDevice;
use aot::ir::{parse_module, Context, Op, ParseOptions};
use aot::runtime::compiled::Executable as _;
use aot::runtime::Tensor;

use crate::common;

/// `f` of `ctx` through the codegen pipeline, and Cranelift's kernels and
/// host program for it, to run on a device.
fn lowered_code(ctx: &mut Context, f: Op) -> aot::codegen::executor::Compiled {
    let native = aot::codegen::Native::default();
    aot::codegen::compile_function(ctx, f, &native, &mut String::new()).expect("the pipeline takes the function");
    aot::codegen::cranelift::compile(ctx, f, Default::default(), &mut String::new())
        .expect("the lowered function compiles")
}

fn bits(ts: &[Tensor]) -> Vec<Vec<u64>> {
    ts.iter().map(|t| t.read_f64().into_iter().map(f64::to_bits).collect()).collect()
}

#[test]
fn a_mirroring_device_computes_the_plain_runtimes_bits() {
    aot::init();
    let root = common::corpus_dir("run");
    let (mut checked, mut failures) = (0, Vec::new());
    for path in common::files_ending(&root, ".mlir") {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let Ok(inputs) = std::fs::read_to_string(path.to_string_lossy().replace(".mlir", ".inputs.json")) else {
            continue;
        };
        let Ok(spec) = aot_run::json::parse_inputs(&inputs) else { continue };
        let text = std::fs::read_to_string(&path).unwrap();
        let (Some((mut plain_ctx, f1)), Some((mut dev_ctx, f2))) =
            (common::pipelined(&text, &name), common::pipelined(&text, &name))
        else {
            continue;
        };
        // The graph must take the user's arguments as they are (no
        // deduplication, synthetic base or generator state in between).
        let Ok(params) = aot_run::signature(&plain_ctx, f1) else { continue };
        if params.len() != spec.args.len() {
            continue;
        }
        let native = aot::codegen::Native::default();
        let Ok(mut plain) = aot::codegen::compile_function(&mut plain_ctx, f1, &native, &mut String::new()) else {
            continue;
        };
        let mut code = lowered_code(&mut dev_ctx, f2);
        let kernels = std::mem::take(&mut code.kernels);
        let mut device = aot::codegen::executor::Executable::on_device(code, Box::new(HostDevice::new(kernels)));
        let (Ok(a), Ok(b)) = (aot_run::materialize(&spec, &params, false), aot_run::materialize(&spec, &params, false))
        else {
            continue;
        };
        let (a, b) = (a.args, b.args);
        let r1 = plain.run(a.clone());
        let r2 = device.run(b.clone());
        checked += 1;
        match (r1, r2) {
            (Ok(o1), Ok(o2)) => {
                if bits(&o1) != bits(&o2) || bits(&a) != bits(&b) {
                    failures.push(format!("{name}: outputs or arguments differ"));
                }
            }
            (Err(_), Err(_)) => {}
            (x, y) => failures.push(format!("{name}: plain {:?}, device {:?}", x.err(), y.err())),
        }
    }
    assert!(checked >= 300, "only {checked} programs checked");
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
}

/// A collective in a program whose kernels run on a device completes
/// before the device's next step begins (the device mirrors the host's
/// buffers then, the collective's output among them): with a communicator
/// that only works when waited for, the mirroring device still computes
/// the definitions' values on two ranks.
#[test]
fn a_collective_completes_before_the_device_mirrors_its_output() {
    let outs = crate::dist::ranks_with(2, crate::dist::Lazy::wrap, |rank| {
        let mut ctx = Context::new();
        let opts = ParseOptions { file: "dist.mlir".into(), first_line: 1 };
        let m = parse_module(&mut ctx, crate::dist::OVERLAP, &opts).unwrap();
        let f = aot::dialects::func::entry_func(&ctx, m, None).unwrap().op;
        let mut code = lowered_code(&mut ctx, f);
        let kernels = std::mem::take(&mut code.kernels);
        let mut device = aot::codegen::executor::Executable::on_device(code, Box::new(HostDevice::new(kernels)));
        let x = crate::dist::lazy_input(rank);
        let x = Tensor::from_f64(aot::ir::ElemType::F32, &[64], &x, aot::ir::ElemType::F32);
        device.run(vec![x]).unwrap().iter().map(|t| t.read_f64()).collect::<Vec<_>>()
    });
    let xs: Vec<Vec<f64>> = (0..2).map(crate::dist::lazy_input).collect();
    for (rank, out) in outs.iter().enumerate() {
        for i in 0..64 {
            let sum = xs.iter().map(|x| (x[i] as f32) * (x[i] as f32)).sum::<f32>();
            let want = sum + (xs[rank][i] as f32).exp().sin().cos();
            assert!((out[0][i] as f32 - want).abs() <= 1e-5 * want.abs().max(1.0), "rank {rank} [{i}]");
        }
    }
}

/// A function with symbolic sizes on a device (what the CUDA backend runs
/// since its kernels read their sizes at run time): the kernels, compiled
/// once, run on a device per set of sizes (`Sized::on_device`), each
/// given its program's size table as a read-only global, and give the
/// host's bits at every size, several programs kept at once.
#[test]
fn symbolic_programs_run_on_a_device_per_set_of_sizes() {
    use std::cell::Cell;
    use std::rc::Rc;
    aot::init();
    let root = common::corpus_dir("symbolic");
    let mut checked = 0;
    for path in common::files_ending(&root, ".mlir") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        // Each set of sizes of the corpus, then the first again: its device
        // is kept while used.
        let calls = common::symbolic_sizes(name.trim_end_matches(".mlir")).1;
        let sizes: Vec<&str> = calls.iter().chain(&calls[..1]).copied().collect();
        let (Some((mut plain_ctx, f1)), Some((mut dev_ctx, f2))) =
            (common::pipelined(&text, &name), common::pipelined(&text, &name))
        else {
            panic!("{name}: aot-inference fails");
        };
        let native = aot::codegen::Native::default();
        // (A function whose lowering needs static sizes gets code per size,
        // as on the host.)
        let Ok(mut plain) = aot::codegen::compile_function(&mut plain_ctx, f1, &native, &mut String::new()) else {
            continue;
        };
        let mut code = lowered_code(&mut dev_ctx, f2);
        assert!(code.program.symbolic, "{name}: not compiled with run-time sizes");
        let kernels = code.kernels.clone();
        let made = Rc::new(Cell::new(0));
        let counter = made.clone();
        let maker: aot::codegen::sized::DeviceMaker = Box::new(move || {
            counter.set(counter.get() + 1);
            Ok(Box::new(HostDevice::new(kernels.clone())) as Box<dyn Device>)
        });
        // The kernels run only on the devices.
        code.kernels.clear();
        let mut device = aot::codegen::sized::Sized::on_device(&dev_ctx, f2, code, maker).expect("binds");
        let mut distinct = std::collections::BTreeSet::new();
        for (k, at) in sizes.iter().enumerate() {
            let b = aot::ir::sym::Bindings::parse(at).unwrap();
            let mut ctx = Context::new();
            let m = parse_module(&mut ctx, &text, &ParseOptions { file: name.clone(), first_line: 1 }).unwrap();
            let f = aot::dialects::func::entry_func(&ctx, m, None).unwrap().op;
            let spec = aot_run::random_inputs_sized(&ctx, f, 3 + k as u64, &b).unwrap();
            aot::ir::sym::specialise_function(&mut ctx, f, &b).unwrap();
            let params = aot_run::signature(&ctx, f).unwrap();
            let mut a = aot_run::materialize(&spec, &params, false).unwrap().args;
            let mut d = aot_run::materialize(&spec, &params, false).unwrap().args;
            // (Random ops read the generator's seed and offset, which
            // rng-functionalize made trailing arguments.)
            if text.contains("rng.") {
                for args in [&mut a, &mut d] {
                    for v in [5.0, 8.0] {
                        args.push(aot::runtime::Tensor::from_f64(
                            aot::ir::ElemType::I64,
                            &[],
                            &[v],
                            aot::ir::ElemType::I64,
                        ));
                    }
                }
            }
            let want = plain.run(a.clone()).unwrap_or_else(|e| panic!("{name} at {at}: {e}"));
            let got = device.run(d.clone()).unwrap_or_else(|e| panic!("{name} at {at} on the device: {e}"));
            assert_eq!(bits(&got), bits(&want), "{name} at {at}: outputs differ");
            assert_eq!(bits(&d), bits(&a), "{name} at {at}: arguments differ");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!((g.sizes(), g.strides()), (w.sizes(), w.strides()), "{name} at {at}");
            }
            distinct.insert(*at);
        }
        assert_eq!(made.get(), distinct.len(), "{name}: one device per set of sizes, kept while used");
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} programs checked");
}

/// A call whose tensors live where its code does not run is refused with
/// the argument and both places named, never run on the wrong memory:
/// device tensors into host code (native or the interpreter), and tensors
/// of another device into a device's code.
#[test]
fn a_call_with_tensors_on_another_device_is_refused() {
    use aot::runtime::device::{DeviceMemory, HostMemory};
    use std::rc::Rc;
    let text = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = tensor.exp %x : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
    let m = aot::Module::parse(text.to_string(), "f.mlir").expect("parses");
    let x = Tensor::from_f64(aot::ir::ElemType::F32, &[4], &[0.0, 1.0, 2.0, 3.0], aot::ir::ElemType::F32);
    let other: Rc<dyn DeviceMemory> = HostMemory::new();
    let elsewhere = x.to_device(&other).unwrap();
    for backend in ["cranelift", "interp", "hostdev"] {
        let opts =
            aot::Options { backend: aot::compile::Backend::parse(backend).unwrap(), ..aot::Options::inference() };
        let mut f = m.compile(None, std::slice::from_ref(&x), &opts).expect("compiles");
        let e = f.call(std::slice::from_ref(&elsewhere)).expect_err("a tensor of another device").to_string();
        assert!(e.contains(&format!("argument 0 lives on device {}", other.name())), "{backend}: {e}");
        // Host tensors still run everywhere (a device copies them).
        assert_eq!(f.call(std::slice::from_ref(&x)).expect("runs")[0].read_f64().len(), 4);
    }
    // On the device's own memory, the result stays there.
    let hostdev =
        aot::Options { backend: aot::compile::Backend::parse("hostdev").unwrap(), ..aot::Options::inference() };
    let mut f = m.compile(None, std::slice::from_ref(&x), &hostdev).expect("compiles");
    let mem = aot::codegen::host_device::device_memory();
    let y = f.call(&[x.to_device(&mem).unwrap()]).expect("runs resident");
    assert!(y[0].is_on_device());
    let want: Vec<f64> = [0.0f32, 1.0, 2.0, 3.0].iter().map(|v| v.exp() as f64).collect();
    assert_eq!(y[0].read_f64(), want);
}

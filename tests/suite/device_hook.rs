//! The runtime's device hook (`codegen::executor::Device`, what the CUDA
//! backend implements) checked on any machine: a device that keeps its own
//! copies of a call's buffers and runs the Cranelift kernels and the host
//! GEMM on them must give the plain runtime's bits on every corpus program
//! it can take. This exercises what the GPU runs rely on: pointer
//! translation into mirrors (views, shared storages, `set_` onto a result),
//! which regions are copied in (arguments, constants) and which are not
//! (results and the arena, filled with garbage here to show they are
//! written before they are read), write-back of exactly the written
//! regions, and the resumption after a step the host runs itself
//! (`set_`, `resize_`).

use aot::codegen::executor::{Device, HostRegion, RegionKind};
use aot::codegen::program::{KernelFn, Matmul, Step};
use aot::ir::pass::PassManager;
use aot::ir::{parse_module, verify, Context, Op, ParseOptions};
use aot::runtime::compiled::Executable as _;
use aot::runtime::Tensor;

use crate::common;

struct Mirror {
    host: *mut u8,
    kind: RegionKind,
    copy: Vec<u8>,
    dirty: bool,
}

/// A device whose memory is host vectors: the plain runtime's kernels run
/// on the copies.
struct HostMirror {
    kernels: Vec<KernelFn>,
    mirrors: Vec<Mirror>,
}

impl HostMirror {
    fn translate(&mut self, p: *mut u8) -> Result<(*mut u8, usize), String> {
        let a = p as usize;
        let inside = |m: &Mirror, closed: bool| {
            let lo = m.host as usize;
            a >= lo && (a < lo + m.copy.len() || (closed && a == lo + m.copy.len()))
        };
        let i = (self.mirrors.iter().position(|m| inside(m, false)))
            .or_else(|| self.mirrors.iter().position(|m| inside(m, true)))
            .ok_or("a pointer outside every region")?;
        let m = &mut self.mirrors[i];
        // SAFETY: `a` is inside the region, so the offset is inside the copy.
        Ok((unsafe { m.copy.as_mut_ptr().add(a - m.host as usize) }, i))
    }

    fn back(&mut self, scratch: bool) {
        for m in self.mirrors.drain(..) {
            if m.dirty && (scratch || m.kind != RegionKind::Scratch) {
                // SAFETY: the host region is live and `copy.len()` bytes long.
                unsafe { std::ptr::copy_nonoverlapping(m.copy.as_ptr(), m.host, m.copy.len()) };
            }
        }
    }
}

impl Device for HostMirror {
    fn begin(&mut self, regions: Vec<HostRegion>, resume: bool) -> Result<(), String> {
        self.mirrors.clear();
        for r in regions {
            if let Some(m) = self.mirrors.iter_mut().find(|m| m.host == r.ptr) {
                if r.kind == RegionKind::Argument {
                    m.kind = RegionKind::Argument;
                    // SAFETY: the host region is live and `bytes` long.
                    m.copy = unsafe { std::slice::from_raw_parts(r.ptr, r.bytes) }.to_vec();
                }
                continue;
            }
            let copied = resume || matches!(r.kind, RegionKind::Argument | RegionKind::Constant);
            let copy = if copied {
                // SAFETY: as above.
                unsafe { std::slice::from_raw_parts(r.ptr, r.bytes) }.to_vec()
            } else {
                vec![0xA5; r.bytes]
            };
            self.mirrors.push(Mirror { host: r.ptr, kind: r.kind, copy, dirty: false });
        }
        Ok(())
    }

    fn kernel(&mut self, index: usize, step: &Step, ptrs: &[*mut u8]) -> Result<(), String> {
        let Step::Kernel { split, writes, .. } = step else { return Err("not a kernel".into()) };
        let mut dev = Vec::new();
        for (k, &p) in ptrs.iter().enumerate() {
            let (d, i) = self.translate(p)?;
            self.mirrors[i].dirty |= writes[k];
            dev.push(d);
        }
        let (lo, hi) = split.map_or((0, 0), |s| (s.0, s.1));
        // SAFETY: the kernel was compiled for these operands; the copies
        // have the host buffers' sizes.
        match unsafe { (self.kernels[index])(dev.as_ptr(), lo, hi) } {
            0 => Ok(()),
            code => Err(format!("check {code} failed")),
        }
    }

    fn matmul(&mut self, mm: &Matmul, pa: *mut u8, pb: *mut u8, pc: *mut u8) -> Result<(), String> {
        let (a, _) = self.translate(pa)?;
        let (b, _) = self.translate(pb)?;
        let (c, i) = self.translate(pc)?;
        self.mirrors[i].dirty = true;
        let plan = mm.plan.as_ref().ok_or("a GEMM without a plan")?;
        aot::codegen::gemm::batched(plan, aot::codegen::gemm::Types::of(&mm.a.ty, &mm.c.ty), a, b, c, mm.accumulate, 1);
        Ok(())
    }

    fn to_host(&mut self) -> Result<(), String> {
        self.back(true);
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        self.back(false);
        Ok(())
    }
}

/// The module of `text` after `aot-inference`, with its entry function.
fn pipelined(text: &str, file: &str) -> Option<(Context, Op)> {
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, text, &ParseOptions { file: file.into(), first_line: 1 }).ok()?;
    verify(&ctx, m).ok()?;
    PassManager::parse("builtin.module(aot-inference)").ok()?.run(&mut ctx, m, &mut std::io::sink()).ok()?;
    let f = aot::dialects::func::entry_func(&ctx, m, None).ok()?.op;
    Some((ctx, f))
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
        let (Some((mut plain_ctx, f1)), Some((mut dev_ctx, f2))) = (pipelined(&text, &name), pipelined(&text, &name))
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
        aot::codegen::compile_function(&mut dev_ctx, f2, &native, &mut String::new()).expect("compiled once already");
        let mut code = aot::codegen::cranelift::compile(&dev_ctx, f2, Default::default(), &mut String::new())
            .expect("the lowered function compiles");
        let kernels = std::mem::take(&mut code.kernels);
        let mut device =
            aot::codegen::executor::Executable::on_device(code, Box::new(HostMirror { kernels, mirrors: Vec::new() }));
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
        let native = aot::codegen::Native::default();
        aot::codegen::compile_function(&mut ctx, f, &native, &mut String::new()).unwrap();
        let mut code = aot::codegen::cranelift::compile(&ctx, f, Default::default(), &mut String::new()).unwrap();
        let kernels = std::mem::take(&mut code.kernels);
        let mut device =
            aot::codegen::executor::Executable::on_device(code, Box::new(HostMirror { kernels, mirrors: Vec::new() }));
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
        let sizes: &[&str] = match name.as_str() {
            "cnn.mlir" => &["s0=2,s1=4,s2=4", "s0=3,s1=9,s2=5", "s0=2,s1=4,s2=4"],
            "reshape_by_guard.mlir" => &["s0=4", "s0=12", "s0=4"],
            _ => &["s0=2,s1=3", "s0=5,s1=2", "s0=2,s1=3", "s0=7,s1=4"],
        };
        let (Some((mut plain_ctx, f1)), Some((mut dev_ctx, f2))) = (pipelined(&text, &name), pipelined(&text, &name))
        else {
            panic!("{name}: aot-inference fails");
        };
        let native = aot::codegen::Native::default();
        // (A function whose lowering needs static sizes gets code per size,
        // as on the host.)
        let Ok(mut plain) = aot::codegen::compile_function(&mut plain_ctx, f1, &native, &mut String::new()) else {
            continue;
        };
        aot::codegen::compile_function(&mut dev_ctx, f2, &native, &mut String::new()).expect("compiled once already");
        let mut code = aot::codegen::cranelift::compile(&dev_ctx, f2, Default::default(), &mut String::new())
            .expect("the lowered function compiles");
        assert!(code.program.symbolic, "{name}: not compiled with run-time sizes");
        let kernels = code.kernels.clone();
        let made = Rc::new(Cell::new(0));
        let counter = made.clone();
        let maker: aot::codegen::sized::DeviceMaker = Box::new(move || {
            counter.set(counter.get() + 1);
            Ok(Box::new(HostMirror { kernels: kernels.clone(), mirrors: Vec::new() }) as Box<dyn Device>)
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
            let a = aot_run::materialize(&spec, &params, false).unwrap().args;
            let d = aot_run::materialize(&spec, &params, false).unwrap().args;
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

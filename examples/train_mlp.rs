//! Trains an MLP with SGD through the embedding API, every step in native
//! code: the model (`aot::models::mlp`, nn.Linear layers with ReLU and an
//! MSE loss) is compiled once with the `aot-train` pipeline into a forward
//! and a backward (compiled on first use), and the update `p -= lr * g` is
//! a compiled function that mutates each parameter in place under no_grad,
//! exactly as `with torch.no_grad(): p.sub_(lr * p.grad)` does.
//!
//! The data is synthetic: a fixed random teacher network labels random
//! inputs; the student learns to match it. The loss is printed as training
//! goes and must fall (the example exits non-zero otherwise).
//!
//! ```text
//! cargo run --release --example train_mlp [-- --steps 300 --backend cranelift]
//! ```

use aot::ir::ElemType;
use aot::models::{mlp, Mlp};
use aot::{Backend, Function, Module, Options, Tensor};
use std::collections::BTreeMap;
use std::process::ExitCode;

/// A small deterministic generator (splitmix64), so runs are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [-a, a).
    fn sym(&mut self, a: f64) -> f64 {
        (2.0 * self.next() - 1.0) * a
    }
}

fn tensor(shape: &[i64], data: &[f64]) -> Tensor {
    Tensor::from_f64(ElemType::F32, shape, data, ElemType::F32)
}

/// Parameters initialised as nn.Linear does: U(-1/√in, 1/√in).
fn init_params(widths: &[usize], rng: &mut Rng) -> Vec<Tensor> {
    let mut ps = Vec::new();
    for l in 0..widths.len() - 1 {
        let (i, o) = (widths[l], widths[l + 1]);
        let a = 1.0 / (i as f64).sqrt();
        let w: Vec<f64> = (0..o * i).map(|_| rng.sym(a)).collect();
        let b: Vec<f64> = (0..o).map(|_| rng.sym(a)).collect();
        ps.push(tensor(&[o as i64, i as i64], &w));
        ps.push(tensor(&[o as i64], &b));
    }
    ps
}

/// The teacher's outputs: the same architecture, evaluated in plain Rust.
fn teacher(widths: &[usize], params: &[Tensor], x: &[f64], batch: usize) -> Vec<f64> {
    let mut h = x.to_vec();
    for l in 0..widths.len() - 1 {
        let (i, o) = (widths[l], widths[l + 1]);
        let (w, b) = (params[2 * l].read_f64(), params[2 * l + 1].read_f64());
        let mut next = vec![0.0; batch * o];
        for n in 0..batch {
            for k in 0..o {
                let s: f64 = (0..i).map(|j| h[n * i + j] * w[k * i + j]).sum::<f64>() + b[k];
                next[n * o + k] = if l + 2 < widths.len() { s.max(0.0) } else { s };
            }
        }
        h = next;
    }
    h
}

/// The in-place SGD update for one parameter shape.
fn sgd_text(shape: &[i64]) -> String {
    let dims: String = shape.iter().map(|d| format!("{d}x")).collect();
    let t = format!("tensor<{dims}f32>");
    format!(
        "func.func @sgd(%p: {t}, %g: {t}, %lr: tensor<f32>) {{
  %step = tensor.mul %g, %lr : {t}, tensor<f32> -> {t}
  mut.sub_ %p, %step {{aot.no_grad}} : {t}, {t}
  return
}}
"
    )
}

/// Trains for `steps` SGD steps and returns the loss before each step.
pub fn train(steps: usize, backend: Backend, report: &mut dyn FnMut(usize, f64)) -> Result<Vec<f64>, aot::Error> {
    let widths = [32, 64, 64, 1];
    let batch = 256;
    let lr = 0.05;
    let mut rng = Rng(7);
    let x: Vec<f64> = (0..batch * widths[0]).map(|_| rng.sym(1.0)).collect();
    let teacher_params = init_params(&widths, &mut rng);
    let y = teacher(&widths, &teacher_params, &x, batch);
    let (x, y) = (tensor(&[batch as i64, widths[0] as i64], &x), tensor(&[batch as i64, 1], &y));
    let params = init_params(&widths, &mut rng);
    for p in &params {
        p.set_requires_grad(true);
    }

    let model = Module::parse(mlp(&Mlp { widths: widths.to_vec(), batch, dtype: ElemType::F32 }), "mlp.mlir")?;
    let mut args = vec![x, y];
    args.extend(params.iter().cloned());
    let mut step_fn = model.compile(Some("mlp"), &args, &Options::training().with_backend(backend))?;
    // One compiled update per parameter shape.
    let mut updates: BTreeMap<Vec<i64>, Function> = BTreeMap::new();
    let lr_t = tensor(&[], &[lr]);
    for p in &params {
        if let std::collections::btree_map::Entry::Vacant(e) = updates.entry(p.sizes().to_vec()) {
            let m = Module::parse(sgd_text(e.key()), "sgd.mlir")?;
            let f = m.compile(None, &[p.clone(), p.deep_clone(), lr_t.clone()], &Options::inference())?;
            e.insert(f);
        }
    }

    let mut losses = Vec::with_capacity(steps);
    for step in 0..steps {
        let (outs, saved) = step_fn.forward(&args)?;
        let loss = outs[0].read_f64()[0];
        losses.push(loss);
        report(step, loss);
        let grads = step_fn.backward(saved, &[None])?;
        for (i, p) in params.iter().enumerate() {
            let g = grads.args[2 + i].as_ref().ok_or_else(|| aot::Error::Execution(format!("no gradient for {i}")))?;
            let f = updates.get_mut(&p.sizes().to_vec()).expect("compiled above");
            f.call(&[p.clone(), g.clone(), lr_t.clone()])?;
        }
    }
    Ok(losses)
}

#[allow(dead_code)]
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1));
    let steps = match opt("--steps").map(|s| s.parse::<usize>()) {
        None => 300,
        Some(Ok(n)) if n >= 2 => n,
        Some(_) => {
            eprintln!("train_mlp: --steps expects a number of at least 2");
            return ExitCode::FAILURE;
        }
    };
    let backend = match opt("--backend").map(|s| Backend::parse(s)) {
        None => Backend::CRANELIFT,
        Some(Ok(b)) => b,
        Some(Err(e)) => {
            eprintln!("train_mlp: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("MLP 32-64-64-1, batch 256, SGD lr 0.05, {steps} steps, backend {backend:?}");
    let start = std::time::Instant::now();
    let mut report = |step: usize, loss: f64| {
        if step.is_multiple_of(25) || step + 1 == steps {
            println!("step {step:>4}  loss {loss:.6}");
        }
    };
    let losses = match train(steps, backend, &mut report) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("train_mlp: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (first, last) = (losses[0], losses[losses.len() - 1]);
    println!(
        "loss {first:.6} -> {last:.6} in {steps} steps ({:.1} ms per step, compile included)",
        start.elapsed().as_secs_f64() * 1e3 / steps as f64
    );
    // A NaN loss fails too.
    if last.is_nan() || last >= 0.5 * first {
        eprintln!("train_mlp: the loss did not fall by half");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

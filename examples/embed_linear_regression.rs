//! Embeds `aot` the way a downstream crate does (the walk-through is
//! `docs/embedding.md`): build a program as IR text, compile it for the
//! calling convention of example tensors, then run its forward and
//! backward in a gradient-descent loop, updating the parameters from Rust.
//!
//! The model is a linear regression `y ≈ x·wᵀ + b` with a mean-squared-error
//! loss; the data come from known weights, so the example can check what it
//! learned. It also shows the guards at work: a call that breaks the
//! convention the function was compiled for is refused with an error, and
//! nothing runs. It exits non-zero if anything is off.
//!
//! ```text
//! cargo run --example embed_linear_regression [-- --backend interp]
//! ```

use aot::{Backend, Error, Module, Options, Tensor};
use std::process::ExitCode;

const N: usize = 64;
const D: usize = 3;
const TRUE_W: [f32; D] = [2.0, -3.0, 0.5];
const TRUE_B: f32 = 1.25;

/// The loss as IR text (a downstream crate would generate it, or keep it in
/// a `.mlir` file next to its code).
fn program() -> String {
    format!(
        "func.func @loss(%x: tensor<{N}x{D}xf32>, %y: tensor<{N}x1xf32>, %w: tensor<1x{D}xf32>, %b: tensor<1xf32>) -> tensor<f32> {{
  %p = tensor.linear %x, %w, %b : tensor<{N}x{D}xf32>, tensor<1x{D}xf32>, tensor<1xf32> -> tensor<{N}x1xf32>
  %d = tensor.sub %p, %y : tensor<{N}x1xf32>
  %sq = tensor.mul %d, %d : tensor<{N}x1xf32>
  %l = tensor.mean %sq : tensor<{N}x1xf32> -> tensor<f32>
  return %l : tensor<f32>
}}
"
    )
}

/// What training gave: the loss before the first and after the last step,
/// and the learned parameters.
#[derive(Debug)]
pub struct Trained {
    pub first_loss: f64,
    pub last_loss: f64,
    pub w: Vec<f32>,
    pub b: f32,
}

/// Trains for `steps` steps of gradient descent on `backend`.
pub fn train(steps: usize, backend: Backend) -> Result<Trained, Error> {
    // Inputs on a fixed grid in [-1, 1], targets from the true model.
    let x: Vec<f32> = (0..N * D).map(|i| ((i * 37 % 101) as f32 / 50.0) - 1.0).collect();
    let y: Vec<f32> = (0..N).map(|n| (0..D).map(|j| x[n * D + j] * TRUE_W[j]).sum::<f32>() + TRUE_B).collect();
    // Typed construction: the dtype is the Rust element type's (f32), and a
    // wrong number of values is an error (`Error::Tensor`), not a panic.
    let x = Tensor::from_slice::<f32>(&x, &[N, D])?;
    let y = Tensor::from_slice::<f32>(&y, &[N, 1])?;
    let w = Tensor::from_slice::<f32>(&[0.0; D], &[1, D])?;
    let b = Tensor::from_slice::<f32>(&[0.0], &[1usize])?;
    // Parameters require grad; the data do not. This is part of the
    // convention the function is compiled for.
    w.set_requires_grad(true);
    b.set_requires_grad(true);

    let module = Module::parse(program(), "linear_regression.mlir")?;
    let args = [x.clone(), y.clone(), w.clone(), b.clone()];
    let mut loss_fn = module.compile(Some("loss"), &args, &Options::training().with_backend(backend))?;

    // A call that breaks the convention (here: `x` requires grad, which the
    // function was not compiled for) is refused before anything runs.
    let x_rg = x.deep_clone();
    x_rg.set_requires_grad(true);
    match loss_fn.forward(&[x_rg, y.clone(), w.clone(), b.clone()]) {
        Err(Error::Convention(_)) => {}
        Err(e) => return Err(e),
        Ok(_) => return Err(Error::Execution("a call that breaks the convention was not refused".into())),
    }

    let lr = 0.3;
    let (mut first_loss, mut last_loss) = (f64::NAN, f64::NAN);
    // Applies `p -= lr * g` to a parameter's own storage.
    let update = |p: &Tensor, g: &Tensor| -> Result<(), Error> {
        let new: Vec<f32> = p.to_vec::<f32>()?.iter().zip(g.to_vec::<f32>()?).map(|(p, g)| p - lr * g).collect();
        p.copy_values_from(&Tensor::from_slice::<f32>(&new, &p.sizes()[..])?);
        Ok(())
    };
    for step in 0..steps {
        let (outs, saved) = loss_fn.forward(&args)?;
        let loss = f64::from(outs[0].item::<f32>()?);
        if step == 0 {
            first_loss = loss;
        }
        last_loss = loss;
        // No tangent for a scalar loss: it seeds its own gradient of one,
        // as `loss.backward()` does.
        let grads = loss_fn.backward(saved, &[None])?;
        let missing = |i: usize| Error::Execution(format!("no gradient for argument {i}"));
        // The update writes the parameters' storage in place, as
        // `p.data -= lr * p.grad` would: the compiled function binds the
        // same tensors again at the next call, without copying.
        update(&w, grads.args[2].as_ref().ok_or_else(|| missing(2))?)?;
        update(&b, grads.args[3].as_ref().ok_or_else(|| missing(3))?)?;
    }
    Ok(Trained { first_loss, last_loss, w: w.to_vec::<f32>()?, b: b.item::<f32>()? })
}

/// Checks that training recovered the true model.
pub fn check(t: &Trained) -> Result<(), String> {
    if !(t.last_loss < 1e-4 && t.last_loss < t.first_loss) {
        return Err(format!("the loss did not fall to ~0: {} -> {}", t.first_loss, t.last_loss));
    }
    let close = t.w.iter().zip(TRUE_W).all(|(a, b)| (a - b).abs() < 1e-2) && (t.b - TRUE_B).abs() < 1e-2;
    if !close {
        return Err(format!("learned w = {:?}, b = {}; expected {TRUE_W:?}, {TRUE_B}", t.w, t.b));
    }
    Ok(())
}

#[allow(dead_code)]
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let backend = match args.iter().position(|a| a == "--backend").map(|i| args.get(i + 1)) {
        None => Backend::CRANELIFT,
        Some(Some(name)) => match Backend::parse(name) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("embed_linear_regression: {e}");
                return ExitCode::FAILURE;
            }
        },
        Some(None) => {
            eprintln!("embed_linear_regression: --backend expects a name");
            return ExitCode::FAILURE;
        }
    };
    let trained = match train(300, backend) {
        Ok(t) => t,
        // Every error message is complete (IR errors carry their location).
        Err(e) => {
            eprintln!("embed_linear_regression: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("loss {:.6} -> {:.2e}; w = {:?}, b = {:.4}", trained.first_loss, trained.last_loss, trained.w, trained.b);
    match check(&trained) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("embed_linear_regression: {e}");
            ExitCode::FAILURE
        }
    }
}

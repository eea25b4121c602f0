//! The downstream-embedding example (`examples/embed_linear_regression.rs`,
//! walked through in `docs/embedding.md`) is compiled and run here on both
//! backends, so the guide's code cannot rot: training must recover the
//! true weights, and a call that breaks the convention must be refused.

#[path = "../../examples/embed_linear_regression.rs"]
mod example;

use aot::Backend;

#[test]
fn linear_regression_learns_the_true_model_natively() {
    let t = example::train(300, Backend::CRANELIFT).expect("native training");
    example::check(&t).unwrap();
}

#[test]
fn linear_regression_learns_the_true_model_interpreted() {
    let t = example::train(300, Backend::Interp).expect("interpreted training");
    example::check(&t).unwrap();
}

#[test]
fn the_check_rejects_a_wrong_model() {
    let bad = example::Trained { first_loss: 1.0, last_loss: 1e-6, w: vec![2.0, -3.0, 0.6], b: 1.25 };
    assert!(example::check(&bad).is_err());
    let stuck = example::Trained { first_loss: 1.0, last_loss: 0.5, w: vec![2.0, -3.0, 0.5], b: 1.25 };
    assert!(example::check(&stuck).is_err());
}

//! Matrix products on native code with several threads (see
//! [`common::parallel::matmul_layouts_are_exact`]) on aot's own pool.
//!
//! The only test of this binary, because it sets `AOT_NUM_THREADS` before
//! anything reads it (so the parallel paths run even on a one-core machine).

mod common;

#[test]
fn matmul_layouts_are_exact_on_several_threads() {
    std::env::set_var("AOT_NUM_THREADS", "3");
    aot::init();
    common::parallel::matmul_layouts_are_exact();
}

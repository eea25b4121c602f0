//! Kernels split across threads after a scalar prologue (see
//! [`common::parallel::philox_splits_draw_what_one_thread_draws`]) on aot's
//! own pool.
//!
//! The only test of this binary, because it sets `AOT_NUM_THREADS` before
//! anything reads it (so the split runs even on a one-core machine).

mod common;

#[test]
fn philox_kernels_split_across_threads_draw_what_one_thread_draws() {
    std::env::set_var("AOT_NUM_THREADS", "3");
    aot::init();
    common::parallel::philox_splits_draw_what_one_thread_draws();
}

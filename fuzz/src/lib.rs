//! `aot-fuzz`: fuzz targets for the aot compiler and the driver that runs
//! them.
//!
//! [`targets`] holds the three targets (`roundtrip`, `pipeline`, `run`) as
//! library functions over bytes, so that cargo-fuzz/libFuzzer can wrap them
//! as they are; [`mutate`] the seeded mutation engine; [`corpus`] the seed
//! corpora generated from the repository's `test/` folder; [`worker`] the
//! isolating worker process (panics, aborts, stack overflows, OOM and hangs
//! never take the driver down); [`driver`] campaigns and minimization.
//! `docs/fuzzing.md` explains how to run them.

pub mod corpus;
pub mod driver;
pub mod mutate;
pub mod targets;
pub mod worker;

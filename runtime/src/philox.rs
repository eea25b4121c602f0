//! Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
//!
//! A counter-based generator: the 128-bit output block for a 128-bit counter
//! and a 64-bit key is a pure function, so any element of a random tensor can
//! be computed independently, on any backend, with identical bits. The state
//! of the generator is `(seed, offset)`, where `offset` counts 32-bit words
//! drawn and always advances by a multiple of 4 (one block). How each random
//! op maps elements to words is specified in `docs/dialects.md` (`rng`).
//!
//! The rounds are written once ([`rounds`], over the five word operations
//! of [`Words`]); the interpreter runs them on `u32`s and every code
//! generator emits them through its own [`Words`], so no backend keeps a
//! copy of the algorithm or its constants.

/// The Random123 multipliers of the two 32-bit products of a round.
pub const MULTIPLIERS: [u32; 2] = [0xD251_1F53, 0xCD9E_8D57];
/// The Weyl steps added to the two key words before every round but the
/// first.
pub const KEY_STEPS: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];

/// The 32-bit operations Philox is made of, on whatever a word is where it
/// runs: a `u32` here, an SSA value of a code generator (an `i64` holding
/// 32 bits in Cranelift and LLVM, an `i32` in MLIR's `arith`). [`rounds`]
/// is the algorithm, written once over them; each backend supplies these
/// five and its own way of splitting the 64-bit seed and counter.
pub trait Words {
    type Word: Clone;
    /// What an operation may fail with (a code generator's builder).
    type Error;
    /// The full 64-bit product of a multiplier and a word.
    type Product;
    fn mul(&mut self, multiplier: u32, x: &Self::Word) -> Result<Self::Product, Self::Error>;
    /// The high 32 bits of a product.
    fn hi(&mut self, p: &Self::Product) -> Result<Self::Word, Self::Error>;
    /// The low 32 bits of a product.
    fn lo(&mut self, p: &Self::Product) -> Result<Self::Word, Self::Error>;
    /// `k + step` modulo 2³².
    fn add(&mut self, k: &Self::Word, step: u32) -> Result<Self::Word, Self::Error>;
    fn xor(&mut self, a: &Self::Word, b: &Self::Word) -> Result<Self::Word, Self::Error>;
}

/// Philox4x32-10: ten rounds on counter `c` keyed by `k`. The operations
/// come in this order on every backend (key steps, both products, their
/// halves, the four xors), so the code each emits reads the same.
pub fn rounds<W: Words>(w: &mut W, mut c: [W::Word; 4], mut k: [W::Word; 2]) -> Result<[W::Word; 4], W::Error> {
    for round in 0..10 {
        if round > 0 {
            let k0 = w.add(&k[0], KEY_STEPS[0])?;
            k = [k0, w.add(&k[1], KEY_STEPS[1])?];
        }
        let p0 = w.mul(MULTIPLIERS[0], &c[0])?;
        let p1 = w.mul(MULTIPLIERS[1], &c[2])?;
        let (hi0, lo0) = (w.hi(&p0)?, w.lo(&p0)?);
        let (hi1, lo1) = (w.hi(&p1)?, w.lo(&p1)?);
        let x0 = w.xor(&hi1, &c[1])?;
        let n0 = w.xor(&x0, &k[0])?;
        let x2 = w.xor(&hi0, &c[3])?;
        let n2 = w.xor(&x2, &k[1])?;
        c = [n0, lo1, n2, lo0];
    }
    Ok(c)
}

/// Philox on plain `u32`s (the interpreter's and the runtime's).
struct Plain;

impl Words for Plain {
    type Word = u32;
    type Error = std::convert::Infallible;
    type Product = u64;
    #[inline]
    fn mul(&mut self, m: u32, x: &u32) -> Result<u64, Self::Error> {
        Ok(m as u64 * *x as u64)
    }
    #[inline]
    fn hi(&mut self, p: &u64) -> Result<u32, Self::Error> {
        Ok((p >> 32) as u32)
    }
    #[inline]
    fn lo(&mut self, p: &u64) -> Result<u32, Self::Error> {
        Ok(*p as u32)
    }
    #[inline]
    fn add(&mut self, k: &u32, step: u32) -> Result<u32, Self::Error> {
        Ok(k.wrapping_add(step))
    }
    #[inline]
    fn xor(&mut self, a: &u32, b: &u32) -> Result<u32, Self::Error> {
        Ok(a ^ b)
    }
}

/// One Philox4x32-10 block.
#[inline]
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    match rounds(&mut Plain, ctr, key) {
        Ok(block) => block,
        Err(never) => match never {},
    }
}

/// The block with index `block` (counter = block as a 128-bit integer).
#[inline]
pub fn block(seed: u64, block: u64) -> [u32; 4] {
    philox4x32_10([block as u32, (block >> 32) as u32, 0, 0], [seed as u32, (seed >> 32) as u32])
}

/// 32-bit word `i` of the stream that starts at `offset` (a multiple of 4).
#[inline]
pub fn word(seed: u64, offset: u64, i: u64) -> u32 {
    block(seed, offset / 4 + i / 4)[(i % 4) as usize]
}

/// A word as a uniform in [0, 1), `(w >> 8) · 2⁻²⁴`, in f32.
#[inline]
pub fn uniform_f32(w: u32) -> f32 {
    (w >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// A word as a uniform in [0, 1), `(w >> 8) · 2⁻²⁴`, in f64.
#[inline]
pub fn uniform_f64(w: u32) -> f64 {
    (w >> 8) as f64 * (1.0 / 16_777_216.0)
}

/// Words drawn by an op producing `n` values, one word per value.
pub fn words_for_uniform(n: u64) -> u64 {
    n.div_ceil(4) * 4
}

/// Words drawn by a Box-Muller op producing `n` values (two words each).
pub fn words_for_normal(n: u64) -> u64 {
    n.div_ceil(2) * 4
}

/// The global generator state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Generator {
    pub seed: u64,
    pub offset: u64,
}

impl Generator {
    pub fn new(seed: u64) -> Generator {
        Generator { seed, offset: 0 }
    }

    /// Reserves `words` 32-bit draws; returns the offset they start at.
    pub fn advance(&mut self, words: u64) -> u64 {
        let start = self.offset;
        self.offset += words.div_ceil(4) * 4;
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known-answer tests from the Random123 distribution (kat_vectors).
    #[test]
    fn random123_known_answers() {
        assert_eq!(philox4x32_10([0, 0, 0, 0], [0, 0]), [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
        assert_eq!(
            philox4x32_10([0xffffffff; 4], [0xffffffff, 0xffffffff]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn offsets_advance_by_blocks() {
        let mut g = Generator::new(7);
        assert_eq!(g.advance(5), 0);
        assert_eq!(g.offset, 8);
        assert_eq!(g.advance(4), 8);
        assert_eq!(g.offset, 12);
        // Word 5 of a stream at offset 0 is word 1 of block 1.
        assert_eq!(word(7, 0, 5), block(7, 1)[1]);
        assert_eq!(word(7, 8, 0), block(7, 2)[0]);
    }

    #[test]
    fn uniforms_are_in_unit_interval() {
        assert_eq!(uniform_f32(0), 0.0);
        assert!(uniform_f32(u32::MAX) < 1.0);
        assert_eq!(uniform_f64(u32::MAX), 16_777_215.0 / 16_777_216.0);
    }
}

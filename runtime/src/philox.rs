//! Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
//!
//! A counter-based generator: the 128-bit output block for a 128-bit counter
//! and a 64-bit key is a pure function, so any element of a random tensor can
//! be computed independently, on any backend, with identical bits. The state
//! of the generator is `(seed, offset)`, where `offset` counts 32-bit words
//! drawn and always advances by a multiple of 4 (one block). How each random
//! op maps elements to words is specified in `docs/dialects.md` (`rng`).

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

#[inline]
fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}

/// One Philox4x32-10 block.
#[inline]
pub fn philox4x32_10(mut ctr: [u32; 4], mut key: [u32; 2]) -> [u32; 4] {
    for round in 0..10 {
        if round > 0 {
            key[0] = key[0].wrapping_add(W0);
            key[1] = key[1].wrapping_add(W1);
        }
        let (hi0, lo0) = mulhilo(M0, ctr[0]);
        let (hi1, lo1) = mulhilo(M1, ctr[2]);
        ctr = [hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0];
    }
    ctr
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

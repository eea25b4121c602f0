//! Do views of one storage overlap? AOTAutograd's answer, without testing
//! all pairs.
//!
//! [`definitely_do_not_overlap`] is upstream's `_tensors_definitely_do_not_overlap`:
//! empty views never overlap; with `x` the view starting first, two
//! contiguous views are disjoint when `x` ends before `y` starts; so are any
//! two views when `x`'s last address is below `y`'s first; two 2-D views
//! with inner stride 1 and the same outer stride are tested modulo that
//! stride (interleaved columns); anything else *may* overlap (the
//! conservative answer — the seed's comment on the final `return False`
//! has this backwards).
//!
//! [`overlap_groups`] partitions views into groups of (transitively)
//! overlapping views in O(n log n + k) for k candidate pairs: views are
//! swept by first address so only views whose address ranges intersect are
//! compared, and 2-D row layouts with a shared outer stride are swept by
//! column, so perfectly interleaved views (whose address ranges all
//! intersect) are compared with their column neighbours only.

/// A view of a storage: sizes, strides, storage offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub size: Vec<i64>,
    pub stride: Vec<i64>,
    pub offset: i64,
}

/// Whether a layout has a symbolic size, stride or offset (a compile-time
/// layout of a function with symbolic sizes, `aot_ir::sym`): the tests
/// below then answer only what the forms prove (identical layouts, a
/// contiguous layout), and otherwise the conservative answer.
fn symbolic(size: &[i64], stride: &[i64], offset: i64) -> bool {
    !aot_ir::sym::layout_is_static(size, stride, offset)
}

impl View {
    pub fn new(size: &[i64], stride: &[i64], offset: i64) -> View {
        View { size: size.to_vec(), stride: stride.to_vec(), offset }
    }

    fn is_symbolic(&self) -> bool {
        symbolic(&self.size, &self.stride, self.offset)
    }

    pub fn numel(&self) -> i64 {
        aot_ir::size::checked_numel(&self.size).unwrap_or(i64::MAX)
    }

    /// Address of the last element (`offset` for an empty view). Views here
    /// come from verified layouts; one whose extent does not fit (or whose
    /// strides do not match its rank) answers `i64::MAX`, so that it may
    /// overlap everything: the conservative answer.
    pub fn last(&self) -> i64 {
        match aot_ir::size::checked_extent(&self.size, &self.stride, self.offset) {
            Some((_, end)) if end > self.offset => end - 1,
            Some(_) => self.offset,
            None => i64::MAX,
        }
    }

    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1;
        for i in (0..self.size.len()).rev() {
            if self.size.len() != self.stride.len() || (self.size[i] != 1 && self.stride[i] != expected) {
                return false;
            }
            expected = expected.saturating_mul(self.size[i]);
        }
        true
    }

    fn is_row_layout(&self) -> bool {
        self.size.len() == 2 && self.stride[1] == 1 && self.stride[0] > 0
    }

    /// A row layout whose columns stay within one row of width `stride[0]`:
    /// its column range is an interval modulo the stride.
    fn row_stride(&self) -> Option<i64> {
        let s = *self.stride.first()?;
        (self.is_row_layout() && self.offset.rem_euclid(s) + self.size[1] <= s).then_some(s)
    }
}

/// AOTAutograd's overlap test: `true` when the two views certainly share
/// no element (of one storage), `false` when they may.
pub fn definitely_do_not_overlap(a: &View, b: &View) -> bool {
    if a.is_symbolic() || b.is_symbolic() {
        // Symbolic sizes are never 0, so identical views overlap; others
        // may.
        return false;
    }
    if a == b {
        return a.numel() == 0;
    }
    if a.numel() == 0 || b.numel() == 0 {
        return true;
    }
    let (x, y) = if a.offset <= b.offset { (a, b) } else { (b, a) };
    if x.is_contiguous() && y.is_contiguous() {
        return x.offset.saturating_add(x.numel()) <= y.offset;
    }
    if x.last() < y.offset {
        return true;
    }
    if x.is_row_layout() && y.is_row_layout() && x.stride[0] == y.stride[0] {
        let s = x.stride[0];
        let delta = y.offset - x.offset;
        if delta < x.size[1] {
            return false;
        }
        let covered = s.saturating_mul(x.size[0] - 1).saturating_add(x.size[1]);
        if covered <= delta {
            return true;
        }
        let delta_mod = delta % s;
        return delta_mod + y.size[1] <= s && x.size[1] <= delta_mod;
    }
    false
}

/// PyTorch's `get_overlap_status` for two views of one storage.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MemOverlap {
    No,
    /// The same elements in the same order.
    Full,
    /// Some, not all, elements shared (or the same range in another order).
    Partial,
    /// Not both dense: PyTorch does not decide (and raises nothing).
    TooHard,
}

/// Does some storage element appear at two indices of the layout? Exact
/// (it visits every element), unlike the stride-sorting tests.
pub fn reaches_an_element_twice(size: &[i64], stride: &[i64], offset: i64) -> bool {
    let mut seen = rustc_hash::FxHashSet::default();
    !crate::tensor::strided_indices(size, stride, offset).into_iter().all(|i| seen.insert(i))
}

/// Views up to this many elements get the exact answer from
/// [`may_reach_an_element_twice`] when the stride test cannot decide.
const EXACT_SELF_OVERLAP_LIMIT: i64 = 1 << 16;

/// May some storage element appear at two indices of the layout? `false`
/// is certain. With the dimensions of size > 1 sorted by stride, a layout
/// whose every stride exceeds the extent of the smaller dimensions never
/// repeats an element (O(rank log rank)); otherwise small layouts are
/// visited exactly and large ones answer `true` (the conservative answer).
pub fn may_reach_an_element_twice(size: &[i64], stride: &[i64]) -> bool {
    if size.len() != stride.len() {
        return true;
    }
    if symbolic(size, stride, 0) {
        // (Sizes at least 2; a symbolic stride is only known dense.)
        let apart = crate::tensor::dense(size, stride)
            || size.contains(&0)
            || (aot_ir::sym::is_static(stride) && strides_apart(size, stride));
        return !apart;
    }
    if size.contains(&0) || strides_apart(size, stride) {
        return false;
    }
    let numel = aot_ir::size::checked_numel(size).unwrap_or(i64::MAX);
    numel > EXACT_SELF_OVERLAP_LIMIT || reaches_an_element_twice(size, stride, 0)
}

/// The stride test: with the dimensions longer than one sorted by stride,
/// every stride exceeds the extent of the smaller ones, so no element
/// repeats. False where it fails or cannot tell: past a symbolic size
/// (at least 2) the extent is not a constant, nor is it on overflow.
/// Strides must be constants.
fn strides_apart(size: &[i64], stride: &[i64]) -> bool {
    let mut dims: Vec<(i64, i64)> = size.iter().zip(stride).filter(|(&n, _)| n != 1).map(|(&n, &s)| (s, n)).collect();
    dims.sort_unstable();
    let mut extent = Some(0i64);
    for (s, n) in dims {
        match extent {
            Some(e) if s > e => {}
            _ => return false,
        }
        extent = if aot_ir::sym::is_symbolic(n) {
            None
        } else {
            (n - 1).checked_mul(s).and_then(|x| x.checked_add(extent.unwrap_or(0)))
        };
    }
    true
}

/// PyTorch's `is_non_overlapping_and_dense`: the elements exactly tile a
/// contiguous range, in some order of the dimensions.
pub fn is_non_overlapping_and_dense(size: &[i64], stride: &[i64]) -> bool {
    if symbolic(size, stride, 0) {
        return crate::tensor::dense(size, stride);
    }
    if size.len() == 1 {
        return size[0] < 2 || stride[0] == 1;
    }
    let mut perm: Vec<usize> = (0..size.len()).collect();
    // Sorted by stride, size-0/1 dimensions last.
    perm.sort_by(|&a, &b| match (size[a] < 2, size[b] < 2) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        (false, false) => stride[a].cmp(&stride[b]),
    });
    let mut require = 1;
    for &d in &perm {
        if size[d] < 2 {
            return true;
        }
        if stride[d] != require {
            return false;
        }
        require = require.saturating_mul(size[d]);
    }
    true
}

/// How two views of one storage overlap, as PyTorch's in-place ops decide
/// (`assert_no_partial_overlap` raises on `Partial`).
pub fn mem_overlap(a: &View, b: &View) -> MemOverlap {
    if a.is_symbolic() || b.is_symbolic() {
        return if a == b { MemOverlap::Full } else { MemOverlap::TooHard };
    }
    if a.numel() == 0 || b.numel() == 0 {
        return MemOverlap::No;
    }
    if !is_non_overlapping_and_dense(&a.size, &a.stride) || !is_non_overlapping_and_dense(&b.size, &b.stride) {
        return MemOverlap::TooHard;
    }
    let (a0, a1) = (a.offset, a.offset.saturating_add(a.numel()));
    let (b0, b1) = (b.offset, b.offset.saturating_add(b.numel()));
    if a0 == b0 && a1 == b1 {
        return if a.stride == b.stride { MemOverlap::Full } else { MemOverlap::Partial };
    }
    if a0 < b1 && b0 < a1 {
        return MemOverlap::Partial;
    }
    MemOverlap::No
}

/// [`mem_overlap`] where either view may have symbolic sizes (a
/// compile-time layout of a function with symbolic sizes): PyTorch's
/// answer at every size the function accepts, when `facts` (its ranges
/// and guards) decide it the same way for all of them; `None` where the
/// answer depends on the sizes. As `mem_overlap`, only layouts it knows to
/// be dense (row-major, for symbolic ones) are compared by their address
/// ranges; others are `TooHard`.
pub fn mem_overlap_given(a: &View, b: &View, facts: &aot_ir::sym::Facts) -> Option<MemOverlap> {
    use aot_ir::sym;
    if !a.is_symbolic() && !b.is_symbolic() {
        return Some(mem_overlap(a, b));
    }
    if a == b {
        return Some(MemOverlap::Full);
    }
    let (na, nb) = (sym::numel(&a.size).ok()?, sym::numel(&b.size).ok()?);
    if facts.known_le(na, 0) || facts.known_le(nb, 0) {
        return Some(MemOverlap::No);
    }
    if !facts.known_le(1, na) || !facts.known_le(1, nb) {
        return None;
    }
    let dense = |v: &View| crate::tensor::dense(&v.size, &v.stride);
    if !dense(a) || !dense(b) {
        return Some(MemOverlap::TooHard);
    }
    let (a0, b0) = (a.offset, b.offset);
    let (a1, b1) = (sym::add(a0, na).ok()?, sym::add(b0, nb).ok()?);
    if facts.known_eq(a0, b0) && facts.known_eq(a1, b1) {
        let same =
            a.stride.len() == b.stride.len() && a.stride.iter().zip(&b.stride).all(|(&x, &y)| facts.known_eq(x, y));
        return Some(if same { MemOverlap::Full } else { MemOverlap::Partial });
    }
    // `a0 < b1 && b0 < a1`, as `a0 + 1 <= b1` and `b0 + 1 <= a1`.
    let lt = |x: i64, y: i64| sym::add(x, 1).is_ok_and(|x1| facts.known_le(x1, y));
    if lt(a0, b1) && lt(b0, a1) {
        return Some(MemOverlap::Partial);
    }
    if facts.known_le(a1, b0) || facts.known_le(b1, a0) {
        return Some(MemOverlap::No);
    }
    None
}

/// PyTorch's message for an in-place op whose destination has internal
/// overlap ([`has_internal_overlap`]).
pub const INTERNAL_OVERLAP_ERROR: &str = "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.";

/// PyTorch's internal-overlap test (`has_internal_overlap` answering YES):
/// a dimension of size > 1 with stride 0, so a write hits one memory
/// location twice. [`may_reach_an_element_twice`] is the general question.
pub fn has_internal_overlap(size: &[i64], stride: &[i64]) -> bool {
    size.iter().zip(stride).any(|(&n, &s)| (n > 1 || aot_ir::sym::is_symbolic(n)) && s == 0)
}

/// PyTorch's message for an in-place op whose input partially overlaps its output.
pub const PARTIAL_OVERLAP_ERROR: &str = "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.";

struct UnionFind(Vec<usize>);

impl UnionFind {
    fn find(&mut self, mut i: usize) -> usize {
        while self.0[i] != i {
            self.0[i] = self.0[self.0[i]];
            i = self.0[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[ra.max(rb)] = ra.min(rb);
        }
    }

    /// The classes, each sorted, ordered by their first member.
    fn groups(mut self) -> Vec<Vec<usize>> {
        let mut groups: rustc_hash::FxHashMap<usize, Vec<usize>> = rustc_hash::FxHashMap::default();
        for i in 0..self.0.len() {
            let r = self.find(i);
            groups.entry(r).or_default().push(i);
        }
        let mut out: Vec<Vec<usize>> = groups.into_values().collect();
        out.sort_by_key(|g| g[0]);
        out
    }
}

/// Statistics of one grouping (for benchmarks and tests).
#[derive(Clone, Copy, Debug, Default)]
pub struct OverlapStats {
    /// Pairs handed to the exact test.
    pub pairs_tested: u64,
}

/// Partitions `views` into groups of transitively overlapping views; each
/// group lists indices in increasing order, groups ordered by first index.
pub fn overlap_groups(views: &[View]) -> (Vec<Vec<usize>>, OverlapStats) {
    let n = views.len();
    let mut uf = UnionFind((0..n).collect());
    let mut stats = OverlapStats::default();
    // Row layouts sharing an outer stride: sweep by column range.
    let mut rows: rustc_hash::FxHashMap<i64, Vec<usize>> = rustc_hash::FxHashMap::default();
    let mut other: Vec<usize> = Vec::new();
    for (i, v) in views.iter().enumerate() {
        if v.numel() == 0 {
            continue;
        }
        match v.row_stride() {
            Some(s) => rows.entry(s).or_default().push(i),
            None => other.push(i),
        }
    }
    for (&s, members) in rows.iter_mut() {
        // Column interval [c, c + w) of each view within a row of width s.
        members.sort_by_key(|&i| (views[i].offset.rem_euclid(s), views[i].offset));
        let mut active: Vec<usize> = Vec::new();
        for &i in members.iter() {
            let c = views[i].offset.rem_euclid(s);
            active.retain(|&j| views[j].offset.rem_euclid(s) + views[j].size[1] > c);
            for &j in &active {
                stats.pairs_tested += 1;
                if !definitely_do_not_overlap(&views[i], &views[j]) {
                    uf.union(i, j);
                }
            }
            active.push(i);
        }
        // Rows of this stride against the other views are handled by the
        // address sweep below.
        other.extend(members.iter().copied());
    }
    // Address sweep over everything, with one active list per row stride
    // (`None`: not a row layout). Rows of one stride were settled by the
    // column sweep, so a view skips its own stride's list: perfectly
    // interleaved columns, whose address ranges all intersect, cost nothing
    // here. Lists are pruned lazily, when a view of another class scans them.
    other.sort_by_key(|&i| (views[i].offset, views[i].last()));
    let mut active: Vec<(Option<i64>, Vec<usize>)> = Vec::new();
    for &i in &other {
        let start = views[i].offset;
        let class = views[i].row_stride();
        let mut own = None;
        for (k, (c, list)) in active.iter_mut().enumerate() {
            if *c == class && class.is_some() {
                own = Some(k);
                continue;
            }
            list.retain(|&j| views[j].last() >= start);
            for &j in list.iter() {
                stats.pairs_tested += 1;
                if !definitely_do_not_overlap(&views[i], &views[j]) {
                    uf.union(i, j);
                }
            }
        }
        match own.or_else(|| active.iter().position(|(c, _)| *c == class)) {
            Some(k) => active[k].1.push(i),
            None => active.push((class, vec![i])),
        }
    }
    (uf.groups(), stats)
}

/// The all-pairs grouping AOTAutograd's `compute_overlapping_inputs` does
/// (quadratic; kept as the reference for tests and benchmarks).
pub fn overlap_groups_all_pairs(views: &[View]) -> Vec<Vec<usize>> {
    let n = views.len();
    let mut uf = UnionFind((0..n).collect());
    for i in 0..n {
        for j in i + 1..n {
            if !definitely_do_not_overlap(&views[i], &views[j]) {
                uf.union(i, j);
            }
        }
    }
    uf.groups()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(size: &[i64], stride: &[i64], offset: i64) -> View {
        View::new(size, stride, offset)
    }

    /// Over symbolic sizes the answer holds for every value: rows of a
    /// wider buffer never repeat, a symbolic stride or an expand may.
    #[test]
    fn self_overlap_over_symbolic_sizes() {
        use aot_ir::sym::{mul, symbol};
        let s0 = symbol(0);
        assert!(!may_reach_an_element_twice(&[s0, 3], &[4, 1]), "rows of 3 in rows of 4");
        assert!(may_reach_an_element_twice(&[s0, 2], &[1, 1]), "a sliding window");
        assert!(!may_reach_an_element_twice(&[4, s0], &[1, 4]), "a transposed symbolic dimension outermost");
        assert!(may_reach_an_element_twice(&[s0, 3], &[1, 2]), "after a symbolic extent nothing is certain");
        assert!(may_reach_an_element_twice(&[s0, 3], &[0, 1]), "an expand");
        assert!(may_reach_an_element_twice(&[3, 3], &[s0, 1]), "a symbolic stride");
        assert!(!may_reach_an_element_twice(&[s0, 3], &[3, 1]), "dense");
        assert!(!may_reach_an_element_twice(&[2, s0, 5], &[mul(s0, 5).unwrap(), 5, 1]), "dense, symbolic strides");
        // (Conservative: padded rows under a symbolic stride are not proved.)
        assert!(may_reach_an_element_twice(&[2, s0, 5], &[mul(s0, 8).unwrap(), 8, 1]));
    }

    /// The stride test agrees with the exact visit on every small layout
    /// (false is certain; true only when some element repeats, below the
    /// exact limit).
    #[test]
    fn self_overlap_matches_exact_visit() {
        for a in 1..4i64 {
            for b in 1..4i64 {
                for s0 in 0..5i64 {
                    for s1 in 0..5i64 {
                        let exact = reaches_an_element_twice(&[a, b], &[s0, s1], 0);
                        assert_eq!(may_reach_an_element_twice(&[a, b], &[s0, s1]), exact, "{a}x{b} {s0},{s1}");
                    }
                }
            }
        }
        assert!(may_reach_an_element_twice(&[2, 2], &[1, 1]));
        assert!(!may_reach_an_element_twice(&[2, 3], &[3, 1]));
        assert!(may_reach_an_element_twice(&[2, 3], &[2, 1]));
        // Interleaved without repeats: the stride test cannot tell, the visit can.
        assert!(!may_reach_an_element_twice(&[2, 2], &[1, 4]));
        assert!(!may_reach_an_element_twice(&[3, 2], &[2, 3]));
        // Too large to visit: conservative.
        assert!(may_reach_an_element_twice(&[1 << 20, 2], &[2, 3]));
        assert!(!may_reach_an_element_twice(&[0, 2], &[0, 0]));
    }

    /// The layouts of AOTAutograd's `test_input_mutation_false_aliasing`.
    #[test]
    fn false_aliasing_layouts() {
        // No overlap: contiguous halves of a 4x4.
        assert!(definitely_do_not_overlap(&v(&[2, 4], &[4, 1], 0), &v(&[2, 4], &[4, 1], 8)));
        // No overlap: first ends before second starts.
        assert!(definitely_do_not_overlap(&v(&[4, 4], &[8, 1], 0), &v(&[4, 4], &[8, 1], 28)));
        // No overlap: perfectly interleaved columns.
        assert!(definitely_do_not_overlap(&v(&[4, 2], &[4, 1], 0), &v(&[4, 2], &[4, 1], 2)));
        // No overlap: stride 9, offsets 0 and 22 / 23.
        assert!(definitely_do_not_overlap(&v(&[4, 4], &[9, 1], 0), &v(&[4, 4], &[9, 1], 22)));
        assert!(definitely_do_not_overlap(&v(&[4, 4], &[9, 1], 0), &v(&[4, 4], &[9, 1], 23)));
        // No overlap: a 3-D view ending at 195, b starting at 196.
        assert!(definitely_do_not_overlap(&v(&[2, 4, 3], &[110, 24, 4], 5), &v(&[24], &[1], 196)));
        // Overlap: contiguous rows 0..3 and 2..4.
        assert!(!definitely_do_not_overlap(&v(&[3, 4], &[4, 1], 0), &v(&[2, 4], &[4, 1], 8)));
        // Overlap: stride 9, offset 24.
        assert!(!definitely_do_not_overlap(&v(&[4, 4], &[9, 1], 0), &v(&[4, 4], &[9, 1], 24)));
        // Overlap: the 3-D view and a slice starting at 195.
        assert!(!definitely_do_not_overlap(&v(&[2, 4, 3], &[110, 24, 4], 5), &v(&[24], &[1], 195)));
        // Same view, empty views.
        assert!(!definitely_do_not_overlap(&v(&[3], &[1], 0), &v(&[3], &[1], 0)));
        assert!(definitely_do_not_overlap(&v(&[0], &[1], 0), &v(&[3], &[1], 0)));
    }

    #[test]
    fn grouping_matches_all_pairs() {
        let mut state = 12345u64;
        let mut r = |n: i64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as i64
        };
        for _ in 0..300 {
            let k = 2 + r(12) as usize;
            let views: Vec<View> = (0..k)
                .map(|_| match r(3) {
                    0 => v(&[1 + r(3), 1 + r(4)], &[6, 1], r(30)),
                    1 => v(&[1 + r(6)], &[1 + r(3)], r(30)),
                    _ => v(&[1 + r(2), 1 + r(3)], &[1 + r(8), 1 + r(2)], r(30)),
                })
                .collect();
            let (fast, _) = overlap_groups(&views);
            assert_eq!(fast, overlap_groups_all_pairs(&views), "{views:?}");
        }
    }

    #[test]
    fn interleaved_columns_are_not_quadratic() {
        let n = 2000;
        let views: Vec<View> = (0..n).map(|c| v(&[8, 1], &[n, 1], c)).collect();
        let (groups, stats) = overlap_groups(&views);
        assert_eq!(groups.len(), n as usize);
        assert!(stats.pairs_tested < 4 * n as u64, "{} pairs", stats.pairs_tested);
    }
}

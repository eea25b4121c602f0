//! Collectives: how compiled code reaches the process group its caller
//! set up.
//!
//! The `dist` dialect's ops name a group (`group = "0"`, PyTorch's group
//! name) and its size, a constant of the compile. At run time a
//! [`Communicator`] registered under that name runs them: the Python
//! package registers one per `torch.distributed` group it meets, which
//! calls the group's own collectives (aot has no transport of its own);
//! [`LocalGroup`] runs ranks as threads of one process (the tests').
//! Every collective reads a contiguous input and writes a fresh contiguous
//! output ([`Data`], [`DataMut`]): the interpreter and the native executor
//! pass their buffers' bytes.
//!
//! Invariants: a communicator runs collectives in the order its rank calls
//! them, and every rank of a group calls the same collectives in the same
//! order (they run the same compiled program); a collective whose group
//! has no communicator here, or one of another size than the program was
//! compiled for, fails the call with a message and never blocks.

use crate::buffer::Buffer;
use aot_ir::ElemType;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex, RwLock};

/// How values of several ranks combine.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Reduce {
    Sum,
    Avg,
    Product,
    Max,
    Min,
}

impl Reduce {
    /// PyTorch's names (`"sum"`, `"avg"`, `"product"`, `"max"`, `"min"`).
    pub fn parse(s: &str) -> Option<Reduce> {
        Some(match s {
            "sum" => Reduce::Sum,
            "avg" => Reduce::Avg,
            "product" => Reduce::Product,
            "max" => Reduce::Max,
            "min" => Reduce::Min,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Reduce::Sum => "sum",
            Reduce::Avg => "avg",
            Reduce::Product => "product",
            Reduce::Max => "max",
            Reduce::Min => "min",
        }
    }

    /// `values` (one per rank, in rank order) combined, in that order.
    pub fn combine(self, values: impl Iterator<Item = f64>) -> f64 {
        let (mut acc, mut n) = (None::<f64>, 0usize);
        for v in values {
            n += 1;
            acc = Some(match (acc, self) {
                (None, _) => v,
                (Some(a), Reduce::Sum | Reduce::Avg) => a + v,
                (Some(a), Reduce::Product) => a * v,
                // NaN wins, as in PyTorch's reductions.
                (Some(a), Reduce::Max) => {
                    if a.is_nan() || v.is_nan() {
                        f64::NAN
                    } else {
                        a.max(v)
                    }
                }
                (Some(a), Reduce::Min) => {
                    if a.is_nan() || v.is_nan() {
                        f64::NAN
                    } else {
                        a.min(v)
                    }
                }
            });
        }
        let acc = acc.unwrap_or(0.0);
        if self == Reduce::Avg && n > 0 {
            acc / n as f64
        } else {
            acc
        }
    }
}

/// A collective, as an op of the `dist` dialect describes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Collective {
    /// Every rank gets the reduction of every rank's input.
    AllReduce(Reduce),
    /// Every rank gets every rank's input, stacked along dimension 0 in
    /// rank order.
    AllGather,
    /// The reduction of every rank's input, split along dimension 0 into
    /// one part per rank; rank r gets part r.
    ReduceScatter(Reduce),
    /// Rank r's input split along dimension 0 into one part per rank; rank
    /// r gets part r of every rank's input, stacked in rank order.
    AllToAll,
    /// Every rank gets rank `src`'s input.
    Broadcast { src: usize },
}

/// A contiguous input: its element type, shape and bytes.
pub struct Data<'a> {
    pub elem: ElemType,
    pub shape: &'a [i64],
    pub bytes: &'a [u8],
}

/// A contiguous output to write whole.
pub struct DataMut<'a> {
    pub elem: ElemType,
    pub shape: &'a [i64],
    pub bytes: &'a mut [u8],
}

/// A collective started and not yet complete ([`Communicator::start`]).
pub trait Pending {
    /// Blocks until the collective is complete: its output written, its
    /// input no longer read.
    fn wait(self: Box<Self>) -> Result<(), String>;
}

/// A collective that completed when it started.
struct Done;

impl Pending for Done {
    fn wait(self: Box<Self>) -> Result<(), String> {
        Ok(())
    }
}

/// Runs the collectives of one group for one rank.
pub trait Communicator: Send + Sync {
    /// Ranks in the group.
    fn size(&self) -> usize;
    /// This process's (or thread's) rank in it.
    fn rank(&self) -> usize;
    /// Runs `op` on this rank's `input`, writing its result into `output`
    /// (shapes already checked against the op's rule).
    fn run(&self, op: &Collective, input: Data<'_>, output: DataMut<'_>) -> Result<(), String>;
    /// Starts `op` and returns before it completes, where the group can:
    /// the caller keeps `input` unchanged and leaves `output` alone until
    /// it has waited (a dropped pending collective is waited for). By
    /// default it runs to completion first.
    fn start<'a>(
        &self,
        op: &Collective,
        input: Data<'a>,
        output: DataMut<'a>,
    ) -> Result<Box<dyn Pending + 'a>, String> {
        self.run(op, input, output)?;
        Ok(Box::new(Done))
    }
}

type Registry = FxHashMap<String, Arc<dyn Communicator>>;

static GLOBAL: RwLock<Option<Registry>> = RwLock::new(None);

thread_local! {
    static LOCAL: RefCell<Registry> = RefCell::new(Registry::default());
}

/// Registers `c` for group `name` in the whole process (replacing an
/// earlier one): what the Python package does per process group.
pub fn register(name: &str, c: Arc<dyn Communicator>) {
    let mut g = GLOBAL.write().unwrap_or_else(|e| e.into_inner());
    g.get_or_insert_with(Registry::default).insert(name.to_string(), c);
}

/// Registers `c` for group `name` on the calling thread only, ahead of the
/// process-wide one: ranks run as threads of one process each see their
/// own communicator ([`LocalGroup`]).
pub fn register_local(name: &str, c: Arc<dyn Communicator>) {
    LOCAL.with(|l| l.borrow_mut().insert(name.to_string(), c));
}

/// The communicator of group `name` for the calling thread.
pub fn lookup(name: &str) -> Option<Arc<dyn Communicator>> {
    if let Some(c) = LOCAL.with(|l| l.borrow().get(name).cloned()) {
        return Some(c);
    }
    GLOBAL.read().unwrap_or_else(|e| e.into_inner()).as_ref().and_then(|g| g.get(name).cloned())
}

/// Runs `op` for group `group` compiled for `size` ranks: looks the
/// communicator up and checks its size first.
pub fn run(group: &str, size: usize, op: &Collective, input: Data<'_>, output: DataMut<'_>) -> Result<(), String> {
    checked(group, size, &input, &output)?.run(op, input, output)
}

/// [`run`], started: returns once the communicator has started it (see
/// [`Communicator::start`]).
pub fn start<'a>(
    group: &str,
    size: usize,
    op: &Collective,
    input: Data<'a>,
    output: DataMut<'a>,
) -> Result<Box<dyn Pending + 'a>, String> {
    checked(group, size, &input, &output)?.start(op, input, output)
}

/// The communicator of `group`, checked against the size the program was
/// compiled for, and the buffers against their shapes.
fn checked(group: &str, size: usize, input: &Data<'_>, output: &DataMut<'_>) -> Result<Arc<dyn Communicator>, String> {
    let c = lookup(group).ok_or_else(|| {
        format!(
            "collective over process group '{group}': no communicator is registered for it in this process \
             (torch.distributed groups are registered by aot_torch when it compiles a graph that uses them)"
        )
    })?;
    if c.size() != size {
        return Err(format!(
            "collective over process group '{group}': compiled for {size} ranks, but the group has {}",
            c.size()
        ));
    }
    let n = |s: &[i64]| s.iter().try_fold(1usize, |a, &d| usize::try_from(d).ok().and_then(|d| a.checked_mul(d)));
    for (what, shape, elem, len) in [
        ("input", input.shape, input.elem, input.bytes.len()),
        ("output", output.shape, output.elem, output.bytes.len()),
    ] {
        if n(shape).and_then(|k| k.checked_mul(elem.byte_size())) != Some(len) {
            return Err(format!("collective over process group '{group}': its {what} buffer does not hold its shape"));
        }
    }
    Ok(c)
}

/// The bytes of `data` as values.
fn values(elem: ElemType, bytes: &[u8]) -> Vec<f64> {
    let n = bytes.len() / elem.byte_size().max(1);
    let mut b = Buffer::zeros(elem, n);
    // SAFETY: `b` holds exactly `bytes.len()` bytes of the same type.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), b.as_mut_ptr(), n * elem.byte_size()) };
    (0..n).map(|i| b.get_f64(i)).collect()
}

/// `vals` written as `elem` into `out`.
fn write(elem: ElemType, vals: &[f64], out: &mut [u8]) {
    let mut b = Buffer::zeros(elem, vals.len());
    for (i, &v) in vals.iter().enumerate() {
        b.set_f64(i, v);
    }
    let bytes = vals.len() * elem.byte_size();
    // SAFETY: `out` was checked to hold the output's shape, which has
    // `vals.len()` elements of `elem`.
    unsafe { std::ptr::copy_nonoverlapping(b.as_mut_ptr(), out.as_mut_ptr(), bytes.min(out.len())) };
}

/// The state ranks of a [`LocalGroup`] share: each round, every rank's
/// input, then the count of ranks that have read them all.
struct Exchange {
    inputs: Vec<Option<Vec<f64>>>,
    read: usize,
    round: u64,
    /// A rank gave up ([`LocalGroup::abort`]): every collective fails.
    aborted: bool,
}

/// A group whose ranks are threads of this process (tests, and single
/// process runs of programs written for several ranks): each rank holds
/// one `LocalGroup` from [`LocalGroup::new`]. Values travel as f64 and are
/// combined in rank order.
pub struct LocalGroup {
    rank: usize,
    shared: Arc<(Mutex<Exchange>, Condvar)>,
}

impl LocalGroup {
    /// One communicator per rank of a group of `size` threads.
    pub fn new(size: usize) -> Vec<Arc<LocalGroup>> {
        let shared = Arc::new((
            Mutex::new(Exchange { inputs: vec![None; size], read: 0, round: 0, aborted: false }),
            Condvar::new(),
        ));
        (0..size).map(|rank| Arc::new(LocalGroup { rank, shared: shared.clone() })).collect()
    }

    /// Makes every collective of the group fail, those waiting now
    /// included: a rank that failed (a test's thread that panicked) calls
    /// it so that the others do not wait for it forever.
    pub fn abort(&self) {
        let (lock, cv) = &*self.shared;
        lock.lock().unwrap_or_else(|e| e.into_inner()).aborted = true;
        cv.notify_all();
    }

    /// Every rank's `mine`, in rank order, once all have given theirs.
    fn exchange(&self, mine: Vec<f64>) -> Result<Vec<Vec<f64>>, String> {
        let (lock, cv) = &*self.shared;
        let size = self.size();
        let aborted = || "a rank of the group gave up (LocalGroup::abort)".to_string();
        let mut ex = lock.lock().unwrap_or_else(|e| e.into_inner());
        // A rank of the next round waits until this one is read out.
        while ex.inputs[self.rank].is_some() && !ex.aborted {
            ex = cv.wait(ex).unwrap_or_else(|e| e.into_inner());
        }
        if ex.aborted {
            return Err(aborted());
        }
        let round = ex.round;
        ex.inputs[self.rank] = Some(mine);
        cv.notify_all();
        while ex.round == round && ex.inputs.iter().any(|i| i.is_none()) && !ex.aborted {
            ex = cv.wait(ex).unwrap_or_else(|e| e.into_inner());
        }
        if ex.aborted {
            return Err(aborted());
        }
        let all: Vec<Vec<f64>> = ex.inputs.iter().map(|i| i.clone().unwrap_or_default()).collect();
        ex.read += 1;
        if ex.read == size {
            ex.read = 0;
            ex.round += 1;
            ex.inputs.iter_mut().for_each(|i| *i = None);
            cv.notify_all();
        } else {
            // The others of this round still read: wait for the round to
            // end, so that no rank's next input overwrites one unread.
            while ex.round == round && !ex.aborted {
                ex = cv.wait(ex).unwrap_or_else(|e| e.into_inner());
            }
        }
        Ok(all)
    }
}

impl Communicator for LocalGroup {
    fn size(&self) -> usize {
        self.shared.0.lock().unwrap_or_else(|e| e.into_inner()).inputs.len()
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn run(&self, op: &Collective, input: Data<'_>, output: DataMut<'_>) -> Result<(), String> {
        let size = self.size();
        let all = self.exchange(values(input.elem, input.bytes))?;
        let n = all[self.rank].len();
        let reduce = |r: Reduce| -> Vec<f64> { (0..n).map(|i| r.combine(all.iter().map(|v| v[i]))).collect() };
        let part = n / size.max(1);
        let out: Vec<f64> = match op {
            Collective::AllReduce(r) => reduce(*r),
            Collective::AllGather => all.concat(),
            Collective::ReduceScatter(r) => reduce(*r)[self.rank * part..(self.rank + 1) * part].to_vec(),
            Collective::AllToAll => {
                all.iter().flat_map(|v| v[self.rank * part..(self.rank + 1) * part].to_vec()).collect()
            }
            Collective::Broadcast { src } => {
                all.get(*src).cloned().ok_or_else(|| format!("no rank {src} in the group"))?
            }
        };
        write(output.elem, &out, output.bytes);
        Ok(())
    }
}

//! A reduce's copy phase (Hadoop's shuffle as ShuffleWatcher §2.1 and FAIR §5.2 describe it: a
//! reduce placed before its job's maps are done sits in its slot and fetches each map's output
//! as that map finishes).
//!
//! Shares (placer's): map m of a job weighs `w_m` = its output bytes (or 1 each when every
//! output of the job is 0), `W = Σ w_m`; a reduce of `B` shuffle bytes pulls from the maps
//! finished so far, of cumulative weight `C`, `due(C) = ⌊B · C / W⌋` bytes, so a map finishing
//! moves the reduce's due from `due(C)` to `due(C + w_m)` and the last one brings it to `B`
//! exactly. The part on the reduce's own node is read from disk; the rest is owed per source
//! rack and moves as **one flow per source rack at a time**: a rack's new bytes wait for its
//! flow in progress to end and then go as one flow (from the rack's latest source node). A
//! copying reduce learns of finished maps when it polls, on the `epoch_s` grid (Hadoop's
//! reduces poll the TaskTracker for map-completion events). This keeps a reduce to ≤ racks
//! flows (Hadoop fetches with a few parallel copiers, 5 by default) and batches the outputs of
//! the maps that finish between two polls: on the FB-2009 day a flow per map output made the
//! replay many times slower. With `SimConfig::copiers` = k (Hadoop's
//! `mapred.reduce.parallel.copies`, 5 by default) at most k of a reduce's flows are in progress
//! at once; the racks owing bytes take the free copiers in turn, from the rack after the last
//! one started (round robin, so none waits behind a rack that owes again and again). Example:
//! k = 2 and racks r1, r2, r3 owing: r1 and r2 start; when r1's flow ends r3 starts (not r1
//! again), then r1. The copy phase ends when every
//! map of the job is done and every owed byte has arrived; the compute follows
//! (the World, `mod.rs`).
//!
//! Example: B = 100, W = 4 (four maps of weight 1); the reduce starts after one map finished
//! (due 25), the second brings due to 50 (25 more), the third 75, the fourth 100.
//!
//! State: [`Shuffle`] owns all of it (per reduce its copy state per source rack, per job the
//! finished maps' weight per node and its copying reduces); the World reaches it through the
//! methods below and the [`Mechanism`] hooks (a map's end, a reduce's release).
//!
//! Cost: O(racks) per reduce start and per flow end; a map's end costs O(1) per copying reduce
//! of its job.

use super::hooks::{Ctx, Mechanism};
use crate::queue::EventKind;
use crate::workload_index::WorkloadIndex;
use placer_models::TaskKind;
use std::collections::{BTreeMap, BTreeSet};

/// A reduce's copy state for one source rack.
#[derive(Clone, Copy, Debug)]
struct RackFetch {
    rack: usize,
    /// The node the next flow comes from (the rack's latest source).
    src: usize,
    /// Bytes known but not yet requested.
    owed: u64,
    /// A flow from this rack is in progress.
    active: bool,
}

/// A reduce's copy phase.
#[derive(Clone, Debug, Default)]
struct ReduceCopy {
    /// Still in its copy phase.
    copying: bool,
    /// Per source rack.
    fetch: Vec<RackFetch>,
    /// Under a copier cap: the position in `fetch` to offer a free copier first.
    next: usize,
}

/// A job's finished map outputs, as its reduces see them.
#[derive(Clone, Debug, Default)]
struct JobOutputs {
    /// Finished maps' shuffle weight per node (node order).
    map_output: BTreeMap<usize, u128>,
    /// Σ `map_output`.
    weight_done: u128,
    /// Bumped at every change of `map_output`: equal versions, equal known shuffle bytes.
    version: u64,
    /// Running reduces in their copy phase.
    copying: BTreeSet<usize>,
    /// A `FetchPoll` is scheduled.
    poll_scheduled: bool,
}

/// Every reduce's copy phase and every job's finished outputs.
pub(crate) struct Shuffle {
    /// Per task (maps keep the default).
    reduces: Vec<ReduceCopy>,
    jobs: Vec<JobOutputs>,
    /// Scratch reused across calls.
    parts: Vec<(usize, u64)>,
}

impl Shuffle {
    /// No reduce copying and no map output yet.
    pub fn new(tasks: usize, jobs: usize) -> Self {
        Self {
            reduces: vec![ReduceCopy::default(); tasks],
            jobs: vec![JobOutputs::default(); jobs],
            parts: Vec::new(),
        }
    }

    /// Whether reduce `t` is in its copy phase.
    pub fn is_copying(&self, t: usize) -> bool {
        self.reduces[t].copying
    }

    /// Job `j`'s reduces in their copy phase, in task order, into `out` (cleared first).
    pub fn copying_of(&self, j: usize, out: &mut Vec<usize>) {
        out.clear();
        out.extend(self.jobs[j].copying.iter().copied());
    }

    /// Job `j`'s map outputs were lost (evicted): its reduces know of no finished map.
    pub fn forget_maps(&mut self, j: usize) {
        let job = &mut self.jobs[j];
        job.weight_done = 0;
        job.map_output.clear();
        job.version += 1;
    }

    /// The version of job `j`'s finished outputs: the known shuffle bytes of its reduces
    /// ([`Shuffle::known_into`]) are equal while it is.
    pub fn known_version(&self, j: usize) -> u64 {
        self.jobs[j].version
    }

    /// Reduce `t`'s shuffle bytes known so far, per source node (node order), into `out` (its
    /// allocation reused): what a snapshot shows as its `shuffle`.
    pub fn known_into(&self, ix: &WorkloadIndex, t: usize, out: &mut Vec<(usize, u64)>) {
        let task = &ix.tasks[t];
        let j = task.job as usize;
        let (spec, job) = (&ix.jobs[j], &self.jobs[j]);
        let known = due(task.bytes, job.weight_done, spec.weight_total);
        shuffle_split_into(known, job.map_output.iter().map(|(&n, &w)| (n, w)), out);
    }

    /// Reduce `t` just started: it fetches what is known, and waits for the rest. True when
    /// its copy is already complete (its compute starts now).
    pub fn start(&mut self, cx: &mut Ctx<'_>, t: usize) -> bool {
        let j = cx.ix.tasks[t].job as usize;
        let run = &mut self.reduces[t];
        run.copying = true;
        run.fetch.clear();
        run.next = 0;
        self.jobs[j].copying.insert(t);
        let mut known = std::mem::take(&mut self.parts);
        self.known_into(cx.ix, t, &mut known);
        for &(src, bytes) in &known {
            self.owe(cx, t, src, bytes);
        }
        self.parts = known;
        self.fetch_owed(cx, t);
        self.done(cx, t)
    }

    /// Job `j`'s poll is due: it is no longer scheduled.
    pub fn poll_due(&mut self, j: usize) {
        self.jobs[j].poll_scheduled = false;
    }

    /// Copying reduce `r` polls for finished maps: it fetches what it is owed. True when its
    /// copy is complete.
    pub fn poll(&mut self, cx: &mut Ctx<'_>, r: usize) -> bool {
        self.fetch_owed(cx, r);
        self.done(cx, r)
    }

    /// A flow from `src_rack` into copying reduce `t` arrived. True when its copy is complete.
    pub fn fetch_done(&mut self, cx: &mut Ctx<'_>, t: usize, src_rack: usize) -> bool {
        let fetch = &mut self.reduces[t].fetch;
        if let Some(f) = fetch.iter_mut().find(|f| f.rack == src_rack && f.active) {
            f.active = false;
        }
        self.fetch_owed(cx, t);
        self.done(cx, t)
    }

    /// `bytes` from node `src` are owed to reduce `t`: read from disk if local, else queued
    /// on the source rack.
    fn owe(&mut self, cx: &mut Ctx<'_>, t: usize, src: usize, bytes: u64) {
        if bytes == 0 {
            return;
        }
        let (now, disk) = (cx.now, cx.cfg.disk_mb_s * 1e6);
        let run = &mut cx.tasks[t];
        if src == run.node {
            run.local_done_s = run.local_done_s.max(now) + bytes as f64 / disk;
            cx.metrics.read_local(bytes);
            cx.metrics.shuffle_read_locally(cx.ix.tasks[t].job as usize, bytes);
            return;
        }
        let rack = cx.cluster.rack_of[src];
        let fetch = &mut self.reduces[t].fetch;
        match fetch.iter_mut().find(|f| f.rack == rack) {
            Some(f) => {
                f.owed += bytes;
                f.src = src;
            }
            None => fetch.push(RackFetch { rack, src, owed: bytes, active: false }),
        }
    }

    /// Starts a flow for every rack owing bytes to `t` with none in progress (under a copier
    /// cap, while a copier is free, in turn).
    fn fetch_owed(&mut self, cx: &mut Ctx<'_>, t: usize) {
        if let Some(k) = cx.cfg.copiers {
            self.fetch_capped(cx, t, k as usize);
            return;
        }
        let n = cx.tasks[t].node;
        let rack = cx.cluster.rack_of[n];
        for f in &mut self.reduces[t].fetch {
            if f.active || f.owed == 0 {
                continue;
            }
            let id = cx.net.start(cx.now, t, true, f.owed, (f.src, f.rack), (n, rack), cx.queue);
            f.owed = 0;
            f.active = true;
            let run = &mut cx.tasks[t];
            run.flows.push(id);
            run.flows_left += 1;
        }
    }

    /// `fetch_owed` with at most `k` flows of `t` in progress: the racks owing bytes in turn
    /// from `next`. O(racks).
    fn fetch_capped(&mut self, cx: &mut Ctx<'_>, t: usize, k: usize) {
        let n = cx.tasks[t].node;
        let rack = cx.cluster.rack_of[n];
        let run = &mut self.reduces[t];
        let racks = run.fetch.len();
        let mut busy = run.fetch.iter().filter(|f| f.active).count();
        for step in 0..racks {
            if busy >= k {
                break;
            }
            let i = (run.next + step) % racks;
            let f = &mut run.fetch[i];
            if f.active || f.owed == 0 {
                continue;
            }
            let id = cx.net.start(cx.now, t, true, f.owed, (f.src, f.rack), (n, rack), cx.queue);
            f.owed = 0;
            f.active = true;
            busy += 1;
            run.next = (i + 1) % racks;
            let task = &mut cx.tasks[t];
            task.flows.push(id);
            task.flows_left += 1;
        }
    }

    /// Ends `t`'s copy phase if every map is done and every byte has arrived; true then.
    fn done(&mut self, cx: &mut Ctx<'_>, t: usize) -> bool {
        let j = cx.ix.tasks[t].job as usize;
        let run = &self.reduces[t];
        if !run.copying
            || cx.jobs[j].maps_done < cx.ix.jobs[j].maps
            || run.fetch.iter().any(|f| f.active || f.owed > 0)
        {
            return false;
        }
        self.reduces[t].copying = false;
        cx.tasks[t].flows.clear();
        self.jobs[j].copying.remove(&t);
        true
    }
}

impl Mechanism for Shuffle {
    /// A reduce that gives its slot back stops copying.
    fn task_released(&mut self, cx: &mut Ctx<'_>, t: usize) {
        if self.reduces[t].copying {
            self.reduces[t].copying = false;
            self.jobs[cx.ix.tasks[t].job as usize].copying.remove(&t);
        }
    }

    /// The map's output, of weight `w_m`, is known: every copying reduce of its job is owed
    /// its share, which it fetches at its next poll (on the `epoch_s` grid).
    fn map_finished(&mut self, cx: &mut Ctx<'_>, t: usize) {
        let task = &cx.ix.tasks[t];
        debug_assert_eq!(task.kind, TaskKind::Map);
        let (j, m) = (task.job as usize, cx.tasks[t].node);
        let spec = &cx.ix.jobs[j];
        let (w, total) = (spec.weight(task.output_bytes), spec.weight_total);
        let job = &mut self.jobs[j];
        let c0 = job.weight_done;
        let c1 = c0 + w;
        job.weight_done = c1;
        *job.map_output.entry(m).or_insert(0) += w;
        job.version += 1;
        let copying = std::mem::take(&mut self.jobs[j].copying);
        for &r in &copying {
            let b = cx.ix.tasks[r].bytes;
            let share = due(b, c1, total) - due(b, c0, total);
            self.owe(cx, r, m, share);
        }
        let poll = !copying.is_empty() && !self.jobs[j].poll_scheduled;
        self.jobs[j].copying = copying;
        if poll {
            let e = cx.cfg.epoch_s;
            let at = ((cx.now / e).ceil() * e).max(cx.now);
            self.jobs[j].poll_scheduled = true;
            cx.queue.push(at, EventKind::FetchPoll(j));
        }
    }
}

/// `⌊bytes · c / w⌋` (0 when `w` is 0), in u128 (f64 on overflow), at most `bytes`.
pub(crate) fn due(bytes: u64, c: u128, w: u128) -> u64 {
    if w == 0 {
        return 0;
    }
    let d = match u128::from(bytes).checked_mul(c) {
        Some(p) => p / w,
        None => (bytes as f64 * (c as f64 / w as f64)) as u128,
    };
    d.min(u128::from(bytes)) as u64
}

/// `bytes` split over sources in proportion to their weights: `⌊bytes · w_s / Σ w⌋`, the
/// rounding remainder on the last source, so that the parts sum to `bytes`. Example: 10 bytes
/// over weights (n1: 1, n4: 2) → (n1, 3), (n4, 7). No weight → nothing.
#[cfg(test)]
pub(crate) fn shuffle_split(
    bytes: u64,
    sources: impl ExactSizeIterator<Item = (usize, u128)> + Clone,
) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    shuffle_split_into(bytes, sources, &mut out);
    out
}

/// [`shuffle_split`] into `out` (cleared first), reusing its allocation. O(sources).
pub(crate) fn shuffle_split_into(
    bytes: u64,
    sources: impl ExactSizeIterator<Item = (usize, u128)> + Clone,
    out: &mut Vec<(usize, u64)>,
) {
    out.clear();
    let total: u128 = sources.clone().map(|(_, w)| w).sum();
    if total == 0 {
        return;
    }
    let mut left = bytes;
    let last = sources.len().saturating_sub(1);
    for (i, (n, w)) in sources.enumerate() {
        let part = if i == last { left } else { due(bytes, w, total) };
        left -= part.min(left);
        out.push((n, part));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_split_sums_to_bytes() {
        assert_eq!(shuffle_split(10, [(1, 1), (4, 2)].into_iter()), vec![(1, 3), (4, 7)]);
        assert_eq!(shuffle_split(10, [].into_iter()), vec![]);
        let big = [(0, u128::from(u64::MAX)), (1, u128::from(u64::MAX))];
        assert_eq!(shuffle_split(u64::MAX, big.into_iter()).len(), 2);
        let parts = shuffle_split(1_000_003, [(0, 3), (1, 5), (2, 7)].into_iter());
        assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), 1_000_003);
    }

    #[test]
    fn module_doc_example_due_per_map() {
        // B = 100 over four maps of weight 1: 25, 50, 75, 100.
        let dues: Vec<u64> = (1..=4).map(|c| due(100, c, 4)).collect();
        assert_eq!(dues, [25, 50, 75, 100]);
        assert_eq!(due(100, 3, 0), 0);
        // Rounding telescopes: shares over 3 maps of 10 bytes sum to 10.
        let shares: u64 = (0..3).map(|c| due(10, c + 1, 3) - due(10, c, 3)).sum();
        assert_eq!(shares, 10);
    }
}

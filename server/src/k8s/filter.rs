//! `POST /k8s/v1/filter` (docs/operations/kubernetes-extender.md): which candidate nodes the pod
//! may go to, with a reason per node that it may not.
//!
//! Two rules, both reported in `FailedAndUnresolvableNodes` (preemption cannot help them, so
//! kube-scheduler does not evict pods for them), reasons joined by "; " when both apply:
//!
//! 1. Fit (`Nodes` mode only, where allocatable is sent): the pod's effective cpu or memory
//!    request ([`super::pod`]) exceeds the node's allocatable. Even an empty node could not
//!    hold it, which is why kube-scheduler's own NodeResourcesFit reports this case as
//!    unresolvable too (kubernetes/kubernetes PR #131345). What other pods already use is
//!    kube-scheduler's business (NodeResourcesFit), not the extender's: the Node object does
//!    not say it.
//! 2. Fair share (when known): the latest answered epoch of `POST /place` (the epochs ring)
//!    reports the pod's pool with a fair share, and the pool wanted more map slots than its
//!    share (`demand.map > fair_share.map`) yet already runs at least its share
//!    (`running_after.map ≥ fair_share.map`). The Hadoop Fair Scheduler gives a free slot to a
//!    pool below its share and holds one at its share back while others want more (HFS design
//!    doc §3); a pool whose demand fits in its share (it got all it wanted) is never held back,
//!    nor is one the epoch does not list. Then every node fails. Evicting other pods does not
//!    change the pool's share, hence unresolvable; the pod is retried when kube-scheduler
//!    next tries it. Pods read input (they are placer's map tasks), so map slots are compared.
//!
//! `FailedNodes` (resolvable by preemption) is always empty: placer has no such reason.
//!
//! The answer is bounded by the request: the kept nodes are a subset of those sent, and the
//! reasons together take at most as many bytes as the request body, or 64 KiB for a smaller
//! one ([`filter`]'s `reason_budget`). Past that, further failing nodes are still filtered out but listed
//! without a reason: kube-scheduler drops a node missing from the kept list whether or not it
//! has a reason, and reasons only feed the pod's `FailedScheduling` event, which counts nodes
//! per distinct reason. A pool name in a reason is cut to [`POOL_IN_REASON`] characters.

use super::args::{Args, Candidates};
use super::pod::Amounts;
use super::wire::{FilterResult, NodeListOut};
use crate::epochs::EpochRecord;
use std::collections::{BTreeMap, HashSet};

/// The reason budget of a small request: 64 KiB, so that a call of a few nodes always gets
/// every reason.
pub const MIN_REASON_BUDGET: usize = 64 << 10;

/// Most characters of a pool's name quoted in a reason.
pub const POOL_IN_REASON: usize = 64;

/// Why the pod's pool may take no slot now, or `None` when it may (or nothing is known).
///
/// # Complexity
/// O(pools of the record).
pub fn over_fair_share(pool: &str, latest: Option<&EpochRecord>) -> Option<String> {
    let report = latest?.pools.iter().find(|p| p.id.as_str() == pool)?;
    let share = report.fair_share?.map;
    let (running, demand) = (report.running_after.map, report.demand.map);
    (demand > share && running >= share).then(|| {
        let shown: String = pool.chars().take(POOL_IN_REASON).collect();
        let cut = if shown.len() < pool.len() { "…" } else { "" };
        format!(
            "pool {shown}{cut} is at or over its fair share: {} map tasks running ≥ fair share \
             {} (demand {}) in the latest answered epoch",
            round2(running),
            round2(share),
            round2(demand)
        )
    })
}

/// `x` rounded to 2 decimals, for messages.
fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Why `requests` do not fit in `allocatable`, or `None` when they do.
pub fn misfit(requests: Amounts, allocatable: Amounts) -> Option<String> {
    let mut reasons = Vec::new();
    if requests.cpu_milli > allocatable.cpu_milli {
        reasons.push(format!(
            "Insufficient cpu: the pod requests {}m, the node's allocatable is {}m",
            requests.cpu_milli, allocatable.cpu_milli
        ));
    }
    if requests.memory_bytes > allocatable.memory_bytes {
        reasons.push(format!(
            "Insufficient memory: the pod requests {} bytes, the node's allocatable is {} bytes",
            requests.memory_bytes, allocatable.memory_bytes
        ));
    }
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

/// The filter answer for `args`, knowing the latest answered epoch, with at most
/// `reason_budget` bytes of reasons (names and texts; see the module docs).
///
/// # Complexity
/// O(candidates + pools).
pub fn filter<'v>(
    args: &'v Args<'v>,
    latest: Option<&EpochRecord>,
    reason_budget: usize,
) -> FilterResult<'v> {
    let pool_reason = over_fair_share(&args.pod.pool, latest);
    let mut unresolvable = BTreeMap::new();
    let mut budget = reason_budget;
    // Every name that fails, reason or not: needed in `Nodes` mode only, where a name sent twice
    // must have one outcome (a hash insert per failing name is not paid in `NodeNames` mode).
    let track_failed = matches!(args.candidates, Candidates::Nodes { .. });
    let mut failed: HashSet<&'v str> = HashSet::new();
    // Records that `name` fails, if it does, and why while the budget lasts; whether it passes.
    let mut passes = |name: &'v str, reasons: &[&str]| {
        if reasons.is_empty() {
            return true;
        }
        if track_failed {
            failed.insert(name);
        }
        // The entry's bytes on the wire: quotes, colon, comma, and "; " between reasons.
        let text_len = reasons.iter().map(|r| r.len() + 2).sum::<usize>() - 2;
        let cost = name.len() + text_len + 6;
        if cost <= budget {
            budget -= cost;
            unresolvable.insert(name, reasons.join("; "));
        }
        false
    };
    let mut result = FilterResult {
        nodes: None,
        node_names: None,
        failed: BTreeMap::new(),
        unresolvable: BTreeMap::new(),
        error: String::new(),
    };
    match &args.candidates {
        Candidates::Nodes { list, nodes } => {
            let mut kept = Vec::new();
            for node in nodes {
                let misfit = misfit(args.pod.requests, node.allocatable);
                let reasons: Vec<&str> =
                    [misfit.as_deref(), pool_reason.as_deref()].into_iter().flatten().collect();
                if passes(node.name, &reasons) {
                    kept.push(node);
                }
            }
            // A name sent twice (kube-scheduler never does) has one outcome: it fails if any
            // of its Node objects fails.
            let items =
                kept.into_iter().filter(|n| !failed.contains(n.name)).map(|n| n.raw).collect();
            result.nodes = Some(NodeListOut { list, items });
        }
        Candidates::Names(names) => {
            let reasons: Vec<&str> = pool_reason.as_deref().into_iter().collect();
            let kept = names.iter().copied().filter(|&name| passes(name, &reasons)).collect();
            result.node_names = Some(kept);
        }
    }
    result.unresolvable = unresolvable;
    result
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use placer_models::{PoolReport, SlotCounts, StarvationState};

    // `EpochRecord` grows fields of its own: only `pools` is set here.
    #[allow(clippy::field_reassign_with_default)]
    fn record(fair: f64, running: f64, demand: f64) -> EpochRecord {
        let counts = |map| SlotCounts { map, reduce: 0.0 };
        let mut record = EpochRecord::default();
        record.pools = vec![PoolReport {
            id: "etl".into(),
            fair_share: Some(counts(fair)),
            running: counts(running),
            demand: counts(demand),
            running_after: counts(running),
            starvation: StarvationState::default(),
        }];
        record
    }

    /// HFS §3: a pool that wants more than its share and runs at least its share waits.
    #[test]
    fn fair_share_rule() {
        assert!(over_fair_share("etl", Some(&record(4.0, 4.0, 10.0))).is_some());
        assert!(over_fair_share("etl", Some(&record(2.5, 3.0, 10.0))).is_some());
        assert!(over_fair_share("etl", Some(&record(4.0, 3.0, 10.0))).is_none()); // below
        assert!(over_fair_share("etl", Some(&record(4.0, 4.0, 4.0))).is_none()); // got all
        assert!(over_fair_share("etl", Some(&record(0.0, 0.0, 0.0))).is_none()); // idle
        assert!(over_fair_share("other", Some(&record(4.0, 9.0, 10.0))).is_none());
        assert!(over_fair_share("etl", None).is_none());
        let why = over_fair_share("etl", Some(&record(7.0 / 3.0, 3.0, 10.0))).unwrap();
        assert!(why.contains("3 map tasks running ≥ fair share 2.33 (demand 10)"), "{why}");
    }

    /// A pool name as long as the annotation allows is quoted cut, so one reason stays short.
    #[test]
    fn a_long_pool_name_is_cut_in_the_reason() {
        let long = "p".repeat(10_000);
        let mut rec = record(4.0, 4.0, 10.0);
        rec.pools[0].id = long.as_str().into();
        let why = over_fair_share(&long, Some(&rec)).unwrap();
        assert!(why.len() < 300, "{} bytes", why.len());
        assert!(why.contains(&format!("pool {}… is", "p".repeat(POOL_IN_REASON))));
    }

    /// Found by the `extender` fuzz target (fuzz/regressions/extender/): two Node objects
    /// named `b`, one fitting the pod and one not, made filter keep `b` and fail it at once.
    #[test]
    fn a_node_sent_twice_has_one_outcome() {
        let body = serde_json::json!({"Pod": {"spec": {"containers": [
            {"resources": {"requests": {"cpu": "1"}}}]}},
            "Nodes": {"items": [
                {"metadata": {"name": "a"}, "status": {"allocatable": {"cpu": "2"}}},
                {"metadata": {"name": "b"}, "status": {"allocatable": {"cpu": "2"}}},
                {"metadata": {"name": "b"}}]}});
        let args = super::super::args::read_args(&body, "rack").unwrap();
        let result = filter(&args, None, usize::MAX);
        let kept: Vec<&serde_json::Value> = result.nodes.unwrap().items;
        assert_eq!(kept, [&body["Nodes"]["items"][0]]);
        assert!(result.unresolvable["b"].starts_with("Insufficient cpu"));
        assert_eq!(result.unresolvable.len(), 1);
    }

    #[test]
    fn misfit_names_each_resource() {
        let node = Amounts { cpu_milli: 2000, memory_bytes: 1 << 30 };
        assert_eq!(misfit(node, node), None);
        let cpu = misfit(Amounts { cpu_milli: 2001, memory_bytes: 0 }, node).unwrap();
        assert_eq!(
            cpu,
            "Insufficient cpu: the pod requests 2001m, the node's allocatable is 2000m"
        );
        let both = misfit(Amounts { cpu_milli: 2001, memory_bytes: 1 << 31 }, node).unwrap();
        assert!(both.contains("cpu") && both.contains("; Insufficient memory"), "{both}");
    }
}

//! Shared links and the flows on them (`sim/README.md`: non-local reads and
//! shuffles "shared fairly among concurrent flows on a link"; the bandwidths of lsap-sched
//! eq. 1 and ShuffleWatcher §2's oversubscribed cross-rack links).
//!
//! Link model (placer's):
//! - every node has one **in-rack link** (its NIC, receive side) of `rack_mbps`; every network
//!   flow into the node uses it, whether its source is in the same rack or not;
//! - every ordered pair of distinct racks (source rack → destination rack) has one
//!   **cross-rack link** of `cross_rack_mbps`; a flow between racks uses it as well;
//! - optionally (`uplink_mbps`), every rack has an **uplink** and a **downlink** of
//!   `uplink_mbps` to the core, shared by every flow that leaves (enters) the rack: the
//!   oversubscribed top-of-rack switch of ShuffleWatcher §4.1 (10 racks of 10 nodes at 5:1).
//!   Without it (the default) racks have no aggregate limit beyond their pair links.
//!
//! Rates, two models ([`Sharing`]):
//! - **per link** (the default): a flow on links L gets `rate = min over l ∈ L of
//!   capacity(l) / flows(l)` bytes/s, with capacity = Mbit/s · 10⁶ / 8. A link whose flows are
//!   held back elsewhere keeps the rest of its capacity unused;
//! - **max-min fair** (progressive filling, as TCP flows sharing links tend to): every flow's
//!   rate rises together until a link is full; the flows on it keep that rate, the link's
//!   capacity is spent, and the others rise on from what is left, until every flow is held by
//!   a full link. Example: node d's 1,000 Mbit/s link carries an in-rack read and a cross-rack
//!   read capped at 100 Mbit/s by its pair link: per link they get 500 and 100 (400 unused),
//!   max-min 900 and 100.
//!
//! In both, a lone in-rack flow runs at `rack_mbps`, a lone cross-rack
//! flow at `min(rack_mbps, cross_rack_mbps, uplink_mbps)`: the solver's `bw(s, n)` (the
//! simulator's snapshots carry `min(cross_rack_mbps, uplink_mbps)` across racks), so that lsap's cost is
//! the transfer time of an uncontended read. Sources' send sides are not modelled (HDFS spreads
//! reads over replicas). Example: two flows into one node from its rack at 1000 Mbit/s each
//! get 62.5 MB/s, so a 125 MB read takes 2 s instead of 1 s.
//!
//! Goodput (optional, [`Goodput`], `goodput.rs`): the **shaped** links — the rack uplinks and
//! downlinks when `uplink_mbps` is set, else the rack-pair links; never a node's in-rack link —
//! deliver `capacity · g(n)` in all when they carry n flows, in both models: per link a flow's
//! share of it is `capacity · g(n) / n`; max-min fills the link up to `capacity · g(n)`. A flow
//! that joins a shaped link already carrying `n0` or more flows first stalls `rto_s` seconds
//! (on no link, moving nothing; the flow's finish event is reused to wake it). Example: 28
//! flows on one 500 Mbit/s uplink with the default curve (n0 = 8, β = 0.05): g = 1/2, so 250
//! Mbit/s in all, 8.93 Mbit/s each. Without a `Goodput` every link delivers its capacity.
//!
//! Offered rates (optional, for NetSat's `offered` measure, `traffic.rs`): each cross-rack
//! flow's rate on its unshaped links alone, each split equally (`min` over them of capacity /
//! flows), which is what it would get if the shaped links did not hold it back; tracked beside
//! the rates and told to the meter in the same O(1) way.
//!
//! When a flow starts or ends, only the flows sharing one of its links are settled (bytes
//! moved so far at their old rate) and rescheduled at their new rate, under a new version
//! number (the old finish event goes stale). O(flows on the touched links) per change. Each
//! rate change of a cross-rack flow is also told to the [`TrafficMeter`] (`traffic.rs`), which
//! integrates the racks' measured cross-rack traffic in O(1) per change.

use crate::goodput::Goodput;
use crate::queue::{EventKind, EventQueue};
use crate::traffic::TrafficMeter;

const MBPS_TO_BYTES: f64 = 1e6 / 8.0;

/// Bytes left below which a flow counts as finished (rounding of rate × time).
const DONE_BYTES: f64 = 1e-3;

/// No link yet (in `Network::pair` and `Network::uplinks`).
const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Link {
    /// Bytes/s.
    capacity: f64,
    flows: Vec<u32>,
    /// Loses goodput under a [`Goodput`] (module docs).
    shaped: bool,
}

/// What a re-rating reads of every flow on a touched link, apart from the rest of the flow so
/// that a link's flows are scanned in few cache lines (32 bytes each).
#[derive(Clone, Copy, Debug)]
struct Hot {
    /// Bytes/s.
    rate: f64,
    /// The last `rebalance` that visited it.
    stamp: u32,
    nlinks: u8,
    links: [u32; 4],
}

#[derive(Clone, Debug)]
struct Flow {
    remaining: f64,
    last: f64,
    /// When its current finish event fires (it may fire early: see `rebalance`).
    due: f64,
    version: u32,
    active: bool,
    cross_rack: bool,
    /// A reduce's shuffle (else a map's input read).
    shuffle: bool,
    task: usize,
    bytes: u64,
    /// (source rack, destination rack).
    racks: (usize, usize),
    /// Waiting out a timeout: on no link, moving nothing, until its finish event.
    stalled: bool,
    /// Its offered rate, bytes/s (module docs; kept only when `Network::offered` is on).
    offered: f64,
}

/// A finished or cancelled flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FlowEnd {
    /// The task it fed.
    pub task: usize,
    /// Bytes moved (all of them when finished).
    pub moved: f64,
    /// Whether it crossed racks.
    pub cross_rack: bool,
    /// The rack it left (its source's).
    pub src_rack: usize,
    /// The rack it entered (its destination's).
    pub dst_rack: usize,
}

/// How flows share links (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sharing {
    /// Each link split equally among its flows; a flow runs at its tightest link's share.
    #[default]
    PerLink,
    /// Max-min fair rates by progressive filling over the flows that share links.
    MaxMin,
}

/// All links and flows of a run.
#[derive(Clone, Debug)]
pub(crate) struct Network {
    links: Vec<Link>,
    /// Per link, each flow's share of it: capacity / flows on it (+∞ when none), kept up to
    /// date as flows come and go, so that a re-rating reads one number per link.
    share: Vec<f64>,
    racks: usize,
    /// The cross-rack link of each ordered rack pair (`src · racks + dst`), `NONE` until used.
    pair: Vec<u32>,
    /// Per rack: (uplink, downlink), created on first use when `uplink_capacity` is set.
    uplinks: Vec<(u32, u32)>,
    flows: Vec<Flow>,
    /// Per flow slot, its rate and links (`Hot`).
    hot: Vec<Hot>,
    free: Vec<usize>,
    stamp: u32,
    cross_capacity: f64,
    /// Bytes/s of each rack's uplink and downlink; `None`: no rack limit.
    uplink_capacity: Option<f64>,
    active: usize,
    /// The racks' measured cross-rack traffic.
    pub meter: TrafficMeter,
    sharing: Sharing,
    /// Max-min scratch: per link, the stamp of the last filling that reached it and its
    /// position in that filling.
    link_seen: Vec<(u32, u32)>,
    /// Max-min scratch: the rate each flow of the component is given.
    next_rate: Vec<f64>,
    /// Max-min scratch reused across calls (no allocation per flow change).
    filling: Filling,
    /// The shaped links' goodput; `None`: loss-free.
    goodput: Option<Goodput>,
    /// Track offered rates for the meter.
    offered: bool,
}

/// One progressive filling's component and state, kept between calls for their allocations.
#[derive(Clone, Debug, Default)]
struct Filling {
    links: Vec<u32>,
    flows: Vec<u32>,
    /// Per component link: capacity left, unfrozen flows, and whether it is full.
    left: Vec<f64>,
    count: Vec<u32>,
    frozen: Vec<bool>,
}

impl Network {
    /// One in-rack link per node; cross-rack links (and rack uplinks, with `uplink_mbps`) are
    /// created on first use.
    pub fn new(
        nodes: usize,
        racks: usize,
        rack_mbps: f64,
        cross_rack_mbps: f64,
        uplink_mbps: Option<f64>,
        sharing: Sharing,
    ) -> Self {
        let capacity = rack_mbps * MBPS_TO_BYTES;
        Self {
            links: (0..nodes)
                .map(|_| Link { capacity, flows: Vec::new(), shaped: false })
                .collect(),
            share: vec![f64::INFINITY; nodes],
            racks,
            pair: vec![NONE; racks * racks],
            uplinks: vec![(NONE, NONE); racks],
            flows: Vec::new(),
            hot: Vec::new(),
            free: Vec::new(),
            stamp: 0,
            cross_capacity: cross_rack_mbps * MBPS_TO_BYTES,
            uplink_capacity: uplink_mbps.map(|m| m * MBPS_TO_BYTES),
            active: 0,
            meter: TrafficMeter::new(racks),
            sharing,
            link_seen: Vec::new(),
            next_rate: Vec::new(),
            filling: Filling::default(),
            goodput: None,
            offered: false,
        }
    }

    /// With `goodput` on the shaped links (`None`: loss-free), and offered rates tracked for
    /// the meter when `offered`.
    pub fn with_loss(mut self, goodput: Option<Goodput>, offered: bool) -> Self {
        self.goodput = goodput;
        self.offered = offered;
        self
    }

    /// A new link of `capacity` bytes/s, `shaped` or not; returns its id.
    fn add_link(&mut self, capacity: f64, shaped: bool) -> u32 {
        self.links.push(Link { capacity, flows: Vec::new(), shaped });
        self.share.push(f64::INFINITY);
        (self.links.len() - 1) as u32
    }

    /// Rack `rack`'s (uplink, downlink), created on first use; `None` without a rack limit.
    fn rack_links(&mut self, rack: usize) -> Option<(u32, u32)> {
        let capacity = self.uplink_capacity?;
        if self.uplinks[rack].0 != NONE {
            return Some(self.uplinks[rack]);
        }
        let pair = (self.add_link(capacity, true), self.add_link(capacity, true));
        self.uplinks[rack] = pair;
        Some(pair)
    }

    /// Link `l`'s share after its flow count changed.
    fn reshare(&mut self, l: usize) {
        let link = &self.links[l];
        self.share[l] = self.usable(l) / link.flows.len() as f64;
    }

    /// Bytes/s link `l` delivers in all with its current flows: its capacity, times `g(n)` on
    /// a shaped link under a [`Goodput`].
    fn usable(&self, l: usize) -> f64 {
        let link = &self.links[l];
        match self.goodput {
            Some(g) if link.shaped => link.capacity * g.factor(link.flows.len()),
            _ => link.capacity,
        }
    }

    /// Flows in progress.
    pub fn active(&self) -> usize {
        self.active
    }

    /// Flows currently on the cross-rack link `src_rack → dst_rack` (0 if never used).
    pub fn cross_load(&self, src_rack: usize, dst_rack: usize) -> usize {
        match self.pair[src_rack * self.racks + dst_rack] {
            NONE => 0,
            l => self.links[l as usize].flows.len(),
        }
    }

    /// Starts moving `bytes` (> 0) from node `src` to node `dst` (distinct) for `task` (a
    /// reduce's shuffle or a map's input); returns the flow's slot. Reschedules the flows it
    /// now shares links with.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        &mut self,
        now: f64,
        task: usize,
        shuffle: bool,
        bytes: u64,
        src: (usize, usize),
        dst: (usize, usize),
        queue: &mut EventQueue,
    ) -> usize {
        let (_, src_rack) = src;
        let (dst_node, dst_rack) = dst;
        let mut links = [dst_node as u32, 0, 0, 0];
        let mut nlinks = 1;
        let cross_rack = src_rack != dst_rack;
        if cross_rack {
            let at = src_rack * self.racks + dst_rack;
            let l = match self.pair[at] {
                NONE => {
                    let l = self.add_link(self.cross_capacity, self.uplink_capacity.is_none());
                    self.pair[at] = l;
                    l
                }
                l => l,
            };
            links[1] = l;
            nlinks = 2;
            if let (Some((up, _)), Some((_, down))) =
                (self.rack_links(src_rack), self.rack_links(dst_rack))
            {
                links[2] = up;
                links[3] = down;
                nlinks = 4;
            }
        }
        let flow = Flow {
            task,
            bytes,
            remaining: bytes as f64,
            last: now,
            due: f64::INFINITY,
            version: 0,
            active: true,
            cross_rack,
            shuffle,
            racks: (src_rack, dst_rack),
            stalled: false,
            offered: 0.0,
        };
        let hot = Hot { rate: 0.0, stamp: 0, nlinks: nlinks as u8, links };
        let id = match self.free.pop() {
            Some(id) => {
                let version = self.flows[id].version.wrapping_add(1);
                self.flows[id] = Flow { version, ..flow };
                self.hot[id] = hot;
                id
            }
            None => {
                self.flows.push(flow);
                self.hot.push(hot);
                self.flows.len() - 1
            }
        };
        self.active += 1;
        if let Some(g) = self.goodput {
            let crowded = links[..nlinks].iter().any(|&l| {
                let link = &self.links[l as usize];
                link.shaped && g.stalls(link.flows.len())
            });
            if crowded {
                // A timeout first: the flow joins its links when its finish event fires.
                let f = &mut self.flows[id];
                f.stalled = true;
                f.due = now + g.rto_s;
                queue.push(f.due, EventKind::FlowDone { flow: id, version: f.version });
                return id;
            }
        }
        self.join(id, now, queue);
        id
    }

    /// Puts flow `id` (of `start`, or at the end of its stall) on its links and re-rates.
    fn join(&mut self, id: usize, now: f64, queue: &mut EventQueue) {
        let (links, nlinks) = (self.hot[id].links, usize::from(self.hot[id].nlinks));
        for &l in &links[..nlinks] {
            self.links[l as usize].flows.push(id as u32);
            self.reshare(l as usize);
        }
        let f = &self.flows[id];
        if f.cross_rack {
            self.meter.rate_changed(now, f.racks, f.shuffle, 0.0, 1);
            if self.offered {
                self.meter.offered_changed(now, f.racks, 0.0, 1);
            }
        }
        self.rebalance(now, links, nlinks, queue);
    }

    /// Handles a `FlowDone` event: `Some` if the flow has moved all its bytes (it is then
    /// removed and its link partners rescheduled), `None` if the event is stale, or early (the
    /// flow slowed down since: it is rescheduled at its true end).
    pub fn finish(
        &mut self,
        flow: usize,
        version: u32,
        now: f64,
        queue: &mut EventQueue,
    ) -> Option<FlowEnd> {
        let f = self.flows.get_mut(flow)?;
        if !f.active || f.version != version {
            return None;
        }
        if f.stalled {
            // Its timeout is over: from now it moves its bytes.
            f.stalled = false;
            f.last = now;
            f.due = f64::INFINITY;
            self.join(flow, now, queue);
            return None;
        }
        let rate = self.hot[flow].rate;
        settle(f, rate, now);
        if f.remaining > DONE_BYTES {
            // Scheduled before the flow slowed down: fire again when it really ends.
            f.due = now + f.remaining / rate;
            queue.push(f.due, EventKind::FlowDone { flow, version });
            return None;
        }
        let end = FlowEnd {
            task: f.task,
            moved: f.bytes as f64,
            cross_rack: f.cross_rack,
            src_rack: f.racks.0,
            dst_rack: f.racks.1,
        };
        self.remove(flow, now, queue);
        Some(end)
    }

    /// Kills flow `flow` of `task` if it is still in progress (its task was preempted);
    /// returns the bytes it had moved. A slot since reused by another task is left alone.
    pub fn cancel(
        &mut self,
        flow: usize,
        task: usize,
        now: f64,
        queue: &mut EventQueue,
    ) -> Option<FlowEnd> {
        let f = self.flows.get_mut(flow)?;
        if !f.active || f.task != task {
            return None;
        }
        settle(f, self.hot[flow].rate, now);
        let end = FlowEnd {
            task: f.task,
            moved: (f.bytes as f64 - f.remaining).max(0.0),
            cross_rack: f.cross_rack,
            src_rack: f.racks.0,
            dst_rack: f.racks.1,
        };
        self.remove(flow, now, queue);
        Some(end)
    }

    fn remove(&mut self, flow: usize, now: f64, queue: &mut EventQueue) {
        let (links, nlinks) = {
            let f = &mut self.flows[flow];
            let h = &mut self.hot[flow];
            f.active = false;
            f.remaining = 0.0;
            f.version = f.version.wrapping_add(1);
            if f.stalled {
                // Cancelled in its timeout: on no link, unknown to the meter.
                f.stalled = false;
                self.free.push(flow);
                self.active -= 1;
                return;
            }
            if f.cross_rack {
                self.meter.rate_changed(now, f.racks, f.shuffle, -h.rate, -1);
                if self.offered {
                    self.meter.offered_changed(now, f.racks, -f.offered, -1);
                    f.offered = 0.0;
                }
            }
            h.rate = 0.0;
            (h.links, usize::from(h.nlinks))
        };
        for &l in &links[..nlinks] {
            let on = &mut self.links[l as usize].flows;
            if let Some(pos) = on.iter().position(|&g| g as usize == flow) {
                on.swap_remove(pos);
            }
            self.reshare(l as usize);
        }
        self.free.push(flow);
        self.active -= 1;
        self.rebalance(now, links, nlinks, queue);
    }

    /// Settles and re-rates every flow on `links`. A flow that now ends sooner than its
    /// scheduled event gets a new version and event; one that ends later keeps its event,
    /// which fires early and is then pushed to the true end (`finish`): a slowdown costs no
    /// heap entry, so the heap holds O(flows) entries rather than one per rate change.
    fn rebalance(&mut self, now: f64, links: [u32; 4], nlinks: usize, queue: &mut EventQueue) {
        if self.sharing == Sharing::MaxMin {
            self.rebalance_max_min(now, &links[..nlinks], queue);
            return;
        }
        if self.stamp == u32::MAX {
            self.hot.iter_mut().for_each(|h| h.stamp = 0);
            self.stamp = 0;
        }
        self.stamp += 1;
        let stamp = self.stamp;
        let share = &self.share;
        for &l in &links[..nlinks] {
            for &g in &self.links[l as usize].flows {
                let h = &mut self.hot[g as usize];
                if h.stamp == stamp {
                    continue;
                }
                h.stamp = stamp;
                let rate = h.links[..usize::from(h.nlinks)]
                    .iter()
                    .map(|&k| share[k as usize])
                    .fold(f64::INFINITY, f64::min);
                if self.offered {
                    offer(g as usize, h, &mut self.flows, &self.links, share, &mut self.meter, now);
                }
                if rate == h.rate {
                    continue;
                }
                let old = h.rate;
                h.rate = rate;
                rerate(
                    g as usize,
                    &mut self.flows[g as usize],
                    &mut self.meter,
                    (old, rate),
                    now,
                    queue,
                );
            }
        }
    }
}

impl Network {
    /// Max-min fair rates for every flow connected to `touched` through shared links, by
    /// progressive filling; then each changed flow is settled and rescheduled as `rebalance`
    /// does.
    ///
    /// # Complexity
    /// O(L · (L + F·k)) for the component's L links and F flows on k ≤ 4 links each (a
    /// bottleneck found by a scan per round, at most L rounds).
    fn rebalance_max_min(&mut self, now: f64, touched: &[u32], queue: &mut EventQueue) {
        // Each call uses two stamps (in the component, and frozen): reset before they wrap.
        if self.stamp >= u32::MAX - 2 {
            self.hot.iter_mut().for_each(|h| h.stamp = 0);
            self.link_seen.iter_mut().for_each(|s| s.0 = 0);
            self.stamp = 0;
        }
        self.stamp += 1;
        let stamp = self.stamp;
        self.link_seen.resize(self.links.len(), (0, 0));
        self.next_rate.resize(self.flows.len(), 0.0);
        // The component: links and flows reachable from the touched links.
        let mut fill = std::mem::take(&mut self.filling);
        let Filling { links: comp_links, flows: comp_flows, left, count, frozen } = &mut fill;
        comp_links.clear();
        comp_flows.clear();
        for &l in touched {
            if self.link_seen[l as usize].0 != stamp {
                self.link_seen[l as usize] = (stamp, comp_links.len() as u32);
                comp_links.push(l);
            }
        }
        let mut next = 0;
        while next < comp_links.len() {
            let l = comp_links[next] as usize;
            next += 1;
            for &g in &self.links[l].flows {
                let h = &mut self.hot[g as usize];
                if h.stamp == stamp {
                    continue;
                }
                h.stamp = stamp;
                comp_flows.push(g);
                for &k in &h.links[..usize::from(h.nlinks)] {
                    if self.link_seen[k as usize].0 != stamp {
                        self.link_seen[k as usize] = (stamp, comp_links.len() as u32);
                        comp_links.push(k);
                    }
                }
            }
        }
        // Progressive filling: per component link its capacity left and its unfrozen flows.
        left.clear();
        left.extend(comp_links.iter().map(|&l| self.usable(l as usize)));
        count.clear();
        count.extend(comp_links.iter().map(|&l| self.links[l as usize].flows.len() as u32));
        frozen.clear();
        frozen.resize(comp_links.len(), false);
        loop {
            let mut best: Option<(usize, f64)> = None;
            for (i, (&c, &n)) in left.iter().zip(count.iter()).enumerate() {
                if n == 0 || frozen[i] {
                    continue;
                }
                let share = c.max(0.0) / f64::from(n);
                if best.is_none_or(|(_, b)| share < b) {
                    best = Some((i, share));
                }
            }
            let Some((i, share)) = best else { break };
            frozen[i] = true;
            let l = comp_links[i] as usize;
            for &g in &self.links[l].flows {
                let h = &mut self.hot[g as usize];
                // A flow frozen by an earlier link is marked by a stamp one past this round's.
                if h.stamp != stamp {
                    continue;
                }
                h.stamp = stamp + 1;
                self.next_rate[g as usize] = share;
                for &k in &h.links[..usize::from(h.nlinks)] {
                    let j = self.link_seen[k as usize].1 as usize;
                    left[j] -= share;
                    count[j] -= 1;
                }
            }
        }
        // Apply: settle at the old rate, reschedule when the flow now ends sooner.
        for &g in comp_flows.iter() {
            let g = g as usize;
            self.hot[g].stamp = stamp;
            if self.offered {
                let h = self.hot[g];
                offer(g, &h, &mut self.flows, &self.links, &self.share, &mut self.meter, now);
            }
            let rate = self.next_rate[g];
            let old = self.hot[g].rate;
            if rate == old {
                continue;
            }
            self.hot[g].rate = rate;
            rerate(g, &mut self.flows[g], &mut self.meter, (old, rate), now, queue);
        }
        self.filling = fill;
        // The next call's stamp must not collide with the "frozen" mark used above.
        self.stamp += 1;
    }
}

/// Flow `g` (on the links of `h`) gets its offered rate, the least share of its unshaped
/// links, and the meter is told of a change (cross-rack flows only).
fn offer(
    g: usize,
    h: &Hot,
    flows: &mut [Flow],
    links: &[Link],
    share: &[f64],
    meter: &mut TrafficMeter,
    now: f64,
) {
    let f = &mut flows[g];
    if !f.cross_rack {
        return;
    }
    let rate = h.links[..usize::from(h.nlinks)]
        .iter()
        .filter(|&&k| !links[k as usize].shaped)
        .map(|&k| share[k as usize])
        .fold(f64::INFINITY, f64::min);
    if rate != f.offered {
        meter.offered_changed(now, f.racks, rate - f.offered, 0);
        f.offered = rate;
    }
}

/// Flow `g` (`f`) goes from rate `old` to `new` at `now`: its bytes so far are settled at the
/// old rate, the meter is told, and a new finish event is pushed when it now ends sooner than
/// its scheduled one (one that ends later keeps its event, which fires early: `finish`).
fn rerate(
    g: usize,
    f: &mut Flow,
    meter: &mut TrafficMeter,
    (old, new): (f64, f64),
    now: f64,
    queue: &mut EventQueue,
) {
    settle(f, old, now);
    if f.cross_rack {
        meter.rate_changed(now, f.racks, f.shuffle, new - old, 0);
    }
    let at = now + f.remaining / new;
    if at < f.due {
        f.version = f.version.wrapping_add(1);
        f.due = at;
        queue.push(at, EventKind::FlowDone { flow: g, version: f.version });
    }
}

/// Counts the bytes moved since the flow's last change at its current `rate`.
fn settle(f: &mut Flow, rate: f64, now: f64) {
    f.remaining = (f.remaining - rate * (now - f.last)).max(0.0);
    f.last = now;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::NetSatMeasure;

    /// Pops events until the first current flow end.
    fn next_end(net: &mut Network, q: &mut EventQueue) -> Option<(f64, FlowEnd)> {
        while let Some(e) = q.pop() {
            if let EventKind::FlowDone { flow, version } = e.kind {
                if let Some(end) = net.finish(flow, version, e.time(), q) {
                    return Some((e.time(), end));
                }
            }
        }
        None
    }

    #[test]
    fn max_min_gives_the_in_rack_read_what_the_capped_cross_rack_read_leaves() {
        // Node 1's 1,000 Mbit/s link carries an in-rack read from node 0 and a cross-rack read
        // from node 2 (rack 1) held to 100 Mbit/s by its pair link. Per link: 500 and 100
        // Mbit/s, so 125 MB in-rack takes 2 s; max-min: 900 and 100, 125 MB takes 1.111 s.
        for (sharing, want) in [(Sharing::PerLink, 2.0), (Sharing::MaxMin, 1.0 / 0.9)] {
            let mut net = Network::new(3, 2, 1000.0, 100.0, None, sharing);
            let mut q = EventQueue::default();
            net.start(0.0, 7, false, 125_000_000, (0, 0), (1, 0), &mut q);
            net.start(0.0, 8, true, 1_000_000_000, (2, 1), (1, 0), &mut q);
            let (t, end) = next_end(&mut net, &mut q).unwrap();
            assert_eq!(end.task, 7, "{sharing:?}");
            assert!((t - want).abs() < 1e-9, "{sharing:?}: {t} s");
            // Alone, the cross-rack read keeps its 100 Mbit/s: 1 GB in 80 s from 0.
            let (t, end) = next_end(&mut net, &mut q).unwrap();
            assert_eq!(end.task, 8);
            assert!((t - 80.0).abs() < 1e-6, "{sharing:?}: {t} s");
        }
    }

    #[test]
    fn max_min_rates_fill_every_link_a_flow_is_held_by() {
        // Racks of one node each; uplinks of 100 Mbit/s. Flows 0→2, 1→2 (two racks into rack
        // 2's downlink) and 0→1. Rack 0's uplink carries 0→2 and 0→1; rack 2's downlink 0→2
        // and 1→2. Max-min: every flow 50 Mbit/s (both links full); none can rise alone.
        let mut net = Network::new(3, 3, 1000.0, 1000.0, Some(100.0), Sharing::MaxMin);
        let mut q = EventQueue::default();
        let a = net.start(0.0, 1, true, 1 << 30, (0, 0), (2, 2), &mut q);
        let b = net.start(0.0, 2, true, 1 << 30, (1, 1), (2, 2), &mut q);
        let c = net.start(0.0, 3, true, 1 << 30, (0, 0), (1, 1), &mut q);
        let mbps = |net: &Network, f: usize| net.hot[f].rate / MBPS_TO_BYTES;
        for f in [a, b, c] {
            assert!((mbps(&net, f) - 50.0).abs() < 1e-9, "flow {f}: {}", mbps(&net, f));
        }
        // Without 0→1, rack 2's downlink is the only bottleneck: 0→2 and 1→2 at 50 each, and
        // rack 0's uplink has 50 to spare.
        net.cancel(c, 3, 0.0, &mut q).unwrap();
        assert!((mbps(&net, a) - 50.0).abs() < 1e-9 && (mbps(&net, b) - 50.0).abs() < 1e-9);
    }

    proptest::proptest! {
        /// Max-min's characterisation: no link is over its capacity, and every flow has a
        /// bottleneck, a full link on which no flow runs faster than it.
        #[test]
        fn max_min_rates_are_feasible_and_every_flow_has_a_bottleneck(
            flows in proptest::collection::vec((0usize..6, 0usize..6), 1..12),
            uplink in proptest::option::of(50.0f64..400.0),
        ) {
            // 6 nodes in 3 racks of 2.
            let mut net = Network::new(6, 3, 300.0, 200.0, uplink, Sharing::MaxMin);
            let mut q = EventQueue::default();
            for (i, &(src, dst)) in flows.iter().enumerate() {
                if src != dst {
                    net.start(0.0, i, false, 1 << 30, (src, src / 2), (dst, dst / 2), &mut q);
                }
            }
            let active: Vec<usize> = (0..net.flows.len()).filter(|&f| net.flows[f].active).collect();
            let load = |l: usize| -> f64 {
                net.links[l].flows.iter().map(|&g| net.hot[g as usize].rate).sum()
            };
            for l in 0..net.links.len() {
                proptest::prop_assert!(load(l) <= net.links[l].capacity * (1.0 + 1e-9));
            }
            for &f in &active {
                let h = net.hot[f];
                let bottleneck = h.links[..usize::from(h.nlinks)].iter().any(|&l| {
                    let l = l as usize;
                    let full = load(l) >= net.links[l].capacity * (1.0 - 1e-9);
                    let top = net.links[l].flows.iter().all(|&g| net.hot[g as usize].rate <= h.rate * (1.0 + 1e-9));
                    full && top
                });
                proptest::prop_assert!(bottleneck, "flow {} at {} has no bottleneck", f, h.rate);
            }
        }
    }

    /// `n` flows from rack 0 (nodes 0..n) to rack 1 (nodes n..2n), each on its own NICs, on
    /// a 100 Mbit/s uplink (NICs and pair links 1,000 Mbit/s).
    fn uplink_with(n: usize, sharing: Sharing, goodput: Option<Goodput>) -> (Network, EventQueue) {
        let mut net =
            Network::new(2 * n, 2, 1000.0, 1000.0, Some(100.0), sharing).with_loss(goodput, true);
        let mut q = EventQueue::default();
        for i in 0..n {
            net.start(0.0, i, true, 1 << 30, (i, 0), (n + i, 1), &mut q);
        }
        (net, q)
    }

    #[test]
    fn hand_computed_goodput_on_a_shared_uplink() {
        // g(n) = max(0.1, 1 / (1 + 0.5 (n − 2))), no stall. Uplink C = 12.5 MB/s.
        // n = 2: g = 1, 6.25 MB/s each. n = 4: g = 1 / (1 + 1) = 0.5, each 12.5 · 0.5 / 4 =
        // 1.5625 MB/s. n = 30: 1 / (1 + 14) < 0.1, the floor: 12.5 · 0.1 / 30 MB/s each. The
        // same in both models: every flow is held by the uplink alone.
        let g = Goodput { n0: 2, beta: 0.5, floor: 0.1, rto_s: 0.0 };
        for sharing in [Sharing::PerLink, Sharing::MaxMin] {
            for (n, each) in [(2, 6.25e6), (4, 1.5625e6), (30, 1.25e6 / 30.0)] {
                let (net, _) = uplink_with(n, sharing, Some(g));
                for f in 0..n {
                    let rate = net.hot[f].rate;
                    assert!((rate - each).abs() < 1e-6, "{sharing:?} n = {n}: {rate}");
                }
            }
            // Loss-free, 4 flows split the full 12.5 MB/s.
            let (net, _) = uplink_with(4, sharing, None);
            assert!((net.hot[0].rate - 3.125e6).abs() < 1e-6);
        }
    }

    #[test]
    fn offered_rate_is_the_unshaped_links_share() {
        // 4 flows on the 100 Mbit/s uplink at g = 0.5 (1.5625 MB/s each, 6.25 MB/s in all);
        // each is offered its pair link's share, 125 MB/s / 4 = 31.25 MB/s (125 MB/s in all).
        // After 8 s rack 0 has sent 50 MB and offered 1 GB.
        let g = Goodput { n0: 2, beta: 0.5, floor: 0.1, rto_s: 0.0 };
        for sharing in [Sharing::PerLink, Sharing::MaxMin] {
            let (net, _) = uplink_with(4, sharing, Some(g));
            let (sent, _) = net.meter.rack_measure(0, 8.0, NetSatMeasure::Delivered);
            let (offered, _) = net.meter.rack_measure(0, 8.0, NetSatMeasure::Offered);
            assert!((sent - 50e6).abs() < 1.0 && (offered - 1e9).abs() < 1.0, "{sent} {offered}");
        }
    }

    #[test]
    fn in_rack_links_never_lose_goodput() {
        // 20 in-rack reads into node 0 under a harsh curve: the NIC is not shaped, so each gets
        // 125 MB/s / 20 = 6.25 MB/s, as loss-free.
        let g = Goodput { n0: 1, beta: 10.0, floor: 0.1, rto_s: 0.2 };
        for sharing in [Sharing::PerLink, Sharing::MaxMin] {
            let mut net =
                Network::new(21, 1, 1000.0, 100.0, None, sharing).with_loss(Some(g), false);
            let mut q = EventQueue::default();
            for i in 1..=20 {
                net.start(0.0, i, false, 1 << 20, (i, 0), (0, 0), &mut q);
            }
            assert!((0..20).all(|f| (net.hot[f].rate - 6.25e6).abs() < 1e-6));
        }
    }

    #[test]
    fn a_flow_joining_a_crowded_link_waits_out_its_timeout() {
        // n0 = 1, no loss (β = 0), RTO 0.2 s. Two 12.5 MB flows on a 12.5 MB/s uplink at 0 s:
        // the first runs alone until 0.2 s (2.5 MB), then both at 6.25 MB/s; the first ends at
        // 0.2 + 10 / 6.25 = 1.8 s, the second (10 MB moved) finishes its last 2.5 MB alone at
        // 12.5 MB/s by 2.0 s.
        let g = Goodput { n0: 1, beta: 0.0, floor: 1.0, rto_s: 0.2 };
        for sharing in [Sharing::PerLink, Sharing::MaxMin] {
            let mut net =
                Network::new(4, 2, 1000.0, 1000.0, Some(100.0), sharing).with_loss(Some(g), false);
            let mut q = EventQueue::default();
            net.start(0.0, 1, true, 12_500_000, (0, 0), (2, 1), &mut q);
            net.start(0.0, 2, true, 12_500_000, (1, 0), (3, 1), &mut q);
            assert_eq!(net.active(), 2);
            let (t1, e1) = next_end(&mut net, &mut q).unwrap();
            let (t2, e2) = next_end(&mut net, &mut q).unwrap();
            assert_eq!((e1.task, e2.task), (1, 2));
            assert!((t1 - 1.8).abs() < 1e-9 && (t2 - 2.0).abs() < 1e-9, "{sharing:?}: {t1} {t2}");
            // Cancelled in its timeout, a flow has moved nothing and frees its slot.
            let b = net.start(3.0, 3, true, 12_500_000, (0, 0), (2, 1), &mut q);
            let c = net.start(3.0, 4, true, 12_500_000, (1, 0), (3, 1), &mut q);
            assert_eq!(net.cancel(c, 4, 3.1, &mut q).unwrap().moved, 0.0);
            let (t, e) = next_end(&mut net, &mut q).unwrap();
            assert_eq!(e.task, 3);
            assert!((t - 4.0).abs() < 1e-9, "{t}");
            assert!(net.cancel(b, 3, 4.0, &mut q).is_none() && net.active() == 0);
        }
    }

    proptest::proptest! {
        /// With a goodput curve, no link carries more than it delivers, `capacity · g(n)` ≤
        /// capacity; with a curve that never engages (n0 above any load, no stall), or offered
        /// rates tracked, every rate is what the loss-free network gives, bit for bit.
        #[test]
        fn goodput_never_overfills_a_link_and_is_neutral_when_it_never_engages(
            flows in proptest::collection::vec((0usize..8, 0usize..8), 1..16),
            uplink in proptest::option::of(50.0f64..400.0),
            max_min in proptest::bool::ANY,
            n0 in 1u32..4,
            beta in 0.0f64..2.0,
            floor in 0.05f64..1.0,
        ) {
            let sharing = if max_min { Sharing::MaxMin } else { Sharing::PerLink };
            let g = Goodput { n0, beta, floor, rto_s: 0.0 };
            let idle = Goodput { n0: u32::MAX, ..g };
            let build = |goodput: Option<Goodput>, offered: bool| {
                // 8 nodes in 4 racks of 2.
                let mut net = Network::new(8, 4, 300.0, 200.0, uplink, sharing)
                    .with_loss(goodput, offered);
                let mut q = EventQueue::default();
                for (i, &(src, dst)) in flows.iter().enumerate() {
                    if src != dst {
                        net.start(0.0, i, false, 1 << 30, (src, src / 2), (dst, dst / 2), &mut q);
                    }
                }
                net
            };
            let lossy = build(Some(g), true);
            for (l, link) in lossy.links.iter().enumerate() {
                let load: f64 = link.flows.iter().map(|&f| lossy.hot[f as usize].rate).sum();
                proptest::prop_assert!(load <= lossy.usable(l) * (1.0 + 1e-9));
                proptest::prop_assert!(load <= link.capacity * (1.0 + 1e-9));
            }
            let plain = build(None, false);
            for other in [build(Some(idle), false), build(None, true)] {
                let rates = |n: &Network| n.hot.iter().map(|h| h.rate.to_bits()).collect::<Vec<_>>();
                proptest::prop_assert_eq!(rates(&plain), rates(&other));
            }
        }
    }

    #[test]
    fn lone_in_rack_flow_runs_at_rack_rate() {
        // 125 MB at 1000 Mbit/s = 125 MB/s → 1 s.
        let mut net = Network::new(2, 3, 1000.0, 100.0, None, Sharing::PerLink);
        let mut q = EventQueue::default();
        net.start(0.0, 9, false, 125_000_000, (0, 0), (1, 0), &mut q);
        let (t, end) = next_end(&mut net, &mut q).unwrap();
        assert!((t - 1.0).abs() < 1e-12);
        assert_eq!(end.task, 9);
        assert!(!end.cross_rack);
    }

    #[test]
    fn two_flows_share_a_link_then_the_survivor_speeds_up() {
        // Node 2 (rack 0) reads 125 MB from node 0 and 62.5 MB from node 1, both in rack 0.
        // Shared NIC of 125 MB/s: 62.5 MB/s each, the small one ends at t = 1 s having moved
        // 62.5 MB; the big one has 62.5 MB left, now at 125 MB/s: ends at 1.5 s.
        let mut net = Network::new(3, 3, 1000.0, 100.0, None, Sharing::PerLink);
        let mut q = EventQueue::default();
        net.start(0.0, 1, false, 125_000_000, (0, 0), (2, 0), &mut q);
        net.start(0.0, 2, false, 62_500_000, (1, 0), (2, 0), &mut q);
        let (t1, e1) = next_end(&mut net, &mut q).unwrap();
        assert_eq!(e1.task, 2);
        assert!((t1 - 1.0).abs() < 1e-12);
        let (t2, e2) = next_end(&mut net, &mut q).unwrap();
        assert_eq!(e2.task, 1);
        assert!((t2 - 1.5).abs() < 1e-12);
        assert_eq!(net.active(), 0);
    }

    #[test]
    fn cross_rack_flows_share_the_rack_pair_link() {
        // Two 12.5 MB reads from rack 1 into two nodes of rack 0: each NIC is alone
        // (125 MB/s) but the r1 → r0 link (12.5 MB/s) is shared: 6.25 MB/s each → 2 s.
        let mut net = Network::new(4, 3, 1000.0, 100.0, None, Sharing::PerLink);
        let mut q = EventQueue::default();
        net.start(0.0, 1, false, 12_500_000, (2, 1), (0, 0), &mut q);
        net.start(0.0, 2, false, 12_500_000, (3, 1), (1, 0), &mut q);
        assert_eq!(net.cross_load(1, 0), 2);
        let (t1, e1) = next_end(&mut net, &mut q).unwrap();
        let (t2, _) = next_end(&mut net, &mut q).unwrap();
        assert!(e1.cross_rack);
        assert!((t1 - 2.0).abs() < 1e-12 && (t2 - 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_rack_uplink_is_shared_by_flows_to_different_racks() {
        // ShuffleWatcher §4.1's oversubscribed rack: nodes 0, 1 in rack 0 send 12.5 MB each to
        // rack 1 (node 2) and rack 2 (node 3). Each pair link (100 Mbit/s = 12.5 MB/s) is
        // alone, so without a rack limit both end at 1 s; with a 100 Mbit/s uplink out of
        // rack 0 they share 12.5 MB/s: 6.25 MB/s each → 2 s.
        for (uplink, expected) in [(None, 1.0), (Some(100.0), 2.0)] {
            let mut net = Network::new(4, 3, 1000.0, 100.0, uplink, Sharing::PerLink);
            let mut q = EventQueue::default();
            net.start(0.0, 1, false, 12_500_000, (0, 0), (2, 1), &mut q);
            net.start(0.0, 2, false, 12_500_000, (1, 0), (3, 2), &mut q);
            for _ in 0..2 {
                let (t, _) = next_end(&mut net, &mut q).unwrap();
                assert!((t - expected).abs() < 1e-12, "{uplink:?}: {t}");
            }
        }
    }

    #[test]
    fn a_rack_downlink_is_shared_by_flows_from_different_racks() {
        // Racks 1 and 2 each send 12.5 MB into rack 0 (nodes 0 and 1) under a 200 Mbit/s rack
        // limit (25 MB/s): each pair link allows 12.5 MB/s and the downlink 12.5 MB/s each,
        // so both end at 1 s; at 100 Mbit/s (12.5 MB/s shared) both end at 2 s.
        for (uplink, expected) in [(200.0, 1.0), (100.0, 2.0)] {
            let mut net = Network::new(4, 3, 1000.0, 100.0, Some(uplink), Sharing::PerLink);
            let mut q = EventQueue::default();
            net.start(0.0, 1, false, 12_500_000, (2, 1), (0, 0), &mut q);
            net.start(0.0, 2, false, 12_500_000, (3, 2), (1, 0), &mut q);
            for _ in 0..2 {
                let (t, _) = next_end(&mut net, &mut q).unwrap();
                assert!((t - expected).abs() < 1e-12, "{uplink}: {t}");
            }
        }
    }

    #[test]
    fn cancel_reports_partial_bytes() {
        let mut net = Network::new(2, 3, 1000.0, 100.0, None, Sharing::PerLink);
        let mut q = EventQueue::default();
        let f = net.start(0.0, 1, false, 125_000_000, (0, 0), (1, 0), &mut q);
        assert!(net.cancel(f, 2, 0.5, &mut q).is_none());
        let end = net.cancel(f, 1, 0.5, &mut q).unwrap();
        assert!((end.moved - 62_500_000.0).abs() < 1e-3);
        assert!(next_end(&mut net, &mut q).is_none());
    }
}

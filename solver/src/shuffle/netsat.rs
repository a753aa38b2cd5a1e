//! NetSat, ShuffleWatcher's network monitor (Ahmad et al. §3.1): a rack's network is saturated
//! when its measured cross-rack traffic over the cross-rack bandwidth available to it exceeds
//! NWSaturationThreshold (§4.2: 400 of 500 Mbit/s, 80%).
//!
//! placer's service is stateless, so the master does the measuring and sends the result each
//! epoch (`cluster.racks[].cross_rack_traffic_mbps`, the larger of the uplink's two
//! directions); NetSat here only compares. The paper measures per node against "the cross-rack
//! bandwidth available to the node" and uses the limited notions of within-rack and cross-rack
//! traffic; placer aggregates per rack, the unit the paper's testbed limits (500 Mbit/s per
//! sub-cluster, §4.1). A rack without `uplink_mbps` has its nodes' bisection bandwidth:
//! nodes × `cluster.network.cross_rack_mbps`.

use crate::index::Indexed;

/// Which racks' networks are saturated this epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct NetSat {
    /// Utilisation per rack: measured cross-rack traffic / uplink capacity (≥ 0; 0 for a rack
    /// without nodes or measurement).
    pub utilisation: Vec<f64>,
    /// NetworkSaturated per rack: utilisation > NWSaturationThreshold.
    pub saturated: Vec<bool>,
}

impl NetSat {
    /// NetSat's flag for every rack of the snapshot: utilisation(r) = traffic(r) / uplink(r),
    /// both in Mbit/s, with uplink(r) = `racks[r].uplink_mbps`, else nodes(r) ·
    /// `cross_rack_mbps`; saturated(r) = utilisation(r) > `policy.saturation_threshold`.
    ///
    /// # Complexity
    /// O(racks + nodes) time and space.
    ///
    /// # Errors
    /// None: the inputs are validated (traffic ≥ 0, capacities > 0); a rack with no nodes and
    /// no explicit uplink has no capacity and is never saturated.
    ///
    /// # Examples
    /// §4.2's setting: a sub-cluster of 10 nodes whose uplink is limited to 500 Mbit/s, with a
    /// threshold of 80% (400 Mbit/s). Measured 450 Mbit/s of cross-rack traffic saturates it;
    /// the other rack, at 350 Mbit/s and no explicit uplink (10 nodes × 50 Mbit/s = 500), is
    /// not.
    /// ```
    /// use placer_solver::{Indexed, shuffle::NetSat};
    /// let nodes: String = (0..20)
    ///     .map(|i| format!(r#"{{"id": "n{i}", "rack": "r{}"}}"#, i / 10))
    ///     .collect::<Vec<_>>()
    ///     .join(",");
    /// let text = format!(r#"{{"schema_version": 1, "cluster": {{
    ///   "racks": [{{"id": "r0", "uplink_mbps": 500, "cross_rack_traffic_mbps": 450}},
    ///             {{"id": "r1", "cross_rack_traffic_mbps": 350}}],
    ///   "nodes": [{nodes}], "network": {{"cross_rack_mbps": 50}}}},
    ///   "policy": {{"algorithm": "shuffle_watcher", "saturation_threshold": 0.8}}}}"#);
    /// let req = placer_models::parse_request(text.as_bytes()).unwrap();
    /// let sat = NetSat::new(&Indexed::new(&req));
    /// assert_eq!(sat.saturated, vec![true, false]);
    /// assert!((sat.utilisation[0] - 0.9).abs() < 1e-12 && (sat.utilisation[1] - 0.7).abs() < 1e-12);
    /// ```
    pub fn new(ix: &Indexed<'_>) -> Self {
        let req = ix.req;
        let racks = ix.racks();
        let mut nodes = vec![0u32; racks];
        for &r in &ix.node_rack {
            if let Some(c) = nodes.get_mut(r as usize) {
                *c += 1;
            }
        }
        let per_node = req.cluster.network.cross_rack_mbps;
        let threshold =
            crate::settings::read::<super::ShuffleKnobs>(&req.policy).saturation_threshold;
        let utilisation: Vec<f64> = req
            .cluster
            .racks
            .iter()
            .zip(&nodes)
            .map(|(rack, &n)| {
                let capacity = rack.uplink_mbps.unwrap_or(f64::from(n) * per_node);
                let traffic = rack.cross_rack_traffic_mbps.unwrap_or(0.0);
                if capacity > 0.0 {
                    traffic / capacity
                } else {
                    0.0
                }
            })
            .collect();
        let saturated = utilisation.iter().map(|&u| u > threshold).collect();
        Self { utilisation, saturated }
    }

    /// Whether rack `rack`'s network is saturated (false for an unknown rack).
    pub fn at(&self, rack: u32) -> bool {
        self.saturated.get(rack as usize).copied().unwrap_or(false)
    }
}

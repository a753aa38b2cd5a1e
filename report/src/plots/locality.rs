//! The map-task locality plot of `placer whatif` (docs/simulator.md, "Outputs"): grouped bars, per
//! locality class (node-local, rack-local, remote) one bar per policy, as in lsap-sched (Guo et
//! al.) Fig. 3.

use super::canvas::{finite_or_zero, legend, no_reports_message, Axis, Body, Plot, TickFormat};
use placer_sim::SimReport;

/// Grouped bars: per locality class, one bar per policy (lsap-sched Fig. 3).
pub(super) fn locality_plot(reports: &[&SimReport]) -> Plot {
    let bars: Vec<[f64; 3]> = reports
        .iter()
        .map(|r| {
            let s = &r.summary;
            [s.node_local, s.rack_local, s.remote]
                .map(|share| (100.0 * finite_or_zero(share)).clamp(0.0, 100.0))
        })
        .collect();
    let message = no_reports_message(reports).or_else(|| {
        reports
            .iter()
            .all(|r| r.summary.map_tasks == 0)
            .then(|| "no completed map tasks".to_owned())
    });
    Plot {
        title: "Map-task data locality by policy".to_owned(),
        subtitle: "where completed maps with replicas ran (cf. lsap-sched Fig. 3)".to_owned(),
        x: Axis {
            desc: "locality of the map task".to_owned(),
            range: 0.0..3.0,
            ticks: vec![0.5, 1.5, 2.5],
            format: TickFormat::Locality,
        },
        y: Axis {
            desc: "share of completed maps with replicas (%)".to_owned(),
            // Headroom above 100 % for the value labels.
            range: 0.0..110.0,
            ticks: vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0],
            format: TickFormat::Decimals(0),
        },
        legend: legend(reports, |r| {
            let scored: usize =
                r.jobs.iter().map(|j| j.maps_node_local + j.maps_rack_local + j.maps_remote).sum();
            format!("{scored} of {} maps", r.summary.map_tasks)
        }),
        body: Body::LocalityBars(bars),
        message,
    }
}

//! `placer whatif --gangs`: a trace's multi-map jobs replayed as gangs (all-or-nothing jobs,
//! KEP-4671's PodGroup; kept inside a domain, Kueue TAS's required or preferred topology; the
//! transformation is [`placer_datasets::make_gangs`]): the flag's parser, the cluster's domain
//! sizes it checks the gangs against, and the line that says what was made. A value out of its
//! domain is clap's usage error (exit 2), which names the flag.

use super::load::Input;
use crate::error::CliError;
use placer_datasets::{make_gangs, TraceGangs, TraceGangsOutcome};
use placer_models::{TopologyLevel, TopologyMode};
use placer_sim::ClusterSource;

/// `--gangs`' value: the gang settings, the seed `None` for `--seed`'s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GangsArg {
    /// Most maps of a job made a gang.
    pub max_maps: usize,
    /// `node` or `rack`.
    pub level: TopologyLevel,
    /// `required` or `preferred`.
    pub mode: TopologyMode,
    /// Fraction of the eligible jobs made gangs.
    pub share: f64,
    /// Seed of the draws; `None`: `--seed`.
    pub seed: Option<u64>,
}

/// `--gangs max_maps=N[,level=rack|node][,mode=required|preferred][,share=F][,seed=S]`: each key
/// at most once; defaults level `rack`, mode `required`, share 1, seed `--seed`. Example:
/// `max_maps=80,mode=preferred` → jobs of 2–80 maps, every one a gang preferring a rack.
pub fn parse_gangs(s: &str) -> Result<GangsArg, String> {
    let mut g = GangsArg {
        max_maps: 0,
        level: TopologyLevel::Rack,
        mode: TopologyMode::Required,
        share: 1.0,
        seed: None,
    };
    let mut seen: Vec<&str> = Vec::new();
    for kv in s.split(',').map(str::trim).filter(|kv| !kv.is_empty()) {
        let (k, v) = kv.split_once('=').ok_or_else(|| format!("{kv:?} is not key=value"))?;
        let (k, v) = (k.trim(), v.trim());
        if seen.contains(&k) {
            return Err(format!("key {k:?} given twice"));
        }
        match k {
            "max_maps" => {
                g.max_maps = v.parse().map_err(|e| format!("max_maps={v:?} is not a count: {e}"))?
            }
            "level" => {
                g.level = match v {
                    "rack" => TopologyLevel::Rack,
                    "node" => TopologyLevel::Node,
                    "block" => {
                        return Err("level=block: the simulated clusters have no blocks, so a \
                                    block gang could never start; use rack or node"
                            .into())
                    }
                    _ => return Err(format!("level={v:?}: use rack or node")),
                }
            }
            "mode" => {
                g.mode = match v {
                    "required" => TopologyMode::Required,
                    "preferred" => TopologyMode::Preferred,
                    _ => return Err(format!("mode={v:?}: use required or preferred")),
                }
            }
            "share" => {
                g.share = v.parse().map_err(|e| format!("share={v:?} is not a number: {e}"))?;
                if !(0.0..=1.0).contains(&g.share) {
                    return Err(format!("share={v}: must be in [0, 1]"));
                }
            }
            "seed" => g.seed = Some(v.parse().map_err(|e| format!("seed={v:?}: {e}"))?),
            _ => {
                return Err(format!(
                    "unknown key {k:?}; the keys are max_maps, level, mode, share, seed"
                ))
            }
        }
        seen.push(k);
    }
    if g.max_maps < 2 {
        return Err("max_maps=N (N ≥ 2) is required: the largest job made a gang".into());
    }
    Ok(g)
}

/// The map slots of the largest domain of `level` and of the whole cluster `input` runs on.
/// O(nodes).
pub fn map_room(input: &Input, level: TopologyLevel) -> (u64, u64) {
    match &input.cluster {
        ClusterSource::Synthetic { nodes, rack_size, map_slots, .. } => {
            let per_node = u64::from(*map_slots);
            let domain = match level {
                TopologyLevel::Node => per_node,
                _ => (*rack_size).clamp(1, (*nodes).max(1)) as u64 * per_node,
            };
            (domain, *nodes as u64 * per_node)
        }
        ClusterSource::Workload { map_slots, .. } => {
            let Some(t) = &input.workload.topology else { return (0, 0) };
            let slots =
                |n: &placer_datasets::NodeSpec| u64::from(n.map_slots.unwrap_or(*map_slots));
            let node = t.racks.iter().flat_map(|r| &r.nodes).map(slots).max().unwrap_or(0);
            let rack =
                t.racks.iter().map(|r| r.nodes.iter().map(slots).sum::<u64>()).max().unwrap_or(0);
            let all = t.racks.iter().flat_map(|r| &r.nodes).map(slots).sum();
            (if level == TopologyLevel::Node { node } else { rack }, all)
        }
    }
}

/// Makes the gangs of `arg` in `input`'s workload (seed `seed` unless `arg` names one); returns
/// the line that says what was made and what was skipped.
///
/// # Errors
/// [`CliError::Dataset`] for a spec out of range (the parser already refuses those).
pub fn apply(input: &mut Input, arg: &GangsArg, seed: u64) -> Result<String, CliError> {
    let (domain, cluster) = map_room(input, arg.level);
    let spec = TraceGangs {
        max_maps: arg.max_maps,
        level: arg.level,
        mode: arg.mode,
        share: arg.share,
        seed: arg.seed.unwrap_or(seed),
    };
    let done = make_gangs(&mut input.workload, &spec, domain, cluster)?;
    Ok(describe(&spec, &done, domain, cluster))
}

/// What `--gangs` made, in one line. Example: `gangs: 5 of the 11 jobs with 2–500 maps made
/// gangs (rack, required); 6 skipped, larger than the largest rack's 80 map slots`.
fn describe(spec: &TraceGangs, done: &TraceGangsOutcome, domain: u64, cluster: u64) -> String {
    let (level, mode) = (spec.level.name(), mode_name(spec.mode));
    let mut line = format!(
        "gangs: {} of the {} jobs with 2–{} maps made gangs ({level}, {mode})",
        done.gangs, done.eligible, spec.max_maps
    );
    if done.skipped > 0 {
        let room = match spec.mode {
            TopologyMode::Required => format!("the largest {level}'s {domain} map slots"),
            TopologyMode::Preferred => format!("the cluster's {cluster} map slots"),
        };
        line += &format!("; {} skipped, larger than {room}", done.skipped);
    }
    line
}

fn mode_name(mode: TopologyMode) -> &'static str {
    match mode {
        TopologyMode::Required => "required",
        TopologyMode::Preferred => "preferred",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gangs_flag_keys_defaults_and_errors() {
        let g = parse_gangs("max_maps=80").unwrap();
        assert_eq!(
            g,
            GangsArg {
                max_maps: 80,
                level: TopologyLevel::Rack,
                mode: TopologyMode::Required,
                share: 1.0,
                seed: None
            }
        );
        let g = parse_gangs("max_maps=5, level=node,mode=preferred,share=0.25,seed=9").unwrap();
        assert_eq!(
            (g.level, g.mode, g.share, g.seed),
            (TopologyLevel::Node, TopologyMode::Preferred, 0.25, Some(9))
        );
        for (bad, says) in [
            ("level=rack", "max_maps"),
            ("max_maps=1", "max_maps"),
            ("max_maps=4,level=block", "no blocks"),
            ("max_maps=4,mode=strict", "required or preferred"),
            ("max_maps=4,share=2", "[0, 1]"),
            ("max_maps=4,max_maps=5", "twice"),
            ("max_maps=4,size=3", "unknown key"),
            ("max_maps", "key=value"),
        ] {
            let e = parse_gangs(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn the_line_says_what_was_skipped_and_why() {
        let spec = TraceGangs {
            max_maps: 500,
            level: TopologyLevel::Rack,
            mode: TopologyMode::Required,
            share: 1.0,
            seed: 1,
        };
        let done = TraceGangsOutcome { eligible: 11, gangs: 5, skipped: 6 };
        assert_eq!(
            describe(&spec, &done, 80, 3090),
            "gangs: 5 of the 11 jobs with 2–500 maps made gangs (rack, required); 6 skipped, \
             larger than the largest rack's 80 map slots"
        );
        let none = TraceGangsOutcome { eligible: 2, gangs: 2, skipped: 0 };
        assert!(!describe(&spec, &none, 80, 3090).contains("skipped"));
    }
}

//! ShuffleWatcher's knobs on the `placer whatif` command line (Ahmad et al.: §3.1's
//! NWSaturationThreshold, §3.3's MapCompletionThreshold, §3.4's starvation window, §5.3's
//! ablation of NASS, SAMP and SARP): the parsers of `--saturation-threshold`,
//! `--map-completion-threshold`, `--starvation-window-s` and `--sw-mechanisms`. A value out of
//! its domain is clap's usage error (exit 2), which names the flag; the domains are the wire
//! schema's (`policy.*`, models `policy.rs`).

use placer_models::SwMechanisms;

/// `--saturation-threshold X`: a fraction of the rack uplink, in (0, 1] (§4.2: 400 of 500
/// Mbit/s = 0.8).
pub fn parse_saturation_threshold(s: &str) -> Result<f64, String> {
    let x = number(s)?;
    if x > 0.0 && x <= 1.0 {
        Ok(x)
    } else {
        Err(format!("must be a fraction of the uplink in (0, 1], got {s}"))
    }
}

/// `--map-completion-threshold X`: a fraction of a job's maps, in [0, 1] (§4.2: 0.15).
pub fn parse_map_completion_threshold(s: &str) -> Result<f64, String> {
    let x = number(s)?;
    if (0.0..=1.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("must be a fraction of the maps in [0, 1], got {s}"))
    }
}

/// `--starvation-window-s X`: seconds, finite and > 0.
pub fn parse_starvation_window_s(s: &str) -> Result<f64, String> {
    let x = number(s)?;
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(format!("must be a number of seconds > 0, got {s}"))
    }
}

/// `--sw-mechanisms LIST`: a comma list of `nass`, `samp`, `sarp` (each at most once, any
/// order), or `none`, and optionally `uncapped` (SAMP's and SARP's estimate without the
/// reduce-slot cap per rack, as the paper has it; `SwMechanisms::reduce_slot_cap`) and the
/// options `hold-maps`, `hold-reduces`, `idle-saturated` and `fair-within-user`
/// (`SwMechanisms::hold_maps`, `hold_reduces`, `idle_when_saturated`, `fair_within_user`).
/// Example: `nass,sarp` → NASS and SARP without SAMP (§5.3's second bar).
pub fn parse_sw_mechanisms(s: &str) -> Result<SwMechanisms, String> {
    let none = SwMechanisms { nass: false, samp: false, sarp: false, ..SwMechanisms::default() };
    if s.trim() == "none" {
        return Ok(none);
    }
    let mut on = none;
    let mut uncapped = false;
    for name in s.split(',').map(str::trim) {
        let flag = match name {
            "nass" => &mut on.nass,
            "samp" => &mut on.samp,
            "sarp" => &mut on.sarp,
            "uncapped" => &mut uncapped,
            "hold-maps" => &mut on.hold_maps,
            "hold-reduces" => &mut on.hold_reduces,
            "idle-saturated" => &mut on.idle_when_saturated,
            "fair-within-user" => &mut on.fair_within_user,
            "" => return Err(format!("empty mechanism in {s:?}; list nass, samp, sarp or none")),
            other => {
                return Err(format!(
                    "unknown mechanism {other:?}; list nass, samp, sarp (comma-separated) or \
                     none, and optionally uncapped, hold-maps, hold-reduces, idle-saturated, \
                     fair-within-user"
                ))
            }
        };
        if *flag {
            return Err(format!("mechanism {name:?} listed twice"));
        }
        *flag = true;
    }
    on.reduce_slot_cap = !uncapped;
    Ok(on)
}

fn number(s: &str) -> Result<f64, String> {
    s.trim().parse::<f64>().map_err(|e| format!("{s:?} is not a number: {e}"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn sw_4_2_thresholds_take_the_papers_values_and_reject_the_rest() {
        assert_eq!(parse_saturation_threshold("0.8"), Ok(0.8));
        assert_eq!(parse_saturation_threshold("1"), Ok(1.0));
        for bad in ["0", "1.01", "-0.5", "NaN", "x", ""] {
            assert!(parse_saturation_threshold(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_map_completion_threshold("0.15"), Ok(0.15));
        assert_eq!(parse_map_completion_threshold("0"), Ok(0.0));
        for bad in ["1.5", "-0.1", "NaN", "inf"] {
            assert!(parse_map_completion_threshold(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_starvation_window_s("600"), Ok(600.0));
        for bad in ["0", "-1", "inf", "NaN", "ten"] {
            assert!(parse_starvation_window_s(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sw_5_3_mechanism_lists() {
        let m = |nass, samp, sarp| SwMechanisms { nass, samp, sarp, ..SwMechanisms::default() };
        assert_eq!(parse_sw_mechanisms("nass,samp,sarp"), Ok(m(true, true, true)));
        assert_eq!(parse_sw_mechanisms("sarp, nass"), Ok(m(true, false, true)));
        assert_eq!(parse_sw_mechanisms("nass"), Ok(m(true, false, false)));
        let uncapped = parse_sw_mechanisms("samp,uncapped,sarp").unwrap();
        assert_eq!(uncapped, SwMechanisms { reduce_slot_cap: false, ..m(false, true, true) });
        assert!(parse_sw_mechanisms("uncapped,uncapped").is_err());
        let held = parse_sw_mechanisms("nass,samp,sarp,hold-maps,hold-reduces").unwrap();
        assert!(held.hold_maps && held.hold_reduces && !held.idle_when_saturated);
        let options = parse_sw_mechanisms("nass,idle-saturated,fair-within-user").unwrap();
        assert!(options.idle_when_saturated && options.fair_within_user && !options.hold_maps);
        assert!(parse_sw_mechanisms("hold-maps,hold-maps").is_err());
        assert_eq!(parse_sw_mechanisms("none"), Ok(m(false, false, false)));
        for bad in ["", "nass,,sarp", "nass,nass", "samp,delay", "all", "none,nass"] {
            assert!(parse_sw_mechanisms(bad).is_err(), "{bad}");
        }
        assert!(parse_sw_mechanisms("samp,delay").unwrap_err().contains("\"delay\""));
    }
}

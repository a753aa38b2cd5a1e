//! Policy knobs on the `placer whatif` command line: `--policy-set KEY=VALUE` sets any key of
//! the `policy` object, and `--sw-mechanisms LIST` is the short form of ShuffleWatcher's
//! `policy.shuffle_watcher` (Ahmad et al. §5.3's ablation of NASS, SAMP and SARP). The values
//! are checked by the settings of the policies that read them (`placer_solver::settings`), as
//! a snapshot's are: a bad one is the run's configuration error, naming `policy.KEY`.

use placer_solver::shuffle::SwMechanisms;
use serde_json::Value;

/// One `--policy-set KEY=VALUE`: VALUE is JSON (`0.5`, `true`, `{"nass": false}`), else a
/// string.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySet(pub String, pub Value);

/// The parser of a flag that sets the numeric knob `key` of the `policy` object: a number
/// the settings of the policies that read it accept, else clap's usage error (exit 2) with
/// their message. The domain is the one those settings declare, checked by them.
pub fn knob(key: &'static str) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |s: &str| {
        let x: f64 = s.trim().parse().map_err(|e| format!("{s:?} is not a number: {e}"))?;
        if !x.is_finite() {
            // JSON has no infinities: no knob takes one.
            return Err(format!("policy.{key}: must be a finite number, got {s}"));
        }
        let mut policy = placer_models::Policy::default();
        policy.set(key, x);
        placer_solver::registry::check_settings(&policy).map_err(|e| e.to_string())?;
        Ok(x)
    }
}

/// Parses `KEY=VALUE` ([`PolicySet`]). The key must be one some policy of this build reads
/// (`placer_solver::registry::settings`).
pub fn parse_policy_set(s: &str) -> Result<PolicySet, String> {
    let (key, value) = s.split_once('=').ok_or_else(|| format!("expected KEY=VALUE, got {s:?}"))?;
    let key = key.trim();
    let known: Vec<String> = placer_solver::registry::settings()
        .iter()
        .flat_map(|g| g.defaults().into_iter().map(|(k, _)| k))
        .collect();
    if !known.iter().any(|k| k == key) {
        return Err(format!("unknown policy key {key:?} (known: {})", known.join(", ")));
    }
    let value = serde_json::from_str(value.trim()).unwrap_or_else(|_| Value::from(value.trim()));
    let mut policy = placer_models::Policy::default();
    policy.set(key, value.clone());
    placer_solver::registry::check_settings(&policy).map_err(|e| e.to_string())?;
    Ok(PolicySet(key.to_owned(), value))
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn policy_set_takes_json_and_known_keys_only() {
        assert_eq!(parse_policy_set("beta=5"), Ok(PolicySet("beta".into(), Value::from(5))));
        assert_eq!(
            parse_policy_set("shuffle_watcher={\"nass\":false}").unwrap().1["nass"],
            Value::Bool(false)
        );
        assert!(parse_policy_set("betta=5").unwrap_err().contains("unknown policy key"));
        assert!(parse_policy_set("beta").is_err());
        assert!(parse_policy_set("beta=-1").unwrap_err().contains("policy.beta"));
        assert_eq!(knob("saturation_threshold")("0.5"), Ok(0.5));
        assert!(knob("saturation_threshold")("1.5").unwrap_err().contains("(0, 1]"));
        assert!(knob("starvation_window_s")("often").unwrap_err().contains("not a number"));
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

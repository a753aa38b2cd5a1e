//! A network that loses goodput on the `placer whatif` command line (TCP throughput collapse on
//! shaped links: Phanishayee et al., FAST 2008; Vasudevan et al., SIGCOMM 2009; the model is
//! `placer_sim::Goodput`): the parsers of `--goodput`, `--copiers` and the default copier cap
//! that comes with the loss model (Hadoop's `mapred.reduce.parallel.copies` = 5). A value out
//! of its domain is clap's usage error (exit 2), which names the flag.

use placer_sim::Goodput;

/// Hadoop's default `mapred.reduce.parallel.copies`: what `--goodput` implies for `--copiers`.
pub const HADOOP_COPIERS: u32 = 5;

/// `--goodput`'s value: the model, `None` for loss-free links.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GoodputArg(pub Option<Goodput>);

/// `--copiers`' value: the cap, `None` for none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopiersArg(pub Option<u32>);

/// `--goodput MODEL`: `none` (loss-free links, the default) or
/// `incast[:n0=N,beta=B,floor=F,rto_s=S]`, each key optional and at most once, over
/// [`Goodput::default`]. Example: `incast:n0=4,floor=0.2` → n0 = 4, β = 0.05, floor = 0.2,
/// rto_s = 0.2.
pub fn parse_goodput(s: &str) -> Result<GoodputArg, String> {
    let s = s.trim();
    if s == "none" {
        return Ok(GoodputArg(None));
    }
    let (name, keys) = s.split_once(':').unwrap_or((s, ""));
    if name != "incast" {
        return Err(format!(
            "unknown model {name:?}; use none or incast[:n0=..,beta=..,floor=..,rto_s=..]"
        ));
    }
    let mut g = Goodput::default();
    let mut seen: Vec<&str> = Vec::new();
    for kv in keys.split(',').map(str::trim).filter(|kv| !kv.is_empty()) {
        let (k, v) = kv.split_once('=').ok_or_else(|| format!("{kv:?} is not key=value"))?;
        let (k, v) = (k.trim(), v.trim());
        if seen.contains(&k) {
            return Err(format!("key {k:?} given twice"));
        }
        let x = || v.parse::<f64>().map_err(|e| format!("{k}={v:?} is not a number: {e}"));
        match k {
            "n0" => g.n0 = v.parse().map_err(|e| format!("n0={v:?} is not a count: {e}"))?,
            "beta" => g.beta = x()?,
            "floor" => g.floor = x()?,
            "rto_s" => g.rto_s = x()?,
            _ => return Err(format!("unknown key {k:?}; the keys are n0, beta, floor, rto_s")),
        }
        seen.push(k);
    }
    g.validate().map_err(|e| e.to_string())?;
    Ok(GoodputArg(Some(g)))
}

/// `--copiers N|unlimited`: most shuffle flows in progress per reduce (N ≥ 1), or no cap (one
/// flow per source rack at a time).
pub fn parse_copiers(s: &str) -> Result<CopiersArg, String> {
    let s = s.trim();
    if s == "unlimited" {
        return Ok(CopiersArg(None));
    }
    match s.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(CopiersArg(Some(n))),
        _ => Err(format!("must be a count ≥ 1 or unlimited, got {s:?}")),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn goodput_models_and_their_keys() {
        assert_eq!(parse_goodput("none"), Ok(GoodputArg(None)));
        assert_eq!(parse_goodput("incast"), Ok(GoodputArg(Some(Goodput::default()))));
        let g = parse_goodput("incast:n0=4, floor=0.2").unwrap().0.unwrap();
        assert_eq!(g, Goodput { n0: 4, floor: 0.2, ..Goodput::default() });
        let g = parse_goodput("incast:beta=0.5,rto_s=0").unwrap().0.unwrap();
        assert_eq!((g.beta, g.rto_s), (0.5, 0.0));
        for bad in [
            "tcp",
            "incast:n0=0",
            "incast:n0=-1",
            "incast:floor=0",
            "incast:floor=2",
            "incast:beta=-1",
            "incast:rto_s=NaN",
            "incast:x=1",
            "incast:n0",
            "incast:n0=2,n0=3",
        ] {
            assert!(parse_goodput(bad).is_err(), "{bad}");
        }
        assert!(parse_goodput("incast:floor=0").unwrap_err().contains("goodput.floor"));
    }

    #[test]
    fn copiers_hadoop_default_and_domain() {
        assert_eq!(parse_copiers("5"), Ok(CopiersArg(Some(HADOOP_COPIERS))));
        assert_eq!(parse_copiers("unlimited"), Ok(CopiersArg(None)));
        for bad in ["0", "-1", "x", ""] {
            assert!(parse_copiers(bad).is_err(), "{bad}");
        }
    }
}

//! `--shard i/N` and `--shard auto` of a what-if sweep: which slice of the runs this process
//! takes. `auto` reads the slice from the array job that started the process, after Slurm's
//! job-array environment (sbatch(1), "OUTPUT ENVIRONMENT VARIABLES": `SLURM_ARRAY_TASK_ID`,
//! `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_MAX`, `SLURM_ARRAY_TASK_COUNT`,
//! `SLURM_ARRAY_TASK_STEP`) and Kubernetes' Indexed Jobs (the `JOB_COMPLETION_INDEX` variable
//! of `completionMode: Indexed`, which carries no count: the count comes from `--shard-count N`
//! or `PLACER_SHARD_COUNT`).
//!
//! Slurm: shard index = (ID − MIN) / STEP (STEP 1 when unset), count = COUNT. The array must be
//! a regular range: MAX − MIN = (COUNT − 1) · STEP when MAX is known, and ID − MIN a multiple
//! of STEP below COUNT · STEP. So `--array=0-7`, `--array=1-8` and `--array=0-14:2` all give
//! shards 0..8 of 8, a throttle (`--array=0-7%2`) changes nothing, and a list such as
//! `--array=1,3,7` is refused (its tasks are not numbered 0..N).

use std::fmt;

/// The `--shard` flag as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardArg {
    /// `i/N`: run slice i of N (0-based).
    Fixed {
        /// The slice, 0 ≤ index < count.
        index: usize,
        /// The number of slices, ≥ 1.
        count: usize,
    },
    /// `auto`: the slice from the array job's environment ([`ShardEnv`]).
    Auto,
}

impl fmt::Display for ShardArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Fixed { index, count } => write!(f, "{index}/{count}"),
            Self::Auto => f.write_str("auto"),
        }
    }
}

/// Parses `--shard`: `auto`, or `i/N` with 0 ≤ i < N.
///
/// # Errors
/// A message naming the value when it is neither.
///
/// ```text
/// "3/4" → Fixed { index: 3, count: 4 };  "auto" → Auto;  "4/4" → error
/// ```
pub fn parse_shard(s: &str) -> Result<ShardArg, String> {
    if s.trim() == "auto" {
        return Ok(ShardArg::Auto);
    }
    let (i, n) =
        s.split_once('/').ok_or_else(|| format!("`{s}`: expected i/N (e.g. 0/4) or auto"))?;
    let index: usize = i.trim().parse().map_err(|_| format!("`{s}`: i is not a number"))?;
    let count: usize = n.trim().parse().map_err(|_| format!("`{s}`: N is not a number"))?;
    if count == 0 || index >= count {
        return Err(format!("`{s}`: need 0 ≤ i < N (shards are numbered from 0)"));
    }
    Ok(ShardArg::Fixed { index, count })
}

/// The environment variables `--shard auto` reads, as strings (unset = `None`), so that the
/// decision is a pure function of them ([`ShardEnv::resolve`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShardEnv {
    /// `SLURM_ARRAY_TASK_ID`: this array task's id.
    pub slurm_id: Option<String>,
    /// `SLURM_ARRAY_TASK_MIN`: the array's lowest id.
    pub slurm_min: Option<String>,
    /// `SLURM_ARRAY_TASK_MAX`: the array's highest id.
    pub slurm_max: Option<String>,
    /// `SLURM_ARRAY_TASK_COUNT`: the number of tasks of the array.
    pub slurm_count: Option<String>,
    /// `SLURM_ARRAY_TASK_STEP`: the array's id step.
    pub slurm_step: Option<String>,
    /// `JOB_COMPLETION_INDEX`: a Kubernetes Indexed Job pod's index, 0-based.
    pub k8s_index: Option<String>,
    /// `PLACER_SHARD_COUNT`: the number of shards where the environment names none (an
    /// Indexed Job's `completions`).
    pub count: Option<String>,
}

/// Names of the variables, in [`ShardEnv`]'s field order.
pub const VARIABLES: [&str; 7] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_STEP",
    "JOB_COMPLETION_INDEX",
    "PLACER_SHARD_COUNT",
];

impl ShardEnv {
    /// The variables of this process (a variable that is not valid Unicode counts as set to
    /// an unparsable value, so it is reported rather than ignored).
    pub fn from_process() -> Self {
        let var = |name: &str| match std::env::var(name) {
            Ok(v) => Some(v),
            Err(std::env::VarError::NotPresent) => None,
            Err(std::env::VarError::NotUnicode(v)) => Some(v.to_string_lossy().into_owned()),
        };
        let [id, min, max, count, step, k8s, n] = VARIABLES.map(var);
        Self {
            slurm_id: id,
            slurm_min: min,
            slurm_max: max,
            slurm_count: count,
            slurm_step: step,
            k8s_index: k8s,
            count: n,
        }
    }

    /// The shard (index, count) of `--shard auto`; `count_flag` is `--shard-count`, which
    /// wins over `PLACER_SHARD_COUNT` and must agree with Slurm's count.
    ///
    /// Slurm (when `SLURM_ARRAY_TASK_ID` is set): index = (ID − MIN) / STEP, count = COUNT
    /// (see the module docs for the checks). Kubernetes (when `JOB_COMPLETION_INDEX` is set):
    /// index = JOB_COMPLETION_INDEX, count = `--shard-count` or `PLACER_SHARD_COUNT`.
    ///
    /// # Errors
    /// A message naming the variables when neither environment is present, both are, one of
    /// Slurm's array variables is missing, a value is not a non-negative integer, the array is
    /// not a regular range, the index is out of range, the count is missing (Kubernetes) or
    /// the flag disagrees with Slurm.
    ///
    /// ```text
    /// SLURM_ARRAY_TASK_ID=5 MIN=1 COUNT=8  → (4, 8)
    /// JOB_COMPLETION_INDEX=2 PLACER_SHARD_COUNT=4 → (2, 4)
    /// ```
    pub fn resolve(&self, count_flag: Option<usize>) -> Result<(usize, usize), String> {
        let env_count = match (&self.count, count_flag) {
            (_, Some(n)) => Some(n),
            (Some(s), None) => Some(number("PLACER_SHARD_COUNT", s)?),
            (None, None) => None,
        };
        if env_count == Some(0) {
            return Err("the shard count must be at least 1".into());
        }
        match (&self.slurm_id, &self.k8s_index) {
            (Some(_), Some(_)) => {
                Err("both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set: \
                                       give --shard i/N to say which"
                    .into())
            }
            (Some(id), None) => {
                let (index, count) = self.slurm(id)?;
                match count_flag {
                    Some(n) if n != count => Err(format!(
                        "--shard-count {n} disagrees with SLURM_ARRAY_TASK_COUNT={count}"
                    )),
                    _ => Ok((index, count)),
                }
            }
            (None, Some(index)) => {
                let index = number("JOB_COMPLETION_INDEX", index)?;
                let Some(count) = env_count else {
                    return Err("JOB_COMPLETION_INDEX is set but the shard count is not: give \
                                --shard-count N or PLACER_SHARD_COUNT=N (the Job's completions)"
                        .into());
                };
                match index < count {
                    true => Ok((index, count)),
                    false => Err(format!(
                        "JOB_COMPLETION_INDEX={index} is not below the shard count {count}"
                    )),
                }
            }
            (None, None) => Err("neither a Slurm array task (SLURM_ARRAY_TASK_ID) nor a \
                                 Kubernetes Indexed Job pod (JOB_COMPLETION_INDEX): give \
                                 --shard i/N"
                .into()),
        }
    }

    /// Slurm's (index, count) from the array variables.
    fn slurm(&self, id: &str) -> Result<(usize, usize), String> {
        let required = |name: &str, v: &Option<String>| match v {
            Some(s) => number(name, s),
            None => Err(format!(
                "SLURM_ARRAY_TASK_ID is set but {name} is not (is this an array task?)"
            )),
        };
        let id = number("SLURM_ARRAY_TASK_ID", id)?;
        let min = required("SLURM_ARRAY_TASK_MIN", &self.slurm_min)?;
        let count = required("SLURM_ARRAY_TASK_COUNT", &self.slurm_count)?;
        let step = match &self.slurm_step {
            Some(s) => number("SLURM_ARRAY_TASK_STEP", s)?,
            None => 1,
        };
        if count == 0 || step == 0 {
            return Err(format!(
                "SLURM_ARRAY_TASK_COUNT={count}, SLURM_ARRAY_TASK_STEP={step}: both must be ≥ 1"
            ));
        }
        if let Some(max) = &self.slurm_max {
            let max = number("SLURM_ARRAY_TASK_MAX", max)?;
            if max < min || max - min != (count - 1).saturating_mul(step) {
                return Err(format!(
                    "the array is not a regular range: MIN={min}, MAX={max}, COUNT={count}, \
                     STEP={step} (submit it as --array=A-B or --array=A-B:S)"
                ));
            }
        }
        let offset = id.checked_sub(min).ok_or_else(|| {
            format!("SLURM_ARRAY_TASK_ID={id} is below SLURM_ARRAY_TASK_MIN={min}")
        })?;
        if offset % step != 0 || offset / step >= count {
            return Err(format!(
                "SLURM_ARRAY_TASK_ID={id} is not one of the {count} ids from {min} in steps of \
                 {step}"
            ));
        }
        Ok((offset / step, count))
    }
}

/// `value` of variable `name` as a non-negative integer.
fn number(name: &str, value: &str) -> Result<usize, String> {
    value.trim().parse().map_err(|_| format!("{name}={value:?} is not a non-negative integer"))
}

/// The (index, count) `--shard` stands for, `(0, 1)` without it; `auto` reads `env`.
///
/// # Errors
/// [`ShardEnv::resolve`]'s, prefixed with `--shard auto: `, and `--shard-count` given without
/// `--shard auto`.
pub fn resolve(
    arg: Option<ShardArg>,
    count_flag: Option<usize>,
    env: &ShardEnv,
) -> Result<(usize, usize), String> {
    match arg {
        None if count_flag.is_some() => Err("--shard-count needs --shard auto".into()),
        None => Ok((0, 1)),
        Some(ShardArg::Fixed { index, count }) => match count_flag {
            Some(n) if n != count => {
                Err(format!("--shard-count {n} disagrees with --shard {index}/{count}"))
            }
            _ => Ok((index, count)),
        },
        Some(ShardArg::Auto) => env.resolve(count_flag).map_err(|e| format!("--shard auto: {e}")),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn slurm(id: &str, min: &str, max: Option<&str>, count: &str, step: Option<&str>) -> ShardEnv {
        ShardEnv {
            slurm_id: Some(id.into()),
            slurm_min: Some(min.into()),
            slurm_max: max.map(Into::into),
            slurm_count: Some(count.into()),
            slurm_step: step.map(Into::into),
            ..ShardEnv::default()
        }
    }

    fn k8s(index: &str, count: Option<&str>) -> ShardEnv {
        ShardEnv {
            k8s_index: Some(index.into()),
            count: count.map(Into::into),
            ..ShardEnv::default()
        }
    }

    #[test]
    fn parses_fixed_and_auto() {
        assert_eq!(parse_shard("0/4"), Ok(ShardArg::Fixed { index: 0, count: 4 }));
        assert_eq!(parse_shard("3/4"), Ok(ShardArg::Fixed { index: 3, count: 4 }));
        assert_eq!(parse_shard("auto"), Ok(ShardArg::Auto));
        for bad in ["4/4", "1/0", "x", "auto/4", "-1/4"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        assert_eq!(ShardArg::Fixed { index: 2, count: 5 }.to_string(), "2/5");
    }

    #[test]
    fn slurm_index_is_id_minus_min_over_step() {
        // --array=0-7: task 5 is shard 5 of 8.
        assert_eq!(slurm("5", "0", Some("7"), "8", Some("1")).resolve(None), Ok((5, 8)));
        // --array=1-8: task 1 is shard 0, task 8 shard 7.
        assert_eq!(slurm("1", "1", Some("8"), "8", None).resolve(None), Ok((0, 8)));
        assert_eq!(slurm("8", "1", Some("8"), "8", None).resolve(None), Ok((7, 8)));
        // --array=10-16:2 (ids 10, 12, 14, 16): task 14 is shard 2 of 4.
        assert_eq!(slurm("14", "10", Some("16"), "4", Some("2")).resolve(None), Ok((2, 4)));
        // Without MAX the range check is skipped; the flag may repeat the count.
        assert_eq!(slurm("3", "0", None, "4", None).resolve(Some(4)), Ok((3, 4)));
    }

    #[test]
    fn slurm_inconsistencies_are_errors() {
        let cases = [
            // --array=1,3,7: MAX − MIN = 6 ≠ (3 − 1) · 1.
            (slurm("3", "1", Some("7"), "3", Some("1")), "regular range"),
            (slurm("2", "3", None, "4", None), "below SLURM_ARRAY_TASK_MIN"),
            (slurm("4", "0", None, "4", None), "not one of the 4 ids"),
            (slurm("11", "10", Some("16"), "4", Some("2")), "not one of the 4 ids"),
            (slurm("0", "0", None, "0", None), "must be ≥ 1"),
            (slurm("x", "0", None, "4", None), "SLURM_ARRAY_TASK_ID=\"x\""),
            (slurm("1", "0", None, "-4", None), "SLURM_ARRAY_TASK_COUNT=\"-4\""),
            (
                ShardEnv { slurm_min: None, ..slurm("1", "0", None, "4", None) },
                "SLURM_ARRAY_TASK_MIN is not",
            ),
            (
                ShardEnv { slurm_count: None, ..slurm("1", "0", None, "4", None) },
                "SLURM_ARRAY_TASK_COUNT is not",
            ),
        ];
        for (env, expected) in cases {
            let e = env.resolve(None).unwrap_err();
            assert!(e.contains(expected), "{env:?}: {e}");
        }
        let e = slurm("1", "0", Some("3"), "4", None).resolve(Some(8)).unwrap_err();
        assert!(e.contains("--shard-count 8 disagrees"), "{e}");
    }

    #[test]
    fn kubernetes_index_with_count_from_flag_or_env() {
        assert_eq!(k8s("2", Some("4")).resolve(None), Ok((2, 4)));
        assert_eq!(k8s("2", None).resolve(Some(3)), Ok((2, 3)));
        // The flag wins over the variable.
        assert_eq!(k8s("2", Some("4")).resolve(Some(5)), Ok((2, 5)));
        let e = k8s("2", None).resolve(None).unwrap_err();
        assert!(e.contains("--shard-count N or PLACER_SHARD_COUNT"), "{e}");
        let e = k8s("4", Some("4")).resolve(None).unwrap_err();
        assert!(e.contains("JOB_COMPLETION_INDEX=4 is not below"), "{e}");
        let e = k8s("1", Some("0")).resolve(None).unwrap_err();
        assert!(e.contains("at least 1"), "{e}");
        let e = k8s("1", Some("four")).resolve(None).unwrap_err();
        assert!(e.contains("PLACER_SHARD_COUNT"), "{e}");
    }

    #[test]
    fn none_or_both_environments_are_errors() {
        let e = ShardEnv::default().resolve(Some(4)).unwrap_err();
        assert!(e.contains("neither"), "{e}");
        let both = ShardEnv { k8s_index: Some("0".into()), ..slurm("0", "0", None, "2", None) };
        assert!(both.resolve(None).unwrap_err().contains("both"));
    }

    #[test]
    fn resolve_flag_combinations() {
        let env = k8s("1", Some("2"));
        assert_eq!(resolve(None, None, &env), Ok((0, 1)));
        assert!(resolve(None, Some(2), &env).is_err());
        let fixed = ShardArg::Fixed { index: 1, count: 3 };
        assert_eq!(resolve(Some(fixed), None, &env), Ok((1, 3)));
        assert_eq!(resolve(Some(fixed), Some(3), &env), Ok((1, 3)));
        assert!(resolve(Some(fixed), Some(2), &env).is_err());
        assert_eq!(resolve(Some(ShardArg::Auto), None, &env), Ok((1, 2)));
        let e = resolve(Some(ShardArg::Auto), None, &ShardEnv::default()).unwrap_err();
        assert!(e.starts_with("--shard auto: "), "{e}");
    }
}

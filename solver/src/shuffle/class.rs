//! ShuffleWatcher's job classes (Ahmad et al. §3.1, Table 1): a job is Shuffle-heavy when its
//! ShuffleInputRatio (shuffle bytes / map input bytes) exceeds 1.0, Shuffle-light when it is at
//! most `policy.shuffle_light_ratio` (the paper names benchmarks, not a number; placer's default
//! 0.1 separates Table 3's light jobs, ~0.01, from its medium ones, ~0.12), Shuffle-medium in
//! between. A job without a ratio has the paper's initial 1.0: medium, since heavy is "> 1.0".

use placer_models::Job;

/// The ratio above which a job is Shuffle-heavy (§3.1).
pub const HEAVY_RATIO: f64 = 1.0;

/// Table 1's classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShuffleClass {
    /// ShuffleInputRatio > 1.0.
    Heavy,
    /// Between light and heavy.
    Medium,
    /// ShuffleInputRatio ≤ the light threshold.
    Light,
}

impl ShuffleClass {
    /// The class of a ShuffleInputRatio `ratio` (unitless, ≥ 0) given the light threshold
    /// `light` (unitless, in [0, 1]).
    ///
    /// # Complexity
    /// O(1).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// §3.1: "ratio > 1.0 indicates a Shuffle-heavy job"; exactly 1.0 (the initial value) is not.
    /// ```
    /// use placer_solver::shuffle::ShuffleClass;
    /// assert_eq!(ShuffleClass::of_ratio(1.1, 0.1), ShuffleClass::Heavy);
    /// assert_eq!(ShuffleClass::of_ratio(1.0, 0.1), ShuffleClass::Medium);
    /// assert_eq!(ShuffleClass::of_ratio(0.0113, 0.1), ShuffleClass::Light);
    /// ```
    pub fn of_ratio(ratio: f64, light: f64) -> Self {
        if ratio > HEAVY_RATIO {
            Self::Heavy
        } else if ratio <= light {
            Self::Light
        } else {
            Self::Medium
        }
    }

    /// The class of `job` (its `shuffle_input_ratio`, default 1.0).
    pub fn of_job(job: &Job, light: f64) -> Self {
        Self::of_ratio(ratio(job), light)
    }
}

/// A job's ShuffleInputRatio: `jobs[].shuffle_input_ratio`, else the paper's initial 1.0.
pub fn ratio(job: &Job) -> f64 {
    job.shuffle_input_ratio.unwrap_or(1.0)
}

//! How the what-if page shows a `summary.csv` value to a reader: the column's unit from its
//! name (the CSV's own convention: `_s` seconds, `_gb` 10⁹ bytes, `_ms` milliseconds,
//! `_per_h` per hour, locality, utilisation and `_fraction` columns fractions), shares as percentages with
//! one decimal, other measures to about three significant digits, thousands separated by
//! commas (English digit grouping), units in the header rather than in every cell. The CSV
//! keeps the exact values; the page links it and gives each rounded cell its exact value as a
//! tooltip.

/// What a summary column measures, from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A fraction in [0, 1] shown as a percentage: `node_local`, `rack_local`, `remote`,
    /// `no_preference` and every `*_utilisation`, `*_use`, `*_share` and `*_fraction`.
    Share,
    /// Seconds (`*_s`).
    Seconds,
    /// Gigabytes, 10⁹ bytes (`*_gb`).
    Gigabytes,
    /// Milliseconds of wall clock (`*_ms`).
    Millis,
    /// Jobs per hour (`*_jobs_per_h`).
    JobsPerHour,
    /// Anything else: counts, ratios, names.
    Plain,
}

/// The unit of `column` (see [`Unit`]'s variants for the names).
///
/// ```
/// use placer_report::display::{unit_of, Unit};
/// assert_eq!(unit_of("node_local"), Unit::Share);
/// assert_eq!(unit_of("stranded_slot_fraction"), Unit::Share);
/// assert_eq!(unit_of("p95_response_s"), Unit::Seconds);
/// assert_eq!(unit_of("throughput_jobs_per_h"), Unit::JobsPerHour);
/// assert_eq!(unit_of("jobs"), Unit::Plain);
/// ```
pub fn unit_of(column: &str) -> Unit {
    if matches!(column, "node_local" | "rack_local" | "remote" | "no_preference")
        || column.ends_with("_utilisation")
        || column.ends_with("_use")
        || column.ends_with("_share")
        || column.ends_with("_fraction")
    {
        Unit::Share
    } else if column.ends_with("_jobs_per_h") {
        Unit::JobsPerHour
    } else if column.ends_with("_ms") {
        Unit::Millis
    } else if column.ends_with("_gb") {
        Unit::Gigabytes
    } else if column.ends_with("_s") {
        Unit::Seconds
    } else {
        Unit::Plain
    }
}

/// The header a reader sees for `column`: its words, without the unit suffix, and the unit in
/// parentheses.
///
/// ```
/// use placer_report::display::header_label;
/// assert_eq!(header_label("mean_response_s"), "mean response (s)");
/// assert_eq!(header_label("node_local"), "node local (%)");
/// assert_eq!(header_label("cross_rack_gb"), "cross rack (GB)");
/// assert_eq!(header_label("steady_throughput_jobs_per_h"), "steady throughput (jobs/h)");
/// assert_eq!(header_label("jobs_finished"), "jobs finished");
/// ```
pub fn header_label(column: &str) -> String {
    let (stem, unit) = match unit_of(column) {
        Unit::Share => (column, Some("%")),
        Unit::Seconds => (column.strip_suffix("_s").unwrap_or(column), Some("s")),
        Unit::Gigabytes => (column.strip_suffix("_gb").unwrap_or(column), Some("GB")),
        Unit::Millis => (column.strip_suffix("_ms").unwrap_or(column), Some("ms")),
        Unit::JobsPerHour => (column.strip_suffix("_jobs_per_h").unwrap_or(column), Some("jobs/h")),
        Unit::Plain => (column, None),
    };
    let words = stem.replace('_', " ");
    match unit {
        Some(u) => format!("{words} ({u})"),
        None => words,
    }
}

/// Decimals shown for a measure of magnitude `|x|` (not a share): 0 from 100 up, 1 from 10,
/// 2 from 1, 3 below 1, so about three significant digits; 0 for 0 itself.
///
/// ```
/// use placer_report::display::decimals;
/// assert_eq!([decimals(1529.7), decimals(12.5), decimals(1.77), decimals(0.463)], [0, 1, 2, 3]);
/// assert_eq!(decimals(0.0), 0);
/// ```
pub fn decimals(x: f64) -> usize {
    let a = x.abs();
    if a == 0.0 || a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        3
    }
}

/// `cell` of `column` as the page shows it: a share × 100 with one decimal, another measure
/// with [`decimals`] decimals, an integer of a plain column as it is; the integer part grouped
/// in thousands. Empty cells, names and values that are not finite numbers are shown as they
/// are.
///
/// ```
/// use placer_report::display::show;
/// assert_eq!(show("node_local", "0.6144049808971275"), "61.4");
/// assert_eq!(show("mean_response_s", "1529.7322138465784"), "1,530");
/// assert_eq!(show("cross_rack_gb", "0.54"), "0.540");
/// assert_eq!(show("events", "1234567"), "1,234,567");
/// assert_eq!(show("policy", "lsap/alpha=10"), "lsap/alpha=10");
/// assert_eq!(show("remote", ""), "");
/// ```
pub fn show(column: &str, cell: &str) -> String {
    let Ok(x) = cell.trim().parse::<f64>() else {
        return cell.to_owned();
    };
    if !x.is_finite() {
        return cell.to_owned();
    }
    let unit = unit_of(column);
    let text = match unit {
        Unit::Share => format!("{:.1}", 100.0 * x),
        Unit::Plain if is_integer(cell) => cell.trim().to_owned(),
        _ => format!("{:.*}", decimals(x), x),
    };
    group_thousands(&text)
}

/// A count with its thousands separated (`57668` → `57,668`), as the page shows file sizes
/// and row counts.
///
/// ```
/// assert_eq!(placer_report::display::count(1234567), "1,234,567");
/// ```
pub fn count(n: u64) -> String {
    group_thousands(&n.to_string())
}

/// Whether `cell` is written as an integer (digits with an optional sign).
fn is_integer(cell: &str) -> bool {
    let digits = cell.trim().strip_prefix('-').unwrap_or(cell.trim());
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Commas between thousands of the integer part of a plain decimal number (`-1234.5` →
/// `-1,234.5`); "-0" and "-0.0" lose their sign.
fn group_thousands(text: &str) -> String {
    let (sign, rest) = match text.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", text),
    };
    let (int, frac) = match rest.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (rest, None),
    };
    let mut grouped = String::with_capacity(int.len() + int.len() / 3);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let zero = int.bytes().all(|b| b == b'0') && frac.is_none_or(|f| f.bytes().all(|b| b == b'0'));
    let sign = if zero { "" } else { sign };
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_percentages_with_one_decimal() {
        assert_eq!(show("rack_local", "1.0"), "100.0");
        assert_eq!(show("remote", "0.0"), "0.0");
        assert_eq!(show("cpu_utilisation", "0.16683706623982464"), "16.7");
        // 0.3333… → 33.3, 0.6666… → 66.7.
        assert_eq!(show("rack_local", "0.6666666666666666"), "66.7");
        assert_eq!(show("remote", "0.3333333333333333"), "33.3");
    }

    #[test]
    fn measures_keep_about_three_significant_digits() {
        assert_eq!(show("makespan_s", "4176.951390629774"), "4,177");
        assert_eq!(show("mean_response_s", "12.345"), "12.3");
        assert_eq!(show("mean_solve_ms", "1.7725592357723574"), "1.77");
        assert_eq!(show("fairness_distance", "0.46318795391979234"), "0.463");
        assert_eq!(show("throughput_jobs_per_h", "51.71235664474249"), "51.7");
        assert_eq!(show("end_time_s", "1234567.8"), "1,234,568");
        assert_eq!(show("cross_rack_gb", "0.0"), "0");
        assert_eq!(show("mean_slowdown", "-2.5"), "-2.50");
        assert_eq!(show("wall_s", "-0.0001"), "0.000");
    }

    #[test]
    fn integers_names_and_odd_values() {
        assert_eq!(show("jobs", "60"), "60");
        assert_eq!(show("ticks", "2545"), "2,545");
        assert_eq!(show("events", "100000"), "100,000");
        assert_eq!(show("stop", "completed"), "completed");
        assert_eq!(show("mean_response_s", "NaN"), "NaN");
        assert_eq!(show("mean_response_s", "inf"), "inf");
        assert_eq!(group_thousands("999"), "999");
        assert_eq!(group_thousands("1000"), "1,000");
        assert_eq!(group_thousands("-1234.50"), "-1,234.50");
    }

    #[test]
    fn headers_name_the_unit() {
        assert_eq!(header_label("mean_solve_ms"), "mean solve (ms)");
        assert_eq!(header_label("peak_intermediate_gb"), "peak intermediate (GB)");
        assert_eq!(header_label("mem_utilisation"), "mem utilisation (%)");
        assert_eq!(header_label("policy"), "policy");
        assert_eq!(header_label("goals_met"), "goals met");
    }
}

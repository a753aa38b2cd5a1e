//! The summary table `placer whatif` prints on stdout at the end (DESIGN.md §CLI contract): one
//! row per run with the columns of `summary.csv` (the same numbers, rounded), aligned for a
//! terminal.

use placer_report::tables::SummaryRow;

/// A fraction as a percentage, `-` when there is none.
fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |x| format!("{:.1}%", 100.0 * x))
}

/// The table as text, one line per run after a header.
pub fn render(rows: &[SummaryRow]) -> String {
    let header = [
        "policy",
        "jobs",
        "node",
        "rack",
        "remote",
        "mean resp s",
        "p95 resp s",
        "makespan s",
        "cross GB",
        "fair D",
        "solve ms",
    ];
    let mut table: Vec<Vec<String>> = vec![header.iter().map(|s| (*s).to_owned()).collect()];
    for s in rows {
        table.push(vec![
            s.policy.clone(),
            format!("{}/{}", s.jobs_finished, s.jobs),
            pct(s.node_local),
            pct(s.rack_local),
            pct(s.remote),
            format!("{:.1}", s.mean_response_s),
            format!("{:.1}", s.p95_response_s),
            format!("{:.0}", s.makespan_s),
            format!("{:.2}", s.cross_rack_gb),
            format!("{:.3}", s.fairness_distance),
            format!("{:.2}", s.mean_solve_ms),
        ]);
    }
    let rows = table;
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|row| row[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c == 0 {
                    format!("{cell:<w$}", w = widths[c])
                } else {
                    format!("{cell:>w$}", w = widths[c])
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

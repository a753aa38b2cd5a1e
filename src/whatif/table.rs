//! The summary table `placer whatif` prints on stdout at the end (docs/simulator.md, "Outputs"):
//! one row per run with the contract's columns of `summary.csv`, then the cross-rack traffic split
//! (shuffle, remote map input), the peak of intermediate data, the steady-state throughput and
//! turnaround (ShuffleWatcher §4.3) and, when any run has them, the mean resource use and the
//! completion-time goals met of those set (RAS §4.3; the same numbers, rounded), aligned for a
//! terminal.

use placer_report::tables::SummaryRow;

/// A fraction as a percentage, `-` when there is none.
fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |x| format!("{:.1}%", 100.0 * x))
}

/// The table as text, one line per run after a header.
pub fn render(rows: &[SummaryRow]) -> String {
    let with_use = rows.iter().any(|s| s.cpu_utilisation.is_some());
    let with_goals = rows.iter().any(|s| s.goals > 0);
    let mut header = vec![
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
        "cross shuffle GB",
        "remote map GB",
        "peak interm GB",
        "steady jobs/h",
        "steady resp s",
    ];
    if with_use {
        header.extend(["cpu use", "mem use", "io use"]);
    }
    if with_goals {
        header.push("goals met");
    }
    let mut table: Vec<Vec<String>> = vec![header.iter().map(|s| (*s).to_owned()).collect()];
    for s in rows {
        let mut row = vec![
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
            format!("{:.2}", s.cross_rack_shuffle_gb),
            format!("{:.2}", s.remote_map_gb),
            format!("{:.2}", s.peak_intermediate_gb),
            format!("{:.1}", s.steady_throughput_jobs_per_h),
            format!("{:.1}", s.steady_mean_turnaround_s),
        ];
        if with_use {
            row.extend([s.cpu_utilisation, s.mem_utilisation, s.io_utilisation].map(pct));
        }
        if with_goals {
            row.push(format!("{}/{}", s.goals_met, s.goals));
        }
        table.push(row);
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn resource_use_columns_only_when_a_run_has_them() {
        let text = |rows: &[SummaryRow]| render(rows);
        let row = |cpu: Option<f64>| {
            let mut r = placer_report::tables::parse_summary_csv(
                &format!(
                    "{}\nfifo,{}\n",
                    placer_report::tables::SUMMARY_COLUMNS.join(","),
                    std::iter::repeat_n("1", placer_report::tables::SUMMARY_COLUMNS.len() - 1)
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                "t",
            )
            .unwrap()
            .remove(0);
            r.cpu_utilisation = cpu;
            (r.goals, r.goals_met) = (0, 0);
            r
        };
        let plain = text(&[row(None)]);
        assert!(
            plain.lines().next().unwrap().ends_with("peak interm GB  steady jobs/h  steady resp s"),
            "{plain}"
        );
        assert!(plain.lines().nth(1).unwrap().ends_with("1.00            1.0            1.0"));
        let used = text(&[row(Some(0.5)), row(None)]);
        let lines: Vec<&str> = used.lines().collect();
        assert!(lines[0].ends_with("cpu use  mem use  io use"), "{used}");
        assert!(lines[1].ends_with("50.0%   100.0%  100.0%"), "{used}");
        assert!(lines[2].ends_with("-   100.0%  100.0%"), "{used}");
        // Goals: a column of met / set once a run has some.
        let mut goals = row(None);
        (goals.goals, goals.goals_met) = (9, 7);
        let text = text(&[goals, row(None)]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with("steady resp s  goals met"), "{text}");
        assert!(lines[1].ends_with("  7/9"), "{text}");
        assert!(lines[2].ends_with("  0/0"), "{text}");
    }
}

//! `placer whatif`'s report page (docs/simulator.md, "What-if report"):
//! `index.html` in `--out` for a trace replay, a paper's workload and a sharded sweep (each
//! shard's page and the merged one), with the summary rows of `summary.csv`, every plot inlined,
//! and every relative link and source resolving to a file that exists; and the page as headless
//! Chromium renders it from disk.

use crate::cli::placer;
use placer_testkit::browser::Browser;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn fresh(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A shipped trace's path, as an argument.
fn data(name: &str) -> String {
    placer_testkit::data(name).display().to_string()
}

/// `%XX` decoded (RFC 3986 §2.1).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// Character references of the page's escaping undone.
fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Every `href` and `src` value of `html` but fragments and `data:` URLs, decoded: the relative
/// paths a browser opens from the page's folder. Fails on an absolute URL.
pub(crate) fn relative_links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in [" href=\"", " src=\""] {
        for (at, _) in html.match_indices(attr) {
            let rest = &html[at + attr.len()..];
            let value = &rest[..rest.find('"').unwrap()];
            if value.starts_with('#') || value.starts_with("data:") {
                continue;
            }
            assert!(!value.contains(':'), "not a relative link: {value}");
            out.push(percent_decode(&unescape(value)));
        }
    }
    out
}

/// The summary table's cells, row by row (header first), as the page holds them: (text,
/// `title` attribute if any).
fn summary_cells(html: &str) -> Vec<Vec<(String, Option<String>)>> {
    let start = html.find("<table id=\"summary-table\">").unwrap();
    let table = &html[start..];
    let table = &table[..table.find("</table>").unwrap()];
    let mut rows = Vec::new();
    for row in table.split("<tr>").skip(1) {
        let mut cells = Vec::new();
        let mut rest = &row[..row.find("</tr>").unwrap()];
        while let Some(open) = rest.find("<t") {
            let body = &rest[open..];
            let tag = &body[..body.find('>').unwrap()];
            let title = tag.find("title=\"").map(|at| {
                let value = &tag[at + 7..];
                unescape(&value[..value.find('"').unwrap()])
            });
            let text = &body[body.find('>').unwrap() + 1..];
            let end = text.find("</t").unwrap();
            cells.push((unescape(&text[..end]), title));
            rest = &text[end + 3..];
        }
        rows.push(cells);
    }
    rows
}

/// Checks a shown summary cell against its exact CSV value `exact` of `column`, by the page's
/// stated rules, derived here on their own: a share (locality, utilisation, `_use` and
/// `_share` columns) is 100 × the value with one decimal; a value written as an integer in a
/// column without a unit is shown whole; other numbers keep 0 decimals from 100 up, 1 from 10, 2 from 1 and 3
/// below (0 itself: none); the integer part is grouped by commas; empty cells and names are
/// shown as they are.
fn check_shown(column: &str, exact: &str, shown: &str) {
    let Ok(x) = exact.parse::<f64>() else {
        assert_eq!(shown, exact, "{column}");
        return;
    };
    let share = ["node_local", "rack_local", "remote", "no_preference"].contains(&column)
        || column.ends_with("_utilisation")
        || column.ends_with("_use")
        || column.ends_with("_share")
        || column.ends_with("_fraction");
    let unit = ["_s", "_gb", "_ms", "_per_h"].iter().any(|u| column.ends_with(u));
    let integer = !exact.contains(['.', 'e', 'E']);
    let (target, places) = if share {
        (100.0 * x, 1)
    } else if integer && !unit {
        (x, 0)
    } else {
        let a = x.abs();
        let places = match a {
            _ if a == 0.0 || a >= 100.0 => 0,
            _ if a >= 10.0 => 1,
            _ if a >= 1.0 => 2,
            _ => 3,
        };
        (x, places)
    };
    let (int, frac) = shown.split_once('.').unwrap_or((shown, ""));
    assert_eq!(frac.len(), places, "{column}: {exact} shown as {shown}");
    let digits = int.trim_start_matches('-');
    let groups: Vec<&str> = digits.split(',').collect();
    assert!(
        groups[0].len() <= 3 && groups[1..].iter().all(|g| g.len() == 3) && !groups[0].is_empty(),
        "{column}: {shown} is not grouped in thousands"
    );
    let value: f64 = shown.replace(',', "").parse().unwrap();
    let half = 0.5 * 10f64.powi(-(places as i32));
    assert!(
        (value - target).abs() <= half * (1.0 + 1e-9) + 1e-12 * target.abs(),
        "{column}: {exact} shown as {shown}"
    );
}

/// Checks the page's summary table against `summary.csv`'s cells: each header's tooltip is
/// the column, each cell's tooltip (or its text when it has none) the exact value, and each
/// shown value that value rounded by [`check_shown`].
fn check_summary_table(page: &[Vec<(String, Option<String>)>], csv: &[Vec<String>]) {
    assert_eq!(page.len(), csv.len());
    let header: Vec<Option<String>> = page[0].iter().map(|(_, t)| t.clone()).collect();
    let columns: Vec<Option<String>> = csv[0].iter().cloned().map(Some).collect();
    assert_eq!(header, columns, "every header's tooltip is its CSV column");
    for (row, exact_row) in page[1..].iter().zip(&csv[1..]) {
        assert_eq!(row.len(), exact_row.len());
        for (k, ((shown, title), exact)) in row.iter().zip(exact_row).enumerate() {
            assert_eq!(title.as_ref().unwrap_or(shown), exact, "column {}", csv[0][k]);
            if k > 0 {
                check_shown(&csv[0][k], exact, shown);
            } else {
                assert_eq!(shown, exact);
            }
        }
    }
}

/// `summary.csv`'s cells (no field of a test run is quoted).
fn csv_cells(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(|l| l.split(',').map(str::to_owned).collect()).collect()
}

/// Checks the page at `dir/rel`: it exists, every relative link resolves, its summary table is
/// `summary` cell for cell (rounded for reading, exact in the tooltips), and it inlines `svgs`
/// plots. Returns the page's text.
pub(crate) fn check_page(dir: &Path, rel: &str, summary: &Path, svgs: usize) -> String {
    let page = dir.join(rel);
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    assert!(html.starts_with("<!DOCTYPE html>"));
    let links = relative_links(&html);
    assert!(links.len() > 10, "{rel}: {links:?}");
    for link in &links {
        let target = page.parent().unwrap().join(link);
        assert!(target.is_file(), "{rel}: {link} does not resolve");
    }
    check_summary_table(&summary_cells(&html), &csv_cells(summary));
    assert_eq!(html.matches("<svg ").count(), svgs, "{rel}");
    assert!(!html.contains("<script"));
    html
}

/// The last stdout line of a run names its page.
fn printed_page(stdout: &[u8]) -> PathBuf {
    let text = String::from_utf8_lossy(stdout);
    let line = text.lines().last().unwrap();
    PathBuf::from(line.strip_prefix("report: ").unwrap_or_else(|| panic!("{text}")))
}

#[test]
fn whatif_report_of_a_trace_replay_links_every_file_and_inlines_every_plot() {
    let out = fresh("whatif_report_trace");
    let dir = out.display().to_string();
    let (trace, nodes) = (data("inputsls.json"), data("nodes.json"));
    let o = placer(&[
        "whatif",
        "--trace",
        &trace,
        "--format",
        "sls",
        "--topology",
        &nodes,
        "--policies",
        "fifo,lsap",
        "--out",
        &dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(printed_page(&o.stdout), out.join("index.html"));
    let html = check_page(&out, "index.html", &out.join("summary.csv"), 5);
    // The trace's path is shown, and each policy's tables are linked.
    assert!(html.contains(&trace), "trace path missing");
    for policy in ["fifo", "lsap"] {
        for table in ["jobs", "epochs", "racks"] {
            for ext in ["csv", "parquet"] {
                let link = format!("href=\"{table}/policy={policy}/part-0.{ext}\"");
                assert!(html.contains(&link), "{link}");
            }
        }
    }
    // The manifest lists the page; the page lists every other file of the manifest.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let files = manifest["files"].as_array().unwrap();
    assert!(files.iter().any(|f| f["path"] == "index.html" && f["kind"] == "index"));
    let links = relative_links(&html);
    for f in files.iter().filter(|f| f["path"] != "index.html") {
        assert!(links.iter().any(|l| *l == f["path"].as_str().unwrap()), "{f}");
    }
}

#[test]
fn whatif_report_of_a_workload_and_of_a_sharded_sweep() {
    // A paper's experiment, shrunk.
    let out = fresh("whatif_report_workload");
    let dir = out.display().to_string();
    let o = placer(&[
        "whatif",
        "--workload",
        "fair-small-jobs:maps=2,jobs=6",
        "--policies",
        "fifo,delay",
        "--out",
        &dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(printed_page(&o.stdout), out.join("index.html"));
    let html = check_page(&out, "index.html", &out.join("summary.csv"), 5);
    assert!(html.contains("<td>fair-small-jobs:maps=2,jobs=6</td>"), "workload keys shown");

    // A sweep in two shards: each shard's page sits in its folder and links back up; the
    // merged page shows the merged summary and both shards' plots.
    let out = fresh("whatif_report_sweep");
    std::fs::create_dir_all(&out).unwrap();
    let sweep = out.join("sweep.toml");
    std::fs::write(&sweep, "alpha = [1, 10]\n").unwrap();
    let (sweep, dir) = (sweep.display().to_string(), out.display().to_string());
    let (trace, nodes) = (data("inputsls.json"), data("nodes.json"));
    for shard in ["0/2", "1/2"] {
        let o = placer(&[
            "whatif",
            "--trace",
            &trace,
            "--format",
            "sls",
            "--topology",
            &nodes,
            "--policies",
            "fifo,lsap",
            "--sweep",
            &sweep,
            "--shard",
            shard,
            "--out",
            &dir,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let i = &shard[..1];
        let rel = format!("shards/{i}-of-2/index.html");
        assert_eq!(printed_page(&o.stdout), out.join(&rel));
        let html = check_page(&out, &rel, &out.join(format!("shards/{i}-of-2/summary.csv")), 5);
        // Shard 0 runs 0 and 2 (fifo at both alphas), shard 1 runs 1 and 3 (lsap).
        let policy = ["fifo", "lsap"][usize::from(i == "1")];
        for alpha in ["1", "10"] {
            let link = format!("href=\"../../jobs/policy={policy}/alpha={alpha}/part-0.csv\"");
            assert!(html.contains(&link), "{rel}: {link}");
        }
    }
    let o = placer(&["whatif", "summarize", &dir]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(printed_page(&o.stdout), out.join("index.html"));
    let html = check_page(&out, "index.html", &out.join("summary.csv"), 10);
    // Runs in run order, four of them, each with its seven table files.
    let order: Vec<usize> = ["fifo/alpha=1<", "lsap/alpha=1<", "fifo/alpha=10<", "lsap/alpha=10<"]
        .iter()
        .map(|name| {
            let table = html.find("id=\"run-tables\"").unwrap();
            table + html[table..].find(&format!("<td>{name}")).unwrap()
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert!(html.contains("href=\"shards/0-of-2/index.html\""));
}

#[test]
fn whatif_report_renders_in_headless_chromium() {
    // The page of a small workload run opened from disk: the rendered summary table is
    // summary.csv, every plot has a size on screen, and a screenshot is kept.
    let out = fresh("whatif_report_browser");
    let dir = out.display().to_string();
    let o = placer(&[
        "whatif",
        "--workload",
        "fair-small-jobs:maps=2,jobs=6",
        "--policies",
        "fifo,delay,lsap",
        "--out",
        &dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = printed_page(&o.stdout);
    let mut browser = Browser::start().expect("headless Chromium (bash scripts/deps installs it)");
    browser.goto(&format!("file://{}", page.display())).unwrap();
    let title = browser.wait_text("h1", "placer what-if", Duration::from_secs(20)).unwrap();
    assert!(title.contains("small-jobs"), "{title}");
    // The table as rendered: each cell's text and tooltip, checked against summary.csv after
    // rounding; the headers read as words with units.
    let cells = browser
        .script(
            "return Array.from(document.querySelectorAll('#summary-table tr'))
                 .map(r => Array.from(r.cells).map(c => [c.innerText.trim(),
                                                          c.getAttribute('title')]));",
        )
        .unwrap();
    let cells: Vec<Vec<(String, Option<String>)>> = serde_json::from_value(cells).unwrap();
    check_summary_table(&cells, &csv_cells(&out.join("summary.csv")));
    assert_eq!(cells.len(), 4, "a header and three runs");
    let headers: Vec<&str> = cells[0].iter().map(|(text, _)| text.as_str()).collect();
    assert_eq!(
        headers[..6],
        ["policy", "jobs", "node local (%)", "rack local (%)", "remote (%)", "mean response (s)"]
    );
    // fifo: 0 of the 6 maps node-local, 4 rack-local (66.7 %), 2 remote (33.3 %).
    let fifo: Vec<&str> = cells[1][..5].iter().map(|(text, _)| text.as_str()).collect();
    assert_eq!(fifo, ["fifo", "6", "0.0", "66.7", "33.3"]);
    let sizes = browser
        .script(
            "return Array.from(document.querySelectorAll('figure.plot svg, figure.plot img'))
                 .map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; });",
        )
        .unwrap();
    let sizes: Vec<(f64, f64)> = serde_json::from_value(sizes).unwrap();
    assert_eq!(sizes.len(), 5, "{sizes:?}");
    for (w, h) in &sizes {
        // 1000 × 600 plots, scaled to the page's width at most: the aspect ratio holds.
        assert!(*w > 100.0 && *h > 60.0, "{sizes:?}");
        assert!((w / h - 1000.0 / 600.0).abs() < 0.05, "{sizes:?}");
    }
    // The plots drew something: each SVG's content has an extent.
    let drawn = browser
        .script(
            "return Array.from(document.querySelectorAll('figure.plot svg'))
                 .map(s => { const b = s.getBBox(); return b.width * b.height; });",
        )
        .unwrap();
    let drawn: Vec<f64> = serde_json::from_value(drawn).unwrap();
    assert!(drawn.iter().all(|a| *a > 0.0), "{drawn:?}");
    let shot = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots/whatif-report.png");
    browser.screenshot(&shot).unwrap();
    assert_eq!(&std::fs::read(&shot).unwrap()[..8], b"\x89PNG\r\n\x1a\n");
}

//! The `index.html` of a `placer whatif` run (docs/simulator.md, "What-if report"): one
//! self-contained page that opens from disk, with the run's summary table (the rows of
//! `summary.csv`), every plot the run wrote (SVG inlined; a PNG without an SVG twin as an RFC 2397
//! `data:` URL), per-run links to the CSV and Parquet tables, and the run's manifest as tables.
//!
//! Everything the page shows comes from the [`Manifest`] and the files it lists, read from the
//! output directory, so a shard's page, a whole run's page and the page `placer whatif
//! summarize` writes over the merged manifest are the same code. No script, no external
//! resource: links are relative references (RFC 3986 §4.2) from the page's own folder, each
//! path segment percent-encoded (§2.1; hive partitions contain `%XX` of their own). Every text
//! and attribute value is escaped (`&`, `<`, `>`, `"`, `'`; HTML Living Standard §13.1.2.6 and
//! §13.3's serialisation), so policy names, partition values and paths cannot break the markup.
//!
//! The page lists the manifest as it stands when the page is written: the page is written
//! before `manifest.json` (which lists the page), so neither lists the manifest itself.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use base64::Engine as _;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::atomic::write_atomic;
use crate::display;
use crate::manifest::{FileEntry, Manifest};
use crate::tables::{EPOCHS_DIR, JOBRUNTIME_DIR, JOBS_DIR, RACKS_DIR};
use crate::ReportError;

/// The page's file name (in `--out`, or in a shard's folder `shards/i-of-N/`).
pub const INDEX_FILE: &str = "index.html";

/// The manifest `kind` of the page itself.
pub const INDEX_KIND: &str = "index";

/// The per-run tables, in the order of the page's columns (the manifest `kind` of each file is
/// its table's directory).
const RUN_TABLES: [&str; 4] = [JOBS_DIR, EPOCHS_DIR, RACKS_DIR, JOBRUNTIME_DIR];

/// The plots in the order `plots::write_plots` draws them, with what each shows (the plots
/// module's table); others follow by name.
const PLOT_CAPTIONS: [(&str, &str); 5] = [
    (
        "locality",
        "Map-task locality: % of completed maps with replicas read node-local, rack-local or \
         remote (lsap-sched Fig. 3).",
    ),
    (
        "response_cdf",
        "Job response times: CDF over each policy's finished jobs, log time axis (FAIR Figs. 5 \
         and 6).",
    ),
    ("cross_rack", "Cumulative cross-rack traffic, GB, over simulated time (ShuffleWatcher §5)."),
    (
        "cross_rack_timeseries",
        "Cross-rack shuffle rate, Mbit/s, mean per 60 s bucket (ShuffleWatcher Figs. 1 and 10).",
    ),
    (
        "fairness",
        "Fairness distance D over simulated time, mean per time bucket (lsap-fair-sched).",
    ),
];

/// Bytes left as they are in a path segment of a link: RFC 3986's unreserved characters and
/// `=` (hive's `key=value`); everything else, `%` included, is percent-encoded.
const SEGMENT: &AsciiSet =
    &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b'=');

/// The page's style: system fonts, tables that scroll sideways, plots that fit the width.
const STYLE: &str = "\
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 16px 40px;
color:#1d2228;background:#fff}
h1{font-size:22px;margin:20px 0 8px}h3{font-size:15px;margin:18px 0 6px}
h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d8dde3;padding-bottom:4px}
nav a{margin-right:14px}a{color:#0b5cad}
table{border-collapse:collapse;font-size:13px}
th,td{padding:3px 8px;border:1px solid #d8dde3;text-align:left;vertical-align:top}
th{background:#f1f4f7;font-weight:600;white-space:nowrap}
tbody tr:nth-child(even){background:#fafbfc}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.scroll{overflow-x:auto;max-width:100%}
#summary-table th:first-child,#summary-table td:first-child{position:sticky;left:0;
background:#f1f4f7}
figure.plot{margin:16px 0 24px}
figure.plot svg,figure.plot img{display:block;max-width:100%;height:auto;
border:1px solid #e3e7eb}
figcaption{margin:4px 0;color:#444}
code,.hash{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.muted{color:#666}
";

/// A plot on the page: its file stem and folder, its SVG text if one was written, the link to
/// its PNG and, when there is no SVG, the PNG as a `data:` URL.
struct PlotView {
    folder: String,
    stem: String,
    svg_path: Option<String>,
    png_path: Option<String>,
}

/// Writes the page for `manifest` to `dir/index_rel` atomically (normally [`INDEX_FILE`] or a
/// shard's `shards/i-of-N/index.html`) and describes it as a [`FileEntry`] of kind
/// [`INDEX_KIND`], for the manifest written after it. See [`render_index`].
///
/// Errors: as [`render_index`], and [`ReportError::Io`] when the page cannot be written.
pub fn write_index(
    dir: &Path,
    index_rel: &str,
    title: &str,
    about: &[(String, String)],
    manifest: &Manifest,
) -> Result<FileEntry, ReportError> {
    let html = render_index(dir, index_rel, title, about, manifest)?;
    write_atomic(&dir.join(index_rel), html.as_bytes())?;
    Ok(FileEntry::new(index_rel.to_owned(), INDEX_KIND, None, html.as_bytes()))
}

/// The page (HTML5, UTF-8) for `manifest`, as it will sit at `dir/index_rel`: `title`, the
/// `about` pairs (label, value: what was run, e.g. the trace's path), then
/// - the summary table: header and rows of the manifest's summary file
///   ([`crate::manifest::Shard::summary_file`]) as written, cell for cell;
/// - the plots: every file of kind `plot` in the manifest, grouped by folder, by stem (in
///   `write_plots` order); an SVG is inlined (its own `<svg>` element, the XML prolog
///   dropped) with links to it and its PNG twin, a PNG without an SVG is an `<img>` with a
///   `data:image/png;base64` source;
/// - the tables per run: one row per partition (`policy=P/key=v…`) of the `jobs`, `epochs`,
///   `racks` and `jobruntime` tables, in the manifest's run order, linking each CSV and Parquet
///   file;
/// - the manifest: its fields, rows per table, and every file (linked) with kind, rows, bytes
///   and SHA-256, plus a link to the manifest file itself.
///
/// # Complexity
/// O(total size of the summary and the plot files + number of manifest files · log).
///
/// # Errors
/// [`ReportError::Io`] when the summary or a plot listed in the manifest cannot be read,
/// [`ReportError::Format`] when the summary is not CSV or an SVG has no `<svg` element.
pub fn render_index(
    dir: &Path,
    index_rel: &str,
    title: &str,
    about: &[(String, String)],
    manifest: &Manifest,
) -> Result<String, ReportError> {
    let base = base_of(index_rel);
    let href = |path: &str| format!("{base}{}", encode_path(path));
    let mut h = String::with_capacity(64 * 1024);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"{}\">\n<title>{}</title>\n<style>\n{STYLE}</style>\n\
         </head>\n<body>\n<h1>{}</h1>\n",
        esc(&manifest.generator),
        esc(title),
        esc(title)
    );
    if !about.is_empty() {
        h.push_str("<table id=\"about\" class=\"kv\">\n");
        for (label, value) in about {
            let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(label), esc(value));
        }
        h.push_str("</table>\n");
    }
    h.push_str(
        "<nav><a href=\"#summary\">Summary</a><a href=\"#plots\">Plots</a>\
         <a href=\"#tables\">Tables per run</a><a href=\"#manifest\">Manifest</a></nav>\n",
    );
    summary_section(&mut h, dir, manifest, &href)?;
    plots_section(&mut h, dir, manifest, &href)?;
    tables_section(&mut h, manifest, &href);
    manifest_section(&mut h, manifest, &href);
    let _ = write!(
        h,
        "<footer class=\"muted\"><p>Written by {} with the run's outputs; links are relative \
         to this page's folder.</p></footer>\n</body>\n</html>\n",
        esc(&manifest.generator)
    );
    Ok(h)
}

/// The summary table: `summary.csv`'s rows as a reader wants them ([`display`]): headers with
/// their units (the CSV's column name as the header's tooltip), values rounded, each rounded
/// cell's exact CSV value as its tooltip.
fn summary_section(
    h: &mut String,
    dir: &Path,
    manifest: &Manifest,
    href: &dyn Fn(&str) -> String,
) -> Result<(), ReportError> {
    let rel = manifest.shard.summary_file();
    let path = dir.join(&rel);
    let text = std::fs::read_to_string(&path).map_err(|e| ReportError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let bad = |e: csv::Error| ReportError::Format { path: rel.clone(), message: e.to_string() };
    let mut reader =
        csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    let mut records = Vec::new();
    for record in reader.records() {
        records.push(record.map_err(bad)?);
    }
    let _ = write!(
        h,
        "<section id=\"summary\">\n<h2>Summary</h2>\n<p>One row per run. Shares in %, times in \
         s (ms of wall clock for the solver), GB = 10<sup>9</sup> bytes, rounded to about \
         three digits; the exact values are in <a href=\"{}\">{}</a> (and in each cell's \
         tooltip), under the column names shown as the headers' tooltips.</p>\n\
         <div class=\"scroll\">\n<table id=\"summary-table\">\n",
        esc(&href(&rel)),
        esc(&rel)
    );
    let mut rows = records.iter();
    let columns: Vec<String> = match rows.next() {
        Some(header) => header.iter().map(str::to_owned).collect(),
        None => Vec::new(),
    };
    if !columns.is_empty() {
        h.push_str("<thead><tr>");
        for column in &columns {
            let _ = write!(
                h,
                "<th title=\"{}\">{}</th>",
                esc(column),
                esc(&display::header_label(column))
            );
        }
        h.push_str("</tr></thead>\n");
    }
    h.push_str("<tbody>\n");
    for record in rows {
        h.push_str("<tr>");
        for (i, cell) in record.iter().enumerate() {
            let column = columns.get(i).map_or("", String::as_str);
            let shown = if i == 0 { cell.to_owned() } else { display::show(column, cell) };
            let numeric = i > 0 && !cell.is_empty() && cell.parse::<f64>().is_ok();
            let class = if numeric { " class=\"n\"" } else { "" };
            if shown == cell {
                let _ = write!(h, "<td{class}>{}</td>", esc(cell));
            } else {
                let _ = write!(h, "<td{class} title=\"{}\">{}</td>", esc(cell), esc(&shown));
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>\n</div>\n</section>\n");
    Ok(())
}

/// The plots of the manifest, by folder then stem (see [`render_index`]).
fn plots_section(
    h: &mut String,
    dir: &Path,
    manifest: &Manifest,
    href: &dyn Fn(&str) -> String,
) -> Result<(), ReportError> {
    let mut plots: Vec<PlotView> = Vec::new();
    for f in manifest.files.iter().filter(|f| f.kind == "plot") {
        let (folder, name) = f.path.rsplit_once('/').unwrap_or(("", f.path.as_str()));
        let Some((stem, ext)) = name.rsplit_once('.') else { continue };
        let at = plots.iter().position(|p| p.folder == folder && p.stem == stem);
        let view = match at {
            Some(i) => &mut plots[i],
            None => {
                plots.push(PlotView {
                    folder: folder.to_owned(),
                    stem: stem.to_owned(),
                    svg_path: None,
                    png_path: None,
                });
                let last = plots.len() - 1;
                &mut plots[last]
            }
        };
        match ext {
            "svg" => view.svg_path = Some(f.path.clone()),
            "png" => view.png_path = Some(f.path.clone()),
            _ => {}
        }
    }
    let rank =
        |stem: &str| PLOT_CAPTIONS.iter().position(|(s, _)| *s == stem).unwrap_or(usize::MAX);
    plots.sort_by(|a, b| {
        a.folder.cmp(&b.folder).then(rank(&a.stem).cmp(&rank(&b.stem))).then(a.stem.cmp(&b.stem))
    });
    h.push_str("<section id=\"plots\">\n<h2>Plots</h2>\n");
    if plots.is_empty() {
        h.push_str("<p class=\"muted\">This run wrote no plots.</p>\n");
    }
    let mut folder: Option<&str> = None;
    for p in &plots {
        if folder != Some(p.folder.as_str()) && !p.folder.is_empty() {
            let _ = writeln!(h, "<h3>{}</h3>", esc(&p.folder));
        }
        folder = Some(p.folder.as_str());
        let id =
            if p.folder.is_empty() { p.stem.clone() } else { format!("{}/{}", p.folder, p.stem) };
        let _ = writeln!(h, "<figure class=\"plot\" id=\"plot-{}\">", esc(&id));
        let caption = PLOT_CAPTIONS.iter().find(|(s, _)| *s == p.stem).map_or("", |(_, c)| *c);
        let _ = write!(h, "<figcaption><strong>{}</strong> {}", esc(&p.stem), esc(caption));
        for (label, path) in [("SVG", &p.svg_path), ("PNG", &p.png_path)] {
            if let Some(path) = path {
                let _ = write!(h, " <a href=\"{}\">{label}</a>", esc(&href(path)));
            }
        }
        h.push_str("</figcaption>\n");
        if let Some(svg) = &p.svg_path {
            h.push_str(&inline_svg(dir, svg)?);
            h.push('\n');
        } else if let Some(png) = &p.png_path {
            let path = dir.join(png);
            let bytes = std::fs::read(&path).map_err(|e| ReportError::Io {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
            let data = base64::engine::general_purpose::STANDARD.encode(bytes);
            let _ =
                writeln!(h, "<img alt=\"{}\" src=\"data:image/png;base64,{data}\">", esc(&p.stem));
        }
        h.push_str("</figure>\n");
    }
    h.push_str("</section>\n");
    Ok(())
}

/// The `<svg …>…</svg>` element of the SVG file `rel` (under `dir`), without what precedes it
/// (an XML declaration or doctype, invalid inside HTML).
fn inline_svg(dir: &Path, rel: &str) -> Result<String, ReportError> {
    let path = dir.join(rel);
    let text = std::fs::read_to_string(&path).map_err(|e| ReportError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let start = text.find("<svg").ok_or_else(|| ReportError::Format {
        path: rel.to_owned(),
        message: "no <svg> element".to_owned(),
    })?;
    Ok(text[start..].trim_end().to_owned())
}

/// One row per run: its partition's table files, linked.
fn tables_section(h: &mut String, manifest: &Manifest, href: &dyn Fn(&str) -> String) {
    // partition → table kind → files.
    let mut runs: BTreeMap<&str, BTreeMap<&str, Vec<&FileEntry>>> = BTreeMap::new();
    for f in &manifest.files {
        let Some(kind) = RUN_TABLES.iter().find(|k| **k == f.kind) else { continue };
        let Some(rest) = f.path.strip_prefix(kind).and_then(|r| r.strip_prefix('/')) else {
            continue;
        };
        let partition = rest.rsplit_once('/').map_or("", |(p, _)| p);
        runs.entry(partition).or_default().entry(kind).or_default().push(f);
    }
    let mut order: Vec<(usize, &str)> = runs
        .keys()
        .map(|p| {
            let name = run_name(p);
            (manifest.policies.iter().position(|n| *n == name).unwrap_or(usize::MAX), *p)
        })
        .collect();
    order.sort();
    h.push_str(
        "<section id=\"tables\">\n<h2>Tables per run</h2>\n<p>Hive-style partitions: DuckDB \
         reads every run at once with <code>read_parquet('jobs/**/*.parquet', \
         hive_partitioning = true)</code> (likewise <code>read_csv</code>, and for \
         <code>epochs</code>, <code>racks</code>), run from this folder.</p>\n\
         <div class=\"scroll\">\n<table id=\"run-tables\">\n<thead><tr><th>run</th>",
    );
    for kind in RUN_TABLES {
        let _ = write!(h, "<th>{kind}</th>");
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for (_, partition) in order {
        let name = run_name(partition);
        let _ = write!(h, "<tr data-partition=\"{}\"><td>{}</td>", esc(partition), esc(&name));
        for kind in RUN_TABLES {
            h.push_str("<td>");
            let files =
                runs.get(partition).and_then(|k| k.get(kind)).map_or(&[][..], |v| v.as_slice());
            for (i, f) in files.iter().enumerate() {
                let label = match f.path.rsplit_once('.').map(|(_, e)| e) {
                    Some("csv") => "CSV",
                    Some("parquet") => "Parquet",
                    Some(other) => other,
                    None => "file",
                };
                let rows = f.rows.map_or(String::new(), |r| format!("{r} rows, "));
                let sep = if i > 0 { " · " } else { "" };
                let _ = write!(
                    h,
                    "{sep}<a href=\"{}\" title=\"{}\">{}</a>",
                    esc(&href(&f.path)),
                    esc(&format!("{rows}{} bytes", f.bytes)),
                    esc(label)
                );
            }
            h.push_str("</td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}

/// The manifest's fields and files.
fn manifest_section(h: &mut String, manifest: &Manifest, href: &dyn Fn(&str) -> String) {
    let m_rel = manifest.shard.manifest_file();
    let _ = write!(
        h,
        "<section id=\"manifest\">\n<h2>Manifest</h2>\n<p>What was run and what was written \
         (<a href=\"{}\">{}</a>, written after this page, also lists the page).</p>\n\
         <table id=\"manifest-fields\" class=\"kv\">\n",
        esc(&href(&m_rel)),
        esc(&m_rel)
    );
    let rows: Vec<String> =
        manifest.rows.iter().map(|(k, n)| format!("{k}: {}", display::count(*n))).collect();
    for (label, value) in [
        ("manifest_version", manifest.manifest_version.to_string()),
        ("generator", manifest.generator.clone()),
        ("git_revision", manifest.git_revision.clone()),
        ("config_sha256", manifest.config_sha256.clone()),
        ("shard", manifest.shard.to_string()),
        ("policies", manifest.policies.join(", ")),
        ("rows", rows.join(", ")),
    ] {
        let _ = writeln!(h, "<tr><th>{label}</th><td>{}</td></tr>", esc(&value));
    }
    h.push_str(
        "</table>\n<h3>Files</h3>\n<div class=\"scroll\">\n<table id=\"manifest-files\">\n\
         <thead><tr><th>path</th><th>kind</th><th>rows</th><th>bytes</th><th>sha256</th></tr>\
         </thead>\n<tbody>\n",
    );
    for f in &manifest.files {
        let rows = f.rows.map_or(String::new(), display::count);
        let _ = writeln!(
            h,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"hash\">{}</td></tr>",
            esc(&href(&f.path)),
            esc(&f.path),
            esc(&f.kind),
            rows,
            display::count(f.bytes),
            esc(&f.sha256)
        );
    }
    h.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}

/// `../` once per folder of `index_rel` (the way from the page back to the output directory).
fn base_of(index_rel: &str) -> String {
    "../".repeat(index_rel.matches('/').count())
}

/// A `/`-separated relative path as a URL path: each segment percent-encoded.
fn encode_path(path: &str) -> String {
    path.split('/')
        .map(|s| utf8_percent_encode(s, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// The run a hive partition stands for: `policy=lsap/alpha=10` → `lsap/alpha=10` (the
/// `policy` key's value, then `key=value` of the others, `%XX` decoded), as the runs are named.
fn run_name(partition: &str) -> String {
    let mut name = String::new();
    for part in partition.split('/').filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let (key, value) = (hive_unescape(key), hive_unescape(value));
        if !name.is_empty() {
            name.push('/');
        }
        if key == "policy" && name.is_empty() {
            name.push_str(&value);
        } else {
            name.push_str(&format!("{key}={value}"));
        }
    }
    name
}

/// Undoes hive's `%XX` escaping (`tables::partition_path`).
fn hive_unescape(s: &str) -> String {
    percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// `s` with `&`, `<`, `>`, `"` and `'` as character references: safe as element text and as
/// a quoted attribute value.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::manifest::Shard;

    /// Every `href="…"` and `src="…"` of `html` that is not a fragment or a `data:` URL, with
    /// character references and percent-encoding undone: the relative paths a browser opens.
    fn relative_links(html: &str) -> Vec<String> {
        let mut out = Vec::new();
        for attr in ["href=\"", "src=\""] {
            for (at, _) in html.match_indices(attr) {
                let rest = &html[at + attr.len()..];
                let value = &rest[..rest.find('"').unwrap()];
                if value.starts_with('#') || value.starts_with("data:") {
                    continue;
                }
                assert!(!value.contains("://"), "not relative: {value}");
                let value = value
                    .replace("&quot;", "\"")
                    .replace("&#39;", "'")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&");
                out.push(
                    percent_encoding::percent_decode_str(&value)
                        .decode_utf8()
                        .unwrap()
                        .into_owned(),
                );
            }
        }
        out
    }

    /// Writes `bytes` to `dir/rel` and describes it.
    fn put(dir: &Path, rel: &str, kind: &str, rows: Option<u64>, bytes: &[u8]) -> FileEntry {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        FileEntry::new(rel.to_owned(), kind, rows, bytes)
    }

    const SVG: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg width=\"10\" height=\"6\" \
                       viewBox=\"0 0 10 6\" xmlns=\"http://www.w3.org/2000/svg\">\
                       <text>a &lt; b</text></svg>\n";

    /// A run of two policies (one with a name that needs escaping, one swept value with a `/`
    /// hive escapes), its tables, a summary, two plots as SVG + PNG and one as PNG only, under
    /// `dir`, as a `shard` writes them; the manifest of it all is written too.
    fn fixture(dir: &Path, shard: Shard) -> Manifest {
        let runs =
            [("policy=lsap", "lsap"), ("policy=a%3Cb%3E%26%22/alpha=1%2F2", "a<b>&\"/alpha=1/2")];
        let mut files = Vec::new();
        // Written in the reverse of run order: the page follows the manifest's order.
        for (partition, _) in runs.iter().rev() {
            for kind in [JOBS_DIR, EPOCHS_DIR, RACKS_DIR] {
                files.push(put(
                    dir,
                    &format!("{kind}/{partition}/part-0.csv"),
                    kind,
                    Some(2),
                    b"a\n1\n2\n",
                ));
                files.push(put(
                    dir,
                    &format!("{kind}/{partition}/part-0.parquet"),
                    kind,
                    Some(2),
                    b"PAR1",
                ));
            }
            files.push(put(
                dir,
                &format!("jobruntime/{partition}/jobruntime.csv"),
                "jobruntime",
                Some(0),
                b"JobID\n",
            ));
        }
        let summary = "policy,jobs,mean_response_s,cpu_utilisation\nlsap,19,12.5,\n\
                       \"a<b>&\"\"/alpha=1/2\",1234,1529.7322138465784,0.6144049808971275\n";
        files.push(put(dir, &shard.summary_file(), "summary", Some(2), summary.as_bytes()));
        let folder = match shard == Shard::WHOLE {
            true => String::new(),
            false => format!("shards/{}-of-{}/", shard.index, shard.count),
        };
        for stem in ["fairness", "locality"] {
            files.push(put(dir, &format!("{folder}{stem}.svg"), "plot", None, SVG.as_bytes()));
            files.push(put(dir, &format!("{folder}{stem}.png"), "plot", None, b"\x89PNG-fake"));
        }
        files.push(put(dir, &format!("{folder}extra.png"), "plot", None, b"\x89PNG-only"));
        let names = runs.iter().map(|(_, n)| (*n).to_owned()).collect();
        let manifest = Manifest::new("abc123", "{}", shard, names, files);
        crate::manifest::write_manifest(dir, &shard.manifest_file(), &manifest).unwrap();
        manifest
    }

    fn about() -> Vec<(String, String)> {
        vec![("trace".to_owned(), "traces/<it's>&\"odd\".json".to_owned())]
    }

    #[test]
    fn html_living_standard_escaping_of_text_and_attributes() {
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        let dir = tempfile::tempdir().unwrap();
        let manifest = fixture(dir.path(), Shard::WHOLE);
        let html =
            render_index(dir.path(), INDEX_FILE, "what-if <of> & \"this\"", &about(), &manifest)
                .unwrap();
        // Titles, the trace's path, policy names (summary cells, run names, the manifest) and
        // partition attributes appear escaped, never raw.
        assert!(html.contains("<title>what-if &lt;of&gt; &amp; &quot;this&quot;</title>"));
        assert!(html.contains("<td>traces/&lt;it&#39;s&gt;&amp;&quot;odd&quot;.json</td>"));
        assert!(html.contains("<td>a&lt;b&gt;&amp;&quot;/alpha=1/2</td>"), "{html}");
        assert!(html.contains("data-partition=\"policy=a%3Cb%3E%26%22/alpha=1%2F2\""));
        assert!(html.contains("lsap, a&lt;b&gt;&amp;&quot;/alpha=1/2"));
        for raw in ["<b>", "<it", "\"odd\"", "a<b"] {
            assert!(!html.contains(raw), "raw {raw} in the page");
        }
        // The inlined SVG keeps its own (already escaped) text and loses its XML prolog.
        assert!(html.contains("<text>a &lt; b</text></svg>"));
        assert!(!html.contains("<?xml"));
        // Nothing to fetch: no script, no absolute URL.
        assert!(!html.contains("<script"));
        assert!(!html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "").contains("://"));
    }

    #[test]
    fn every_plot_file_appears_svg_inlined_png_linked_or_embedded() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = fixture(dir.path(), Shard::WHOLE);
        let html = render_index(dir.path(), INDEX_FILE, "t", &[], &manifest).unwrap();
        for f in manifest.files.iter().filter(|f| f.kind == "plot") {
            assert!(html.contains(&format!("href=\"{}\"", f.path)), "{} not linked", f.path);
        }
        // A PNG without an SVG twin is embedded.
        let data = base64::engine::general_purpose::STANDARD.encode(b"\x89PNG-only");
        assert!(html.contains(&format!("src=\"data:image/png;base64,{data}\"")));
        assert_eq!(html.matches("<svg ").count(), 2);
        assert_eq!(html.matches("<figure class=\"plot\"").count(), 3);
        // In write_plots order: locality before fairness, then the unknown stem.
        let at = |s: &str| html.find(s).unwrap();
        assert!(at("id=\"plot-locality\"") < at("id=\"plot-fairness\""));
        assert!(at("id=\"plot-fairness\"") < at("id=\"plot-extra\""));
        // The summary table has summary.csv's cells, quotes undone, rounded for reading with
        // the exact value as the tooltip (12.5 s keeps 3 digits: 12.5), units in the headers.
        assert!(html.contains("<th title=\"cpu_utilisation\">cpu utilisation (%)</th>"));
        assert!(html.contains("<th title=\"mean_response_s\">mean response (s)</th>"));
        assert!(
            html.contains("<td>lsap</td><td class=\"n\">19</td><td class=\"n\">12.5</td><td></td>")
        );
        assert!(html.contains(
            "<td class=\"n\" title=\"1234\">1,234</td>\
             <td class=\"n\" title=\"1529.7322138465784\">1,530</td>\
             <td class=\"n\" title=\"0.6144049808971275\">61.4</td>"
        ));
    }

    #[test]
    fn links_per_run_resolve_to_files_that_exist_from_a_shards_folder_too() {
        for shard in [Shard::WHOLE, Shard { index: 1, count: 2 }] {
            let dir = tempfile::tempdir().unwrap();
            let manifest = fixture(dir.path(), shard);
            let rel = match shard == Shard::WHOLE {
                true => INDEX_FILE.to_owned(),
                false => format!("shards/1-of-2/{INDEX_FILE}"),
            };
            let entry = write_index(dir.path(), &rel, "t", &about(), &manifest).unwrap();
            assert_eq!((entry.path.as_str(), entry.kind.as_str()), (rel.as_str(), INDEX_KIND));
            let page = dir.path().join(&rel);
            let html = std::fs::read_to_string(&page).unwrap();
            let links = relative_links(&html);
            // Every file of the manifest, the manifest itself, and nothing else.
            let mut expected: Vec<String> = manifest.files.iter().map(|f| f.path.clone()).collect();
            expected.push(shard.manifest_file());
            for path in &expected {
                let from_page = format!("{}{path}", base_of(&rel));
                assert!(links.contains(&from_page), "{path} not linked from {rel}");
            }
            for link in &links {
                let target = page.parent().unwrap().join(link);
                assert!(target.is_file(), "{rel}: {link} does not resolve");
            }
            // The run table: one row per run in the manifest's order, each with 7 links.
            let table = &html[html.find("id=\"run-tables\"").unwrap()..];
            let table = &table[..table.find("</table>").unwrap()];
            let rows: Vec<&str> = table.split("<tr data-partition=").skip(1).collect();
            assert_eq!(rows.len(), 2);
            assert!(rows[0].starts_with("\"policy=lsap\""));
            assert!(rows[1].starts_with("\"policy=a%3Cb%3E%26%22/alpha=1%2F2\""));
            for row in rows {
                assert_eq!(row.matches("<a href=").count(), 7, "{row}");
                assert!(row.contains(">CSV</a>") && row.contains(">Parquet</a>"));
            }
            // A hive `%XX` is a literal `%` in the file name, so its link encodes it.
            assert!(html.contains("policy=a%253Cb%253E%2526%2522/alpha=1%252F2/part-0.parquet"));
        }
    }

    #[test]
    fn a_missing_summary_or_plot_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = fixture(dir.path(), Shard::WHOLE);
        std::fs::remove_file(dir.path().join("locality.svg")).unwrap();
        let e = render_index(dir.path(), INDEX_FILE, "t", &[], &manifest).unwrap_err();
        assert!(e.to_string().contains("locality.svg"), "{e}");
        std::fs::remove_file(dir.path().join("summary.csv")).unwrap();
        let e = render_index(dir.path(), INDEX_FILE, "t", &[], &manifest).unwrap_err();
        assert!(e.to_string().contains("summary.csv"), "{e}");
    }

    #[test]
    fn run_names_from_hive_partitions() {
        assert_eq!(run_name("policy=lsap"), "lsap");
        assert_eq!(run_name("policy=lsap/alpha=10/t1_s=4.5"), "lsap/alpha=10/t1_s=4.5");
        assert_eq!(run_name("policy=a%2Fb/x=1%3D2"), "a/b/x=1=2");
        assert_eq!(base_of("index.html"), "");
        assert_eq!(base_of("shards/0-of-2/index.html"), "../../");
        assert_eq!(encode_path("jobs/policy=a%2F b/x.csv"), "jobs/policy=a%252F%20b/x.csv");
    }
}

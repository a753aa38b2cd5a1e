//! The `manifest.json` of a `placer whatif` run or shard (docs/simulator.md, "Sweeps and
//! shards"): what was run (git revision, config hash, shard, policies) and what was written
//! (every file with its size, row count and SHA-256), written last and atomically, so that a
//! manifest's presence means its shard is complete.
//!
//! The library does no I/O beyond writing (and reading back) its own files: the caller passes
//! the git revision as a string and the config as its JSON text. Hashes are SHA-256 (FIPS
//! 180-4, implemented here; no dependency), written `sha256:` + 64 lowercase hex digits, so
//! `sha256sum config.json` reproduces `config_sha256`.
//!
//! ```json
//! {
//!   "manifest_version": 1,
//!   "generator": "placer-report 0.1.0",
//!   "git_revision": "3f2c1e0",
//!   "config_sha256": "sha256:…",
//!   "shard": "0/1",
//!   "policies": ["dl_sched", "lsap"],
//!   "rows": {"epochs": 812, "jobruntime": 40, "jobs": 40, "summary": 2},
//!   "files": [{"path": "epochs/policy=dl_sched/part-0.csv", "kind": "epochs", "rows": 406,
//!              "bytes": 51234, "sha256": "sha256:…"}, …]
//! }
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::atomic::write_atomic;
use crate::ReportError;

/// The manifest's file name in an unsharded run (see [`Shard::manifest_file`]).
pub const MANIFEST_FILE: &str = "manifest.json";

/// The manifest format version this crate writes.
pub const MANIFEST_VERSION: u32 = 1;

/// One file a run wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Path relative to the output directory, `/`-separated.
    pub path: String,
    /// What it holds: `summary`, `jobs`, `epochs`, `racks`, `jobruntime`, `validation`, `plot`,
    /// ...
    pub kind: String,
    /// Data rows (header excluded) for tables; `None` for plots and other files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Size in bytes.
    pub bytes: u64,
    /// `sha256:` + hex digest of the contents.
    pub sha256: String,
}

impl FileEntry {
    /// Describes `contents` written at `path` (relative, `/`-separated).
    pub fn new(path: String, kind: &str, rows: Option<u64>, contents: &[u8]) -> Self {
        FileEntry {
            path,
            kind: kind.to_owned(),
            rows,
            bytes: contents.len() as u64,
            sha256: sha256_tagged(contents),
        }
    }
}

/// Which part of a sharded sweep this is: runs `i` with `i mod count == index` (0-based, as
/// `placer whatif --shard i/N`). Written `"i/N"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: usize,
    /// Shards in the sweep, ≥ 1.
    pub count: usize,
}

impl Shard {
    /// The whole run as one shard, `0/1`.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// `i/N`, checking `N ≥ 1` and `i < N`.
    ///
    /// Errors: [`ReportError::Format`] (path `shard`) otherwise.
    pub fn new(index: usize, count: usize) -> Result<Self, ReportError> {
        if count == 0 || index >= count {
            return Err(ReportError::Format {
                path: "shard".to_owned(),
                message: format!("{index}/{count}: need 0 ≤ i < N"),
            });
        }
        Ok(Shard { index, count })
    }

    /// Where this shard's summary goes: `summary.csv` for `0/1`, else
    /// `shards/i-of-N/summary.csv` (shards share the `--out` directory; `placer whatif
    /// summarize` merges them into `summary.csv`).
    pub fn summary_file(&self) -> String {
        self.file("summary.csv")
    }

    /// Where this shard's `validation.csv` goes (when a run has real finish times):
    /// `validation.csv` for `0/1`, else `shards/i-of-N/validation.csv` (merged by `placer
    /// whatif summarize`).
    pub fn validation_file(&self) -> String {
        self.file("validation.csv")
    }

    /// Where this shard's `traffic_by_class.csv` goes (when jobs have ShuffleWatcher Table 1
    /// classes): `traffic_by_class.csv` for `0/1`, else `shards/i-of-N/traffic_by_class.csv`.
    pub fn traffic_by_class_file(&self) -> String {
        self.file("traffic_by_class.csv")
    }

    /// Where this shard's `by_class.csv` goes (per run and job class): `by_class.csv` for `0/1`,
    /// else `shards/i-of-N/by_class.csv`.
    pub fn by_class_file(&self) -> String {
        self.file("by_class.csv")
    }

    /// Where this shard's `cross_rack_timeseries.csv` goes: `cross_rack_timeseries.csv` for
    /// `0/1`, else `shards/i-of-N/cross_rack_timeseries.csv`.
    pub fn cross_rack_timeseries_file(&self) -> String {
        self.file("cross_rack_timeseries.csv")
    }

    /// Where this shard's `index.html` goes ([`crate::index_html`]): `index.html` for `0/1`,
    /// else `shards/i-of-N/index.html`.
    pub fn index_file(&self) -> String {
        self.file(crate::index_html::INDEX_FILE)
    }

    /// Where this shard's manifest goes: `manifest.json` for `0/1`, else
    /// `shards/i-of-N/manifest.json`.
    pub fn manifest_file(&self) -> String {
        self.file(MANIFEST_FILE)
    }

    fn file(&self, name: &str) -> String {
        if *self == Shard::WHOLE {
            name.to_owned()
        } else {
            format!("shards/{}-of-{}/{name}", self.index, self.count)
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ReportError;

    /// Parses `i/N`.
    fn from_str(s: &str) -> Result<Self, ReportError> {
        let bad = || ReportError::Format {
            path: "shard".to_owned(),
            message: format!("`{s}`: expected i/N"),
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        Shard::new(i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?)
    }
}

impl Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A run's or shard's manifest (see the module docs for the JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_VERSION`].
    pub manifest_version: u32,
    /// `placer-report` and its version.
    pub generator: String,
    /// The caller's git revision (e.g. `git describe --always --dirty`), verbatim.
    pub git_revision: String,
    /// SHA-256 of the config JSON text, `sha256:` + hex.
    pub config_sha256: String,
    /// This shard, `"i/N"`.
    pub shard: Shard,
    /// Run labels (policies) in this shard, in run order.
    pub policies: Vec<String>,
    /// Data rows per table kind (each table counted once, from its CSV file(s)).
    pub rows: BTreeMap<String, u64>,
    /// Files written, sorted by path (the manifest itself excluded).
    pub files: Vec<FileEntry>,
}

impl Manifest {
    /// The manifest of a run that wrote `files`. Rows per kind are summed over the CSV files
    /// (every table has a CSV form; its Parquet twin holds the same rows).
    pub fn new(
        git_revision: &str,
        config_json: &str,
        shard: Shard,
        policies: Vec<String>,
        mut files: Vec<FileEntry>,
    ) -> Self {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let mut rows = BTreeMap::new();
        for f in &files {
            if let (Some(n), true) = (f.rows, f.path.ends_with(".csv")) {
                *rows.entry(f.kind.clone()).or_insert(0) += n;
            }
        }
        Manifest {
            manifest_version: MANIFEST_VERSION,
            generator: format!("placer-report {}", env!("CARGO_PKG_VERSION")),
            git_revision: git_revision.to_owned(),
            config_sha256: config_hash(config_json),
            shard,
            policies,
            rows,
            files,
        }
    }
}

/// The config hash recorded in manifests: `sha256:` + hex SHA-256 of the UTF-8 text.
pub fn config_hash(config_json: &str) -> String {
    sha256_tagged(config_json.as_bytes())
}

/// Writes `manifest` as pretty JSON (plus a final newline) to `dir/rel_path` atomically
/// (normally [`Shard::manifest_file`]); call it after every other file is written.
///
/// Errors: [`ReportError::Io`]; [`ReportError::Format`] if serialisation fails (a bug).
pub fn write_manifest(
    dir: &Path,
    rel_path: &str,
    manifest: &Manifest,
) -> Result<FileEntry, ReportError> {
    let mut text = serde_json::to_string_pretty(manifest)
        .map_err(|e| ReportError::Format { path: rel_path.to_owned(), message: e.to_string() })?;
    text.push('\n');
    write_atomic(&dir.join(rel_path), text.as_bytes())?;
    Ok(FileEntry::new(rel_path.to_owned(), "manifest", None, text.as_bytes()))
}

/// Reads a manifest back.
///
/// Errors: [`ReportError::Io`] if unreadable, [`ReportError::Format`] if it is not a manifest
/// or its `manifest_version` is newer than this crate's.
pub fn read_manifest(path: &Path) -> Result<Manifest, ReportError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| ReportError::Io { path: shown.clone(), message: e.to_string() })?;
    let manifest: Manifest = serde_json::from_str(&text)
        .map_err(|e| ReportError::Format { path: shown.clone(), message: e.to_string() })?;
    if manifest.manifest_version > MANIFEST_VERSION {
        return Err(ReportError::Format {
            path: shown,
            message: format!(
                "manifest_version {} is newer than this build's {MANIFEST_VERSION}",
                manifest.manifest_version
            ),
        });
    }
    Ok(manifest)
}

/// `sha256:` + lowercase hex digest.
fn sha256_tagged(data: &[u8]) -> String {
    let digest = sha256(data);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// SHA-256 round constants (FIPS 180-4 §4.2.2).
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// SHA-256 (FIPS 180-4 §6.2) of `data`: pad with 0x80, zeros and the 64-bit big-endian bit
/// length to a multiple of 64 bytes, then compress each block. O(n).
fn sha256(data: &[u8]) -> [u8; 32] {
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut message = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&bit_len.to_be_bytes());
    for block in message.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (t, word) in block.chunks_exact(4).enumerate() {
            w[t] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for t in 16..64 {
            let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
            let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16].wrapping_add(s0).wrapping_add(w[t - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for t in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[t]).wrapping_add(w[t]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS 180-4 / NIST CSHA examples, plus a two-block boundary case.
    #[test]
    fn sha256_known_answers() {
        assert_eq!(
            sha256_tagged(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_tagged(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_tagged(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "sha256:248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        let million_a = vec![b'a'; 1_000_000];
        assert_eq!(
            sha256_tagged(&million_a),
            "sha256:cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    #[test]
    fn shards_parse_and_print() {
        let s: Shard = "2/4".parse().unwrap();
        assert_eq!(s, Shard { index: 2, count: 4 });
        assert_eq!(s.to_string(), "2/4");
        assert_eq!(s.summary_file(), "shards/2-of-4/summary.csv");
        assert_eq!(Shard::WHOLE.manifest_file(), "manifest.json");
        assert_eq!(s.index_file(), "shards/2-of-4/index.html");
        for bad in ["4/4", "1/0", "x/2", "3", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}

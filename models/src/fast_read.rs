//! A fast reader for the common shape of a v1 snapshot (docs/wire-schema.md): the large arrays
//! (`pending`, `running`, `cluster.nodes`, `cluster.racks`) read byte by byte into their types,
//! everything else handed to `serde_json`. It reads only what it can read exactly as
//! `serde_json` with the derived deserializers would; anything else (an escape in a string, a
//! negative number or an exponent, a field it does not know, a duplicate field) is read again
//! by `serde_json` — the one element, or, where that is not possible, the whole body by
//! [`crate::parse_request`]'s `serde_json` path. So it never accepts a body `serde_json`
//! refuses, never gives a different value, and leaves every error to the `serde_json` path.

use crate::ids::{JobId, NodeId, RackId, TaskId};
use crate::replicas::Replicas;
use crate::request::{
    Cluster, Node, PendingTask, PlaceRequest, Rack, ReducePhase, RunningTask, TaskKind,
};
use serde::de::{DeserializeOwned, IgnoredAny};

/// Reads `bytes` as a v1 snapshot, or `None` when it cannot be sure of the answer (then the
/// body is for `serde_json`: it may still be valid).
///
/// # Complexity
/// O(bytes) time; memory the parsed snapshot.
pub(crate) fn read(bytes: &[u8]) -> Option<PlaceRequest> {
    // serde_json refuses a body that is not UTF-8 (outside strings nothing but ASCII parses,
    // inside them it checks), so checking the whole body once lets every string be sliced out
    // of it without a check of its own.
    let text = std::str::from_utf8(bytes).ok()?;
    let mut r = Reader { text, b: bytes, i: 0, names: Vec::new() };
    let req = r.request()?;
    r.ws();
    (r.i == bytes.len()).then_some(req)
}

/// Values handed to `serde_json` in the middle of a body are read by a fresh deserializer whose
/// nesting limit (128) counts from that value, not from the body's top; a value nested deeper
/// than this, counting the containers around it, goes to the whole-body path instead.
const DEPTH_HANDED_OVER: usize = 96;

/// Elements read before an array's length is estimated from their bytes.
const SAMPLE: usize = 64;

/// Powers of ten exact in an `f64` (10²² is the largest).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The body and the position being read.
struct Reader<'a> {
    /// The body, valid UTF-8.
    text: &'a str,
    /// The same bytes.
    b: &'a [u8],
    i: usize,
    /// Scratch for a replica list's names (kept from one list to the next).
    names: Vec<&'a str>,
}

/// The field bits of one object, to refuse duplicates as the derived deserializers do.
struct Seen(u32);

impl Seen {
    /// Marks field `k`; `None` if it was seen already.
    fn mark(&mut self, k: u32) -> Option<()> {
        let bit = 1 << k;
        if self.0 & bit != 0 {
            return None;
        }
        self.0 |= bit;
        Some(())
    }

    fn has(&self, k: u32) -> bool {
        self.0 & (1 << k) != 0
    }
}

impl<'a> Reader<'a> {
    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    /// Skips whitespace and then `c`.
    #[inline]
    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }

    /// Skips whitespace and returns the next byte without taking it.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    /// A string without escapes or control characters (the body is valid UTF-8 and both ends
    /// are quotes, so the slice is on character boundaries).
    #[inline]
    fn str(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        let rest = self.b.get(start..)?;
        let len = rest.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        if rest[len] != b'"' {
            return None;
        }
        self.i = start + len + 1;
        self.text.get(start..start + len)
    }

    /// The digits of a non-negative integer: `None` for a sign, a fraction, an exponent, a
    /// leading zero or more than `u64`.
    #[inline]
    fn u64(&mut self) -> Option<u64> {
        self.ws();
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(&c @ b'0'..=b'9') = self.b.get(self.i) {
            v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
            self.i += 1;
        }
        let digits = self.i - start;
        if digits == 0 || (digits > 1 && self.b[start] == b'0') {
            return None;
        }
        if let Some(b'.' | b'e' | b'E') = self.b.get(self.i) {
            return None;
        }
        Some(v)
    }

    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.u64()?).ok()
    }

    /// A non-negative number of at most 15 significant digits and 22 decimals, without an
    /// exponent: `serde_json` reads it as the mantissa divided by a power of ten, both exact,
    /// which is the correctly rounded value; so is this.
    #[inline]
    fn f64(&mut self) -> Option<f64> {
        self.ws();
        let start = self.i;
        let mut m: u64 = 0;
        while let Some(&c @ b'0'..=b'9') = self.b.get(self.i) {
            m = m.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
            self.i += 1;
        }
        let digits = self.i - start;
        if digits == 0 || (digits > 1 && self.b[start] == b'0') {
            return None;
        }
        let mut decimals = 0;
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            while let Some(&c @ b'0'..=b'9') = self.b.get(self.i) {
                m = m.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
                self.i += 1;
                decimals += 1;
            }
            if decimals == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            return None;
        }
        if m >= 1 << 53 {
            return None;
        }
        // An integer is read by serde_json as a u64 and converted, the same value.
        Some(m as f64 / POW10.get(decimals)?)
    }

    /// `null` or a number as [`Self::f64`].
    #[inline]
    fn opt_f64(&mut self) -> Option<Option<f64>> {
        if self.peek()? == b'n' {
            self.null()?;
            Some(None)
        } else {
            self.f64().map(Some)
        }
    }

    /// The literal `null`.
    fn null(&mut self) -> Option<()> {
        self.ws();
        if self.b.get(self.i..self.i + 4) == Some(b"null") {
            self.i += 4;
            Some(())
        } else {
            None
        }
    }

    /// The value here read by `serde_json` (`depth` = the containers around it), or `None` if
    /// it fails or is nested too deep to be read apart from the body.
    fn serde<T: DeserializeOwned>(&mut self, depth: usize) -> Option<T> {
        self.ws();
        let rest = self.b.get(self.i..)?;
        let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<T>();
        let value = stream.next()?.ok()?;
        let end = stream.byte_offset();
        if depth + nesting(&rest[..end]) >= DEPTH_HANDED_OVER {
            return None;
        }
        self.i += end;
        Some(value)
    }

    /// An object's fields: `field(self, key)` reads each value. `None` if it is not an object
    /// of string keys or `field` fails.
    #[inline]
    fn object(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            let key = self.str()?;
            self.eat(b':')?;
            field(self, key)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An array's elements: `element(self)` reads each.
    #[inline]
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.peek()? == b']' {
            self.i += 1;
            return Some(());
        }
        loop {
            element(self)?;
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An array of `T`, each element read by `fast` or, where it cannot, by `serde_json`
    /// (`depth` = the containers around the array).
    fn list<T: DeserializeOwned>(
        &mut self,
        depth: usize,
        fast: impl Fn(&mut Self) -> Option<T>,
    ) -> Option<Vec<T>> {
        let mut out = Vec::new();
        let first = self.i;
        self.array(|r| {
            r.ws();
            let start = r.i;
            let item = match fast(r) {
                Some(item) => item,
                None => {
                    r.i = start;
                    r.serde(depth + 1)?
                }
            };
            out.push(item);
            if out.len() == SAMPLE {
                // Room for the rest of the body at the sample's bytes per element, if it can be
                // had: pages never written are never mapped, and growing by doubling would
                // write (and, for large arrays, fault in) every element twice or more.
                let per = ((r.i - first) / SAMPLE).max(1);
                let _ = out.try_reserve((r.b.len() - r.i) / per);
            }
            Some(())
        })?;
        out.shrink_to_fit();
        Some(out)
    }

    /// The snapshot's top-level object.
    fn request(&mut self) -> Option<PlaceRequest> {
        let mut req = PlaceRequest::default();
        let mut seen = Seen(0);
        self.object(|r, key| {
            match key {
                "schema_version" => {
                    seen.mark(0)?;
                    req.schema_version = r.u64()?;
                }
                "now_s" => {
                    seen.mark(1)?;
                    req.now_s = r.f64()?;
                }
                "cluster" => {
                    seen.mark(2)?;
                    req.cluster = r.cluster()?;
                }
                "pools" => {
                    seen.mark(3)?;
                    req.pools = r.serde(1)?;
                }
                "jobs" => {
                    seen.mark(4)?;
                    req.jobs = r.serde(1)?;
                }
                "pending" => {
                    seen.mark(5)?;
                    req.pending = r.list(1, Self::pending)?;
                }
                "running" => {
                    seen.mark(6)?;
                    req.running = r.list(1, Self::running)?;
                }
                "users" => {
                    seen.mark(7)?;
                    req.users = r.serde(1)?;
                }
                "policy" => {
                    seen.mark(8)?;
                    req.policy = r.serde(1)?;
                }
                _ => {
                    r.serde::<IgnoredAny>(1)?;
                }
            }
            Some(())
        })?;
        (seen.has(0) && seen.has(2)).then_some(req)
    }

    /// `cluster`.
    fn cluster(&mut self) -> Option<Cluster> {
        let mut cluster = Cluster::default();
        let mut seen = Seen(0);
        self.object(|r, key| {
            match key {
                "racks" => {
                    seen.mark(0)?;
                    cluster.racks = r.list(2, Self::rack)?;
                }
                "nodes" => {
                    seen.mark(1)?;
                    cluster.nodes = r.list(2, Self::node)?;
                }
                "network" => {
                    seen.mark(2)?;
                    cluster.network = r.serde(2)?;
                }
                _ => {
                    r.serde::<IgnoredAny>(2)?;
                }
            }
            Some(())
        })?;
        Some(cluster)
    }

    /// One rack with its id and measurements only.
    fn rack(&mut self) -> Option<Rack> {
        let (mut id, mut uplink, mut traffic) = (None, None, None);
        self.object(|r, key| {
            match key {
                "id" if id.is_none() => id = Some(r.str()?),
                "uplink_mbps" if uplink.is_none() => uplink = Some(r.opt_f64()?),
                "cross_rack_traffic_mbps" if traffic.is_none() => traffic = Some(r.opt_f64()?),
                _ => return None,
            }
            Some(())
        })?;
        Some(Rack {
            id: RackId::from(id?),
            uplink_mbps: uplink.flatten(),
            cross_rack_traffic_mbps: traffic.flatten(),
        })
    }

    /// One node with its id, rack and slot counts only.
    fn node(&mut self) -> Option<Node> {
        let mut node = Node::default();
        let (mut id, mut rack) = (None, None);
        let mut seen = Seen(0);
        self.object(|r, key| {
            match key {
                "id" if id.is_none() => id = Some(r.str()?),
                "rack" if rack.is_none() => rack = Some(r.str()?),
                "map_slots" => {
                    seen.mark(0)?;
                    node.map_slots = r.u32()?;
                }
                "reduce_slots" => {
                    seen.mark(1)?;
                    node.reduce_slots = r.u32()?;
                }
                _ => return None,
            }
            Some(())
        })?;
        node.id = NodeId::from(id?);
        node.rack = RackId::from(rack?);
        Some(node)
    }

    /// One pending task without shuffle sources or a demand.
    fn pending(&mut self) -> Option<PendingTask> {
        let mut task = PendingTask::default();
        let (mut id, mut job, mut kind) = (None, None, None);
        let mut seen = Seen(0);
        self.object(|r, key| {
            match key {
                "id" if id.is_none() => id = Some(r.str()?),
                "job" if job.is_none() => job = Some(r.str()?),
                "kind" if kind.is_none() => kind = Some(r.kind()?),
                "input_bytes" => {
                    seen.mark(0)?;
                    task.input_bytes = r.u64()?;
                }
                "output_bytes" => {
                    seen.mark(1)?;
                    task.output_bytes = r.u64()?;
                }
                "replicas" => {
                    seen.mark(2)?;
                    task.replicas = r.replicas()?;
                }
                "pending_since_s" => {
                    seen.mark(3)?;
                    task.pending_since_s = r.opt_f64()?;
                }
                _ => return None,
            }
            Some(())
        })?;
        task.id = TaskId::from(id?);
        task.job = JobId::from(job?);
        task.kind = kind?;
        Some(task)
    }

    /// One running task without a demand.
    fn running(&mut self) -> Option<RunningTask> {
        let mut task = RunningTask::default();
        let (mut id, mut job, mut kind, mut node) = (None, None, None, None);
        let mut seen = Seen(0);
        self.object(|r, key| {
            match key {
                "id" if id.is_none() => id = Some(r.str()?),
                "job" if job.is_none() => job = Some(r.str()?),
                "kind" if kind.is_none() => kind = Some(r.kind()?),
                "node" if node.is_none() => node = Some(r.str()?),
                "started_s" => {
                    seen.mark(0)?;
                    task.started_s = r.opt_f64()?;
                }
                "phase" => {
                    seen.mark(1)?;
                    task.phase = if r.peek()? == b'n' {
                        r.null()?;
                        None
                    } else {
                        Some(match r.str()? {
                            "copy" => ReducePhase::Copy,
                            "compute" => ReducePhase::Compute,
                            _ => return None,
                        })
                    };
                }
                _ => return None,
            }
            Some(())
        })?;
        task.id = TaskId::from(id?);
        task.job = JobId::from(job?);
        task.kind = kind?;
        task.node = NodeId::from(node?);
        Some(task)
    }

    /// `"map"` or `"reduce"`.
    fn kind(&mut self) -> Option<TaskKind> {
        match self.str()? {
            "map" => Some(TaskKind::Map),
            "reduce" => Some(TaskKind::Reduce),
            _ => None,
        }
    }

    /// An array of plain strings, sized exactly.
    fn replicas(&mut self) -> Option<Replicas> {
        let mut names = std::mem::take(&mut self.names);
        names.clear();
        let read = self.array(|r| {
            names.push(r.str()?);
            Some(())
        });
        let list = read.and_then(|()| Replicas::from_names(&names));
        self.names = names;
        list
    }
}

/// The deepest nesting of arrays and objects in one JSON value's text.
fn nesting(text: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for &c in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde_json alone makes of a body.
    fn by_serde(body: &str) -> Option<PlaceRequest> {
        let mut de = serde_json::Deserializer::from_str(body);
        let req = serde::Deserialize::deserialize(&mut de).ok()?;
        de.end().ok().map(|()| req)
    }

    /// The fast reader never disagrees with serde_json: where it answers, serde_json gives the
    /// same snapshot.
    fn agrees(body: &str) -> Option<PlaceRequest> {
        let fast = read(body.as_bytes());
        if let Some(fast) = &fast {
            assert_eq!(Some(fast), by_serde(body).as_ref(), "{body}");
        }
        fast
    }

    const CLUSTER: &str = r#""cluster":{"racks":[{"id":"r0"},{"id":"r1","uplink_mbps":500.5}],
        "nodes":[{"id":"n0","rack":"r0","map_slots":4,"reduce_slots":2},
                 {"id":"n1","rack":"r1","map_slots":1,"resources":{"disk":10}}]}"#;

    #[test]
    fn reads_the_common_shape_as_serde_json_does() {
        let body = format!(
            r#"{{"schema_version":1,"now_s":12.25,{CLUSTER},"pools":[{{"id":"p"}}],
            "jobs":[{{"id":"j","pool":"p","delay":{{"level":1}}}}],
            "pending":[{{"id":"t0","job":"j","kind":"map","input_bytes":128,
                         "replicas":["n0","n1"],"pending_since_s":3.5}},
                       {{"id":"t1","job":"j","kind":"reduce","shuffle":[{{"node":"n0","bytes":5}}]}}],
            "running":[{{"id":"t2","job":"j","kind":"reduce","node":"n0","started_s":0.0,
                         "phase":"compute"}},{{"id":"t3","job":"j","kind":"map","node":"n1"}}],
            "policy":{{"algorithm":"lsap_fair"}},"extra":[1,{{"a":null}}]}}"#
        );
        let req = agrees(&body).expect("the fast reader takes this body");
        assert_eq!(req.now_s, 12.25);
        assert_eq!(req.pending[0].replicas.iter().collect::<Vec<_>>(), ["n0", "n1"]);
        assert_eq!(req.pending[1].shuffle.len(), 1);
        assert_eq!(req.cluster.nodes[1].disk(), Some(10));
        assert_eq!(req.running[0].phase, Some(ReducePhase::Compute));
        assert!(req.jobs[0].state.get("delay").is_some());
    }

    /// Gangs, topology domains and blocks: jobs are serde_json's, a node with a block falls
    /// back to serde_json element by element; both readers give the same snapshot.
    #[test]
    fn gang_topology_and_block_read_as_serde_json_reads_them() {
        let body = r#"{"schema_version":1,"cluster":{"racks":[{"id":"r0"}],
            "nodes":[{"id":"n0","rack":"r0","map_slots":2,"block":"b0"},
                     {"id":"n1","rack":"r0","map_slots":2}]},
            "pools":[{"id":"p"}],
            "jobs":[{"id":"j","pool":"p","gang":{"min_member":2},
                     "topology":{"level":"rack","mode":"preferred","penalty_s":7.5}}],
            "pending":[{"id":"t0","job":"j","kind":"map"},{"id":"t1","job":"j","kind":"map"}]}"#;
        let req = agrees(body).expect("the fast reader takes this body");
        assert_eq!(req.cluster.nodes[0].block.as_ref().map(|b| b.as_str()), Some("b0"));
        assert_eq!(req.cluster.nodes[1].block, None);
        assert_eq!(req.jobs[0].gang.map(|g| g.min_member), Some(2));
        let topology = req.jobs[0].topology.expect("topology read");
        assert_eq!(topology.level, crate::TopologyLevel::Rack);
        assert_eq!(topology.penalty(), 7.5);
        assert!(req.jobs[0].state.is_empty(), "gang and topology are fields, not echoed state");
    }

    #[test]
    fn numbers_read_as_serde_json_reads_them() {
        for now in ["0", "0.0", "1.5", "0.1", "0.3000000000000004", "123456789.123456", "7"] {
            let body = format!(r#"{{"schema_version":1,"now_s":{now},"cluster":{{}}}}"#);
            let req = agrees(&body).expect("a plain decimal is read fast");
            assert_eq!(req.now_s.to_bits(), now.parse::<f64>().unwrap().to_bits(), "{now}");
        }
        // An exponent, a sign or 17 digits: serde_json's (the fast reader declines).
        for now in ["1e3", "-0.0", "0.30000000000000004", "1E-2"] {
            let body = format!(r#"{{"schema_version":1,"now_s":{now},"cluster":{{}}}}"#);
            assert!(read(body.as_bytes()).is_none(), "{now}");
        }
    }

    #[test]
    fn declines_what_serde_json_refuses() {
        let bodies = [
            // Duplicate fields, at the top, in a node and in a task.
            r#"{"schema_version":1,"schema_version":1,"cluster":{}}"#,
            r#"{"schema_version":1,"cluster":{"nodes":[{"id":"a","id":"b","rack":"r"}]}}"#,
            r#"{"schema_version":1,"cluster":{},"running":[{"id":"t","job":"j","kind":"map",
                "node":"n","started_s":1,"started_s":2}]}"#,
            // Missing fields, wrong types, bad numbers.
            r#"{"schema_version":1}"#,
            r#"{"schema_version":1,"cluster":{},"pending":[{"id":"t","kind":"map"}]}"#,
            r#"{"schema_version":1,"cluster":{"nodes":[{"id":"a","rack":"r","map_slots":-1}]}}"#,
            r#"{"schema_version":1,"cluster":{"nodes":[{"id":"a","rack":"r","map_slots":4294967296}]}}"#,
            r#"{"schema_version":01,"cluster":{}}"#,
            r#"{"schema_version":1,"now_s":1.,"cluster":{}}"#,
            r#"{"schema_version":1,"cluster":{},"pending":null}"#,
            r#"{"schema_version":1,"cluster":{},"pending":[{"id":"t","job":"j","kind":"mop"}]}"#,
            // Syntax: trailing comma, trailing text, control character, bad UTF-8.
            r#"{"schema_version":1,"cluster":{},}"#,
            r#"{"schema_version":1,"cluster":{}} x"#,
            "{\"schema_version\":1,\"cluster\":{\"racks\":[{\"id\":\"a\tb\"}]}}",
        ];
        for body in bodies {
            assert!(by_serde(body).is_none(), "serde_json refuses {body}");
            assert!(read(body.as_bytes()).is_none(), "{body}");
        }
        let mut bad_utf8 = br#"{"schema_version":1,"cluster":{"racks":[{"id":"#.to_vec();
        bad_utf8.extend_from_slice(b"\"\xff\"}]}}");
        assert!(read(&bad_utf8).is_none());
    }

    #[test]
    fn escapes_and_other_shapes_go_to_serde_json_and_agree() {
        let bodies = [
            // An escaped id: the element is serde_json's.
            r#"{"schema_version":1,"cluster":{"racks":[{"id":"r\u0030"}]}}"#,
            // A task given as an array (the derived deserializers take it).
            r#"{"schema_version":1,"cluster":{},"running":[["t","j","map","n"]]}"#,
            // Nulls for optional fields, whitespace everywhere.
            " { \"schema_version\" : 1 , \"cluster\" : { \"racks\" : [ { \"id\" : \"r\" , \
             \"uplink_mbps\" : null } ] } , \"running\" : [ { \"id\" : \"t\" , \"job\" : \"j\" \
             , \"kind\" : \"map\" , \"node\" : \"n\" , \"started_s\" : null , \"phase\" : null } ] } ",
        ];
        for body in bodies {
            assert!(by_serde(body).is_some(), "{body}");
            assert!(agrees(body).is_some(), "{body}");
        }
    }

    #[test]
    fn mutated_bodies_never_disagree_with_serde_json() {
        use rand::{Rng, SeedableRng};
        // A body with every shape the fast reader takes, mutated one to three bytes at a time
        // (seeded): wherever the fast reader answers, serde_json gives the same snapshot.
        let base = format!(
            r#"{{"schema_version":1,"now_s":12.25,{CLUSTER},"jobs":[{{"id":"j","pool":"p"}}],
            "pending":[{{"id":"t0","job":"j","kind":"map","input_bytes":128,"output_bytes":7,
                         "replicas":["n0","n1"],"pending_since_s":3.5}}],
            "running":[{{"id":"t2","job":"j","kind":"reduce","node":"n0","started_s":10,
                         "phase":"copy"}}]}}"#
        );
        let alphabet = b"\"\\{}[],:0123456789.-eEnul \t\x01\xc3";
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (mut fast, mut total) = (0, 0);
        for _ in 0..4000 {
            let mut body = base.clone().into_bytes();
            for _ in 0..rng.random_range(1..=3) {
                let at = rng.random_range(0..body.len());
                match rng.random_range(0..3) {
                    0 => {
                        body.remove(at);
                    }
                    1 => body.insert(at, alphabet[rng.random_range(0..alphabet.len())]),
                    _ => body[at] = alphabet[rng.random_range(0..alphabet.len())],
                }
            }
            total += 1;
            let Some(read) = read(&body) else { continue };
            fast += 1;
            let text = std::str::from_utf8(&body).expect("the fast reader took UTF-8 only");
            assert_eq!(Some(&read), by_serde(text).as_ref(), "{text}");
        }
        // The mutations must leave many bodies the fast reader takes (or the test is vacuous).
        assert!(fast > total / 20, "{fast} of {total} read fast");
    }

    #[test]
    fn deep_nesting_is_left_to_the_whole_body() {
        // serde_json counts 128 levels from the body's top; a value nested that deep inside a
        // task is not read apart from the body, but by the whole-body path.
        let deep = format!("{}{}", "[".repeat(126), "]".repeat(126));
        let body = format!(
            r#"{{"schema_version":1,"cluster":{{}},"running":[{{"id":"t","job":"j","kind":"map","node":"n","x":{deep}}}]}}"#
        );
        assert!(read(body.as_bytes()).is_none());
        assert_eq!(crate::parse_request(body.as_bytes()).ok(), by_serde(&body));
    }
}

//! YARN Fair Scheduler allocation files (`fair-scheduler.xml`: Apache Hadoop, FairScheduler.md
//! "Allocation file format"; and the MR1 Fair Scheduler's pool file, Hadoop Fair Scheduler
//! design doc §3.1–§3.6, §3.8), read into [`FairAllocations`] and mapped onto placer's pools and
//! users (docs/wire-schema.md: `pools[]`, `users[]`, `policy.user_max_running_jobs`).
//!
//! Both dialects are read: YARN's (`<queue>`, `maxRunningApps`, `minResources`,
//! `schedulingPolicy`, …) and MR1's (`<pool>`, `maxRunningJobs`, `minMaps`, `minReduces`,
//! `schedulingMode`, `poolMaxJobsDefault`, `userMaxJobsDefault`, `defaultPoolSchedulingMode`),
//! which YARN still accepts in part (the shipped SLS sample uses `schedulingMode` and a user's
//! `maxRunningJobs`). Every element either maps onto placer's model or is accepted, checked and
//! ignored (the table below); any other element, and any invalid value, is an error naming the
//! element and its line ([`DatasetError::Allocations`]), where YARN would log and skip it.
//!
//! Mapping (`path` = the queue's dotted path under `root`, e.g. `prod.etl`):
//!
//! | file | placer |
//! |---|---|
//! | leaf `<queue>`/`<pool>` | a pool with id `path` (`root.` is optional in YARN; a job naming `root.x` gets pool `root.x` with queue `x`'s settings) |
//! | parent queue (children, or `type="parent"`) | no pool; its settings pass to its leaves as below |
//! | `weight` (default 1) | top level: as is; deeper: parent's weight × own ÷ Σ weights of its siblings (declared and named by jobs), so leaves split their parent's share as in YARN's hierarchical fair share |
//! | `minResources` | `min_map_share` = `min_reduce_share` = whole slots: ⌊memory ÷ 1024 MB⌋ under `fair`/`fifo` (YARN's single-resource policy counts memory only), min(⌊memory ÷ 1024 MB⌋, ⌊vcores ÷ 1⌋) under `drf`; percentages are of the snapshot's map (reduce) slots |
//! | `minMaps`, `minReduces` (MR1) | `min_map_share`, `min_reduce_share` (win over `minResources`) |
//! | `maxRunningApps`, `maxRunningJobs` (MR1) | `max_running_jobs`, also bounded by every ancestor's own limit; default `queueMaxAppsDefault` |
//! | `schedulingPolicy`, `schedulingMode` | `mode`: `fifo` → fifo; `fair` and `drf` → fair (in a slot model a job's dominant share is its slot share); default `defaultQueueSchedulingPolicy` |
//! | `minSharePreemptionTimeout`, `fairSharePreemptionTimeout` (s) | `min_share_timeout_s`, `fair_share_timeout_s`; unset = the nearest ancestor's, then `defaultMinSharePreemptionTimeout` / `defaultFairSharePreemptionTimeout` (or the top-level `fairSharePreemptionTimeout`), else none (never preempts, YARN's Long.MAX_VALUE) |
//! | `<user name>` `maxRunningApps`/`maxRunningJobs` | `users[]`: `max_running_jobs` |
//! | `userMaxAppsDefault`, `userMaxJobsDefault` (MR1) | `policy.user_max_running_jobs` |
//! | `queueMaxAppsDefault`, `poolMaxJobsDefault` (MR1) | default `max_running_jobs` |
//! | `defaultQueueSchedulingPolicy`/`Mode`, `defaultPoolSchedulingMode` (MR1) | default `mode` (YARN refuses `fifo` as the default; MR1 allows it) |
//!
//! Accepted, checked and ignored (placer has no equivalent): `maxResources`,
//! `maxContainerAllocation`, `maxChildResources`, `queueMaxResourcesDefault`, `maxMaps`,
//! `maxReduces` (no per-pool caps); `maxAMShare`, `queueMaxAMShareDefault` (no application
//! masters); `fairSharePreemptionThreshold`, `defaultFairSharePreemptionThreshold` (placer
//! preempts below half the fair share, design doc §3.3); `allowPreemptionFrom`; the ACLs
//! (`aclSubmitApps`, `aclAdministerApps`, `aclAdministerReservations`, `aclListReservations`,
//! `aclSubmitReservations`: the master admits jobs); `reservation`, `reservation-agent`,
//! `reservation-policy`, `reservation-planner`; `queuePlacementPolicy` (its rules are checked:
//! the master has already placed each job in a queue, which the snapshot names); a parent
//! queue's `minResources` (no aggregate guarantee in a flat pool model).
//!
//! Rules kept from YARN: the root element is `<allocations>`; a queue name is non-empty and has
//! no `.`; a top-level `<queue name="root">` stands alone and holds the others; `fifo` applies
//! to leaf queues only. Stricter than YARN: a queue, user or setting given twice is an error.
//! Numbers: weights, shares and percentages are decimals ≥ 0 (percentages ≤ 100), limits and
//! timeouts are integers ≥ 0, thresholds and AM shares fractions.
//!
//! Complexity: reading is O(file); [`FairAllocations::fill`] is O(queues · depth + jobs +
//! users) per snapshot.

use crate::error::DatasetError;
use placer_models::{PlaceRequest, Pool, PoolId, PoolMode, User, UserId};
use roxmltree::{Document, Node};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Memory of one slot, MB, for `minResources` (YARN's default allocation increment and the
/// SLS sample's container size, `yarn.resource-types.memory-mb.increment-allocation`).
pub const SLOT_MEMORY_MB: f64 = 1024.0;
/// Vcores of one slot, for `minResources` under `drf`.
pub const SLOT_VCORES: f64 = 1.0;

/// A `minResources` value as written.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceAmount {
    /// `X mb, Y vcores` or `memory-mb=X, vcores=Y`.
    Absolute {
        /// Memory, MB.
        memory_mb: f64,
        /// Virtual cores.
        vcores: f64,
    },
    /// `X%`, `X% memory, Y% cpu` or `memory-mb=X%, vcores=Y%`: of the cluster's slots.
    Percent {
        /// Memory, percent.
        memory: f64,
        /// CPU, percent.
        cpu: f64,
    },
}

/// A queue's scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedulingPolicy {
    /// Fair sharing (YARN's default, memory only).
    Fair,
    /// Submit order.
    Fifo,
    /// Dominant Resource Fairness.
    Drf,
}

/// The settings of one queue (or of the root queue) as written; `None` = not given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueSettings {
    /// `weight`.
    pub weight: Option<f64>,
    /// `minResources`.
    pub min_resources: Option<ResourceAmount>,
    /// `minMaps` (MR1), slots.
    pub min_maps: Option<f64>,
    /// `minReduces` (MR1), slots.
    pub min_reduces: Option<f64>,
    /// `maxRunningApps` / `maxRunningJobs`.
    pub max_running_apps: Option<u32>,
    /// `schedulingPolicy` / `schedulingMode`.
    pub policy: Option<SchedulingPolicy>,
    /// `minSharePreemptionTimeout`, s.
    pub min_share_timeout_s: Option<u64>,
    /// `fairSharePreemptionTimeout`, s.
    pub fair_share_timeout_s: Option<u64>,
}

/// One declared queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Queue {
    /// Dotted path under `root` (`prod.etl`).
    pub path: String,
    /// Line of its start tag.
    pub line: u32,
    /// Index of its parent in [`FairAllocations::queues`]; `None` under the root.
    pub parent: Option<usize>,
    /// Has child queues or `type="parent"`: not a pool.
    pub is_parent: bool,
    /// Its own settings.
    pub settings: QueueSettings,
}

/// One `<user>`.
#[derive(Clone, Debug, PartialEq)]
pub struct UserLimit {
    /// The user name.
    pub name: String,
    /// `maxRunningApps` / `maxRunningJobs`.
    pub max_running_apps: Option<u32>,
}

/// A parsed allocation file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FairAllocations {
    /// Queues in document order (a parent before its children), the root excluded.
    pub queues: Vec<Queue>,
    /// The settings of an explicit `<queue name="root">`.
    pub root: QueueSettings,
    /// Users in document order.
    pub users: Vec<UserLimit>,
    /// `queueMaxAppsDefault` / `poolMaxJobsDefault`.
    pub queue_max_apps_default: Option<u32>,
    /// `userMaxAppsDefault` / `userMaxJobsDefault`.
    pub user_max_apps_default: Option<u32>,
    /// `defaultMinSharePreemptionTimeout`, s.
    pub default_min_share_timeout_s: Option<u64>,
    /// `defaultFairSharePreemptionTimeout`, else the top-level `fairSharePreemptionTimeout`, s.
    pub default_fair_share_timeout_s: Option<u64>,
    /// `defaultQueueSchedulingPolicy` / `defaultQueueSchedulingMode` /
    /// `defaultPoolSchedulingMode`.
    pub default_policy: Option<SchedulingPolicy>,
}

/// Reads an allocation file.
///
/// # Errors
/// [`DatasetError::Io`] when it cannot be read; [`DatasetError::Allocations`] naming the
/// element and line of the first problem.
pub fn read_fair_allocations(path: &Path) -> Result<FairAllocations, DatasetError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| DatasetError::Io { file: file.clone(), message: e.to_string() })?;
    parse_fair_allocations(&file, &text)
}

/// Parses the text of an allocation file; `file` names it in errors. O(text).
///
/// # Errors
/// [`DatasetError::Allocations`]: malformed XML (element `xml`), a root other than
/// `<allocations>`, an unknown element, a duplicate, or an invalid value.
pub fn parse_fair_allocations(file: &str, text: &str) -> Result<FairAllocations, DatasetError> {
    let doc = Document::parse(text).map_err(|e| DatasetError::Allocations {
        file: file.to_owned(),
        line: e.pos().row,
        element: "xml".to_owned(),
        message: e.to_string(),
    })?;
    let mut reader = Reader { file, doc: &doc, out: FairAllocations::default() };
    reader.allocations(doc.root_element())?;
    Ok(reader.out)
}

/// Reads one document into a [`FairAllocations`].
struct Reader<'a, 'input> {
    file: &'a str,
    doc: &'a Document<'input>,
    out: FairAllocations,
}

const ROOT: &str = "root";

impl<'a, 'input: 'a> Reader<'a, 'input> {
    fn line(&self, node: Node<'_, '_>) -> u32 {
        self.doc.text_pos_at(node.range().start).row
    }

    fn err(&self, node: Node<'_, '_>, message: impl Into<String>) -> DatasetError {
        DatasetError::Allocations {
            file: self.file.to_owned(),
            line: self.line(node),
            element: node.tag_name().name().to_owned(),
            message: message.into(),
        }
    }

    /// Errors when `key` was seen before in `seen` (first line kept).
    fn once(
        &self,
        seen: &mut BTreeMap<&'static str, u32>,
        key: &'static str,
        node: Node<'_, '_>,
    ) -> Result<(), DatasetError> {
        match seen.insert(key, self.line(node)) {
            Some(first) => Err(self.err(node, format!("given twice (first at line {first})"))),
            None => Ok(()),
        }
    }

    fn allocations(&mut self, root: Node<'a, 'input>) -> Result<(), DatasetError> {
        if root.tag_name().name() != "allocations" {
            return Err(self.err(root, "the root element must be <allocations>"));
        }
        let mut seen = BTreeMap::new();
        let queues: Vec<Node<'a, 'input>> =
            root.children().filter(|n| n.is_element() && is_queue(*n)).collect();
        let explicit_root = queues.iter().find(|n| is_root_queue(**n));
        if let (Some(_), true) = (explicit_root, queues.len() > 1) {
            let other = queues.iter().find(|n| !is_root_queue(**n)).unwrap_or(&queues[0]);
            return Err(self.err(
                *other,
                "a <queue name=\"root\"> must hold every other queue, none may stand beside it",
            ));
        }
        for node in root.children().filter(Node::is_element) {
            let name = node.tag_name().name();
            match name {
                "queue" | "pool" => self.queue(node, None, is_root_queue(node))?,
                "user" => self.user(node)?,
                "userMaxAppsDefault" | "userMaxJobsDefault" => {
                    self.once(&mut seen, "userMaxAppsDefault", node)?;
                    self.out.user_max_apps_default = Some(self.count(node)?);
                }
                "queueMaxAppsDefault" | "poolMaxJobsDefault" => {
                    self.once(&mut seen, "queueMaxAppsDefault", node)?;
                    self.out.queue_max_apps_default = Some(self.count(node)?);
                }
                "defaultMinSharePreemptionTimeout" => {
                    self.once(&mut seen, name_of(name), node)?;
                    self.out.default_min_share_timeout_s = Some(self.seconds(node)?);
                }
                "defaultFairSharePreemptionTimeout" => {
                    self.once(&mut seen, "defaultFairSharePreemptionTimeout", node)?;
                    self.out.default_fair_share_timeout_s = Some(self.seconds(node)?);
                }
                // YARN's older name (and MR1's): the default when the newer one is absent.
                "fairSharePreemptionTimeout" => {
                    self.once(&mut seen, "fairSharePreemptionTimeout", node)?;
                    let v = self.seconds(node)?;
                    if !seen.contains_key("defaultFairSharePreemptionTimeout") {
                        self.out.default_fair_share_timeout_s.get_or_insert(v);
                    }
                }
                "defaultQueueSchedulingPolicy" | "defaultQueueSchedulingMode" => {
                    self.once(&mut seen, "defaultQueueSchedulingPolicy", node)?;
                    let policy = self.policy(node)?;
                    if policy == SchedulingPolicy::Fifo {
                        return Err(self.err(node, "the default policy cannot be fifo (YARN)"));
                    }
                    self.out.default_policy = Some(policy);
                }
                "defaultPoolSchedulingMode" => {
                    self.once(&mut seen, "defaultQueueSchedulingPolicy", node)?;
                    self.out.default_policy = Some(self.policy(node)?);
                }
                "defaultFairSharePreemptionThreshold" => {
                    self.once(&mut seen, "defaultFairSharePreemptionThreshold", node)?;
                    self.fraction(node)?;
                }
                "queueMaxResourcesDefault" => {
                    self.once(&mut seen, "queueMaxResourcesDefault", node)?;
                    self.resources(node)?;
                }
                "queueMaxAMShareDefault" => {
                    self.once(&mut seen, "queueMaxAMShareDefault", node)?;
                    self.am_share(node)?;
                }
                "reservation-agent" | "reservation-policy" | "reservation-planner" => {
                    self.once(&mut seen, name_of(name), node)?;
                    self.text(node)?;
                }
                "queuePlacementPolicy" => {
                    self.once(&mut seen, "queuePlacementPolicy", node)?;
                    self.placement_rules(node)?;
                }
                _ => return Err(self.unknown(node)),
            }
        }
        Ok(())
    }

    fn unknown(&self, node: Node<'_, '_>) -> DatasetError {
        self.err(node, "unknown element (not part of the YARN or MR1 allocation file format)")
    }

    /// A `<queue>`/`<pool>` under `parent` (`None`: under the root); `is_root`: this is an
    /// explicit root queue, whose settings go to [`FairAllocations::root`].
    fn queue(
        &mut self,
        node: Node<'a, 'input>,
        parent: Option<usize>,
        is_root: bool,
    ) -> Result<(), DatasetError> {
        let name = node.attribute("name").map(str::trim).unwrap_or("");
        if name.is_empty() {
            return Err(self.err(node, "a queue needs a non-empty name attribute"));
        }
        if name.contains('.') {
            return Err(self.err(node, format!("queue name {name:?} contains a period")));
        }
        let typed_parent = match node.attribute("type") {
            None => false,
            Some("parent") => true,
            Some(other) => {
                return Err(self.err(node, format!("type {other:?}: only \"parent\" is known")))
            }
        };
        let index = if is_root {
            None
        } else {
            let path = match parent {
                Some(p) => format!("{}.{name}", self.out.queues[p].path),
                None => name.to_owned(),
            };
            if let Some(first) = self.out.queues.iter().find(|q| q.path == path) {
                let line = first.line;
                return Err(
                    self.err(node, format!("queue {path} declared twice (first at line {line})"))
                );
            }
            self.out.queues.push(Queue {
                path,
                line: self.line(node),
                parent,
                is_parent: typed_parent,
                settings: QueueSettings::default(),
            });
            Some(self.out.queues.len() - 1)
        };
        let mut s = QueueSettings::default();
        let mut seen = BTreeMap::new();
        let mut fifo_at = None;
        let mut has_children = false;
        for field in node.children().filter(Node::is_element) {
            let tag = field.tag_name().name();
            if matches!(tag, "queue" | "pool") {
                if is_root_queue(field) {
                    return Err(self.err(field, "only the top-level queue may be named root"));
                }
                has_children = true;
                self.queue(field, index, false)?;
                continue;
            }
            let key = match tag {
                "maxRunningJobs" => "maxRunningApps",
                "schedulingMode" => "schedulingPolicy",
                other => name_of(other),
            };
            if key.is_empty() {
                return Err(self.unknown(field));
            }
            self.once(&mut seen, key, field)?;
            match key {
                "minResources" => s.min_resources = Some(self.resources(field)?),
                "maxResources" | "maxContainerAllocation" | "maxChildResources" => {
                    self.resources(field)?;
                }
                "maxRunningApps" => s.max_running_apps = Some(self.count(field)?),
                "maxAMShare" => {
                    self.am_share(field)?;
                }
                "weight" => s.weight = Some(self.number(field)?),
                "schedulingPolicy" => {
                    let policy = self.policy(field)?;
                    if policy == SchedulingPolicy::Fifo {
                        fifo_at = Some(field);
                    }
                    s.policy = Some(policy);
                }
                "minSharePreemptionTimeout" => s.min_share_timeout_s = Some(self.seconds(field)?),
                "fairSharePreemptionTimeout" => {
                    s.fair_share_timeout_s = Some(self.seconds(field)?);
                }
                "fairSharePreemptionThreshold" => {
                    self.fraction(field)?;
                }
                "allowPreemptionFrom" => {
                    self.boolean(field)?;
                }
                "minMaps" => s.min_maps = Some(self.number(field)?),
                "minReduces" => s.min_reduces = Some(self.number(field)?),
                "maxMaps" | "maxReduces" => {
                    self.count(field)?;
                }
                "aclSubmitApps"
                | "aclAdministerApps"
                | "aclAdministerReservations"
                | "aclListReservations"
                | "aclSubmitReservations"
                | "reservation" => {
                    self.text(field)?;
                }
                _ => return Err(self.unknown(field)),
            }
        }
        let is_parent = is_root || typed_parent || has_children;
        if let (true, Some(at)) = (is_parent, fifo_at) {
            return Err(self.err(at, "fifo applies to leaf queues only (YARN)"));
        }
        match index {
            Some(i) => {
                self.out.queues[i].is_parent = is_parent;
                self.out.queues[i].settings = s;
            }
            None => self.out.root = s,
        }
        Ok(())
    }

    fn user(&mut self, node: Node<'a, 'input>) -> Result<(), DatasetError> {
        let name = node.attribute("name").map(str::trim).unwrap_or("");
        if name.is_empty() {
            return Err(self.err(node, "a user needs a non-empty name attribute"));
        }
        if self.out.users.iter().any(|u| u.name == name) {
            return Err(self.err(node, format!("user {name} declared twice")));
        }
        let mut max_running_apps = None;
        let mut seen = BTreeMap::new();
        for field in node.children().filter(Node::is_element) {
            match field.tag_name().name() {
                "maxRunningApps" | "maxRunningJobs" => {
                    self.once(&mut seen, "maxRunningApps", field)?;
                    max_running_apps = Some(self.count(field)?);
                }
                _ => return Err(self.unknown(field)),
            }
        }
        self.out.users.push(UserLimit { name: name.to_owned(), max_running_apps });
        Ok(())
    }

    /// Checks `<queuePlacementPolicy>`: `<rule name>` children with known names;
    /// `nestedUserQueue` holds exactly one rule.
    fn placement_rules(&self, node: Node<'_, '_>) -> Result<(), DatasetError> {
        const RULES: [&str; 7] = [
            "specified",
            "user",
            "primaryGroup",
            "secondaryGroupExistingQueue",
            "nestedUserQueue",
            "default",
            "reject",
        ];
        let rules: Vec<Node<'_, '_>> = node.children().filter(Node::is_element).collect();
        if rules.is_empty() {
            return Err(self.err(node, "no <rule> in the placement policy"));
        }
        for rule in rules {
            if rule.tag_name().name() != "rule" {
                return Err(self.err(rule, "a placement policy holds <rule> elements only"));
            }
            let name = rule.attribute("name").unwrap_or("");
            if !RULES.contains(&name) {
                return Err(self.err(
                    rule,
                    format!("unknown placement rule {name:?} (known: {})", RULES.join(", ")),
                ));
            }
            let inner = rule.children().filter(Node::is_element).count();
            match (name, inner) {
                ("nestedUserQueue", 1) => self.placement_rules(rule)?,
                ("nestedUserQueue", _) => {
                    return Err(self.err(rule, "nestedUserQueue holds exactly one <rule>"))
                }
                (_, 0) => {}
                _ => return Err(self.err(rule, format!("rule {name:?} holds no elements"))),
            }
        }
        Ok(())
    }

    /// The element's text, trimmed; an error when it holds elements.
    fn text(&self, node: Node<'_, '_>) -> Result<String, DatasetError> {
        if let Some(child) = node.children().find(Node::is_element) {
            let inner = child.tag_name().name();
            return Err(self.err(node, format!("expected a value, found element <{inner}>")));
        }
        let text: String = node.children().filter(Node::is_text).filter_map(|t| t.text()).collect();
        Ok(text.trim().to_owned())
    }

    /// A decimal ≥ 0 (weights, MR1 min slots).
    fn number(&self, node: Node<'_, '_>) -> Result<f64, DatasetError> {
        let text = self.text(node)?;
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            _ => Err(self.err(node, format!("{text:?} is not a number ≥ 0"))),
        }
    }

    /// An integer ≥ 0 (running-job limits).
    fn count(&self, node: Node<'_, '_>) -> Result<u32, DatasetError> {
        let text = self.text(node)?;
        text.parse::<u32>().map_err(|_| self.err(node, format!("{text:?} is not an integer ≥ 0")))
    }

    /// Whole seconds ≥ 0 (preemption timeouts; YARN multiplies them by 1000 into ms).
    fn seconds(&self, node: Node<'_, '_>) -> Result<u64, DatasetError> {
        let text = self.text(node)?;
        text.parse::<u64>()
            .map_err(|_| self.err(node, format!("{text:?} is not a whole number of seconds ≥ 0")))
    }

    /// A fraction in [0, 1] (preemption thresholds).
    fn fraction(&self, node: Node<'_, '_>) -> Result<f64, DatasetError> {
        let text = self.text(node)?;
        match text.parse::<f64>() {
            Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
            _ => Err(self.err(node, format!("{text:?} is not a fraction in [0, 1]"))),
        }
    }

    /// An AM share: a fraction in [0, 1], or −1 (no check).
    fn am_share(&self, node: Node<'_, '_>) -> Result<f64, DatasetError> {
        let text = self.text(node)?;
        match text.parse::<f64>() {
            Ok(v) if (0.0..=1.0).contains(&v) || v == -1.0 => Ok(v),
            _ => Err(self.err(node, format!("{text:?} is not a fraction in [0, 1] or -1"))),
        }
    }

    fn boolean(&self, node: Node<'_, '_>) -> Result<bool, DatasetError> {
        let text = self.text(node)?;
        match text.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.err(node, format!("{text:?} is not true or false"))),
        }
    }

    /// `fair`, `fifo`, `drf` (any case) or the built-in policies' class names.
    fn policy(&self, node: Node<'_, '_>) -> Result<SchedulingPolicy, DatasetError> {
        let text = self.text(node)?;
        const PACKAGE: &str =
            "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.";
        let short = text.strip_prefix(PACKAGE).unwrap_or(&text);
        match short.to_ascii_lowercase().as_str() {
            "fair" | "fairsharepolicy" => Ok(SchedulingPolicy::Fair),
            "fifo" | "fifopolicy" => Ok(SchedulingPolicy::Fifo),
            "drf" | "dominantresourcefairnesspolicy" => Ok(SchedulingPolicy::Drf),
            _ => {
                Err(self
                    .err(node, format!("unknown scheduling policy {text:?} (fair, fifo or drf)")))
            }
        }
    }

    fn resources(&self, node: Node<'_, '_>) -> Result<ResourceAmount, DatasetError> {
        let text = self.text(node)?;
        parse_resources(&text).map_err(|why| self.err(node, format!("{text:?}: {why}")))
    }
}

/// `name` as a `'static` key when it is a known queue setting, else `""`.
fn name_of(name: &str) -> &'static str {
    const KNOWN: [&str; 27] = [
        "minResources",
        "maxResources",
        "maxContainerAllocation",
        "maxChildResources",
        "maxRunningApps",
        "maxAMShare",
        "weight",
        "schedulingPolicy",
        "minSharePreemptionTimeout",
        "fairSharePreemptionTimeout",
        "fairSharePreemptionThreshold",
        "allowPreemptionFrom",
        "minMaps",
        "minReduces",
        "maxMaps",
        "maxReduces",
        "aclSubmitApps",
        "aclAdministerApps",
        "aclAdministerReservations",
        "aclListReservations",
        "aclSubmitReservations",
        "reservation",
        "defaultMinSharePreemptionTimeout",
        "reservation-agent",
        "reservation-policy",
        "reservation-planner",
        "queuePlacementPolicy",
    ];
    KNOWN.into_iter().find(|k| *k == name).unwrap_or("")
}

fn is_queue(node: Node<'_, '_>) -> bool {
    matches!(node.tag_name().name(), "queue" | "pool")
}

fn is_root_queue(node: Node<'_, '_>) -> bool {
    is_queue(node) && node.attribute("name").is_some_and(|n| n.trim().eq_ignore_ascii_case(ROOT))
}

/// A non-negative finite decimal.
fn amount(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("{:?} is not a number ≥ 0", text.trim())),
    }
}

/// A percentage in [0, 100] from `X` (the `%` already stripped).
fn percent(text: &str) -> Result<f64, String> {
    let v = amount(text)?;
    if v > 100.0 {
        return Err(format!("{v}% is over 100%"));
    }
    Ok(v)
}

/// YARN's resource formats (FairScheduler.md, `minResources`): `X mb, Y vcores`,
/// `X% memory, Y% cpu`, `X%`, `memory-mb=X, vcores=Y`, `memory-mb=X%, vcores=Y%`. Both
/// resources are required in the old format; the new one leaves a missing one at 0.
///
/// # Errors
/// Why the text is none of these.
pub fn parse_resources(text: &str) -> Result<ResourceAmount, String> {
    const FORMATS: &str = "expected \"X mb, Y vcores\", \"X% memory, Y% cpu\", \"X%\" or \
                           \"memory-mb=X, vcores=Y\"";
    let lower = text.trim().to_ascii_lowercase();
    if lower.contains('=') {
        let (mut memory, mut cpu, mut percents) = (None, None, BTreeSet::new());
        for part in lower.split(',') {
            let Some((key, value)) = part.split_once('=') else { return Err(FORMATS.into()) };
            let value = value.trim();
            let (v, is_percent) = match value.strip_suffix('%') {
                Some(p) => (percent(p)?, true),
                None => (amount(value)?, false),
            };
            percents.insert(is_percent);
            let slot = match key.trim() {
                "memory-mb" | "memory" => &mut memory,
                "vcores" => &mut cpu,
                other => return Err(format!("unknown resource {other:?} (memory-mb, vcores)")),
            };
            if slot.replace(v).is_some() {
                return Err(format!("{} given twice", key.trim()));
            }
        }
        if percents.len() > 1 {
            return Err("mixes percentages and amounts".into());
        }
        let (memory, cpu) = (memory.unwrap_or(0.0), cpu.unwrap_or(0.0));
        return Ok(if percents.contains(&true) {
            ResourceAmount::Percent { memory, cpu }
        } else {
            ResourceAmount::Absolute { memory_mb: memory, vcores: cpu }
        });
    }
    if let Some(p) = lower.strip_suffix('%').filter(|p| !p.contains(',') && !p.contains('%')) {
        let v = percent(p)?;
        return Ok(ResourceAmount::Percent { memory: v, cpu: v });
    }
    let (mut mb, mut vcores, mut mem_pct, mut cpu_pct) = (None, None, None, None);
    for part in lower.split(',') {
        let part = part.trim();
        let (slot, value) = if let Some(v) = part.strip_suffix("mb") {
            (&mut mb, amount(v)?)
        } else if let Some(v) = part.strip_suffix("vcores").or_else(|| part.strip_suffix("vcore")) {
            (&mut vcores, amount(v)?)
        } else if let Some(v) = part.strip_suffix("memory").and_then(|v| v.trim().strip_suffix('%'))
        {
            (&mut mem_pct, percent(v)?)
        } else if let Some(v) = part.strip_suffix("cpu").and_then(|v| v.trim().strip_suffix('%')) {
            (&mut cpu_pct, percent(v)?)
        } else {
            return Err(FORMATS.into());
        };
        if slot.replace(value).is_some() {
            return Err(format!("{part:?} repeats a resource"));
        }
    }
    match (mb, vcores, mem_pct, cpu_pct) {
        (Some(memory_mb), Some(vcores), None, None) => {
            Ok(ResourceAmount::Absolute { memory_mb, vcores })
        }
        (None, None, Some(memory), Some(cpu)) => Ok(ResourceAmount::Percent { memory, cpu }),
        _ => Err(format!("both memory and vcores (or cpu) are required; {FORMATS}")),
    }
}

impl ResourceAmount {
    /// Whole slots of a kind this amount guarantees, the cluster having `cluster_slots` of it:
    /// memory ÷ [`SLOT_MEMORY_MB`] under `fair`/`fifo` (memory only, as YARN's single-resource
    /// policy), the smaller of memory ÷ [`SLOT_MEMORY_MB`] and vcores ÷ [`SLOT_VCORES`] under
    /// `drf`; percentages of `cluster_slots`; rounded down. O(1).
    pub fn slots(&self, policy: SchedulingPolicy, cluster_slots: f64) -> f64 {
        let drf = policy == SchedulingPolicy::Drf;
        let v = match *self {
            Self::Absolute { memory_mb, vcores } => {
                let memory = memory_mb / SLOT_MEMORY_MB;
                if drf {
                    memory.min(vcores / SLOT_VCORES)
                } else {
                    memory
                }
            }
            Self::Percent { memory, cpu } => {
                let p = if drf { memory.min(cpu) } else { memory };
                p / 100.0 * cluster_slots
            }
        };
        v.floor().max(0.0)
    }
}

/// A queue name as its path under the root: `root.x.y` → `x.y`, `root` → `""`, `x` → `x`
/// (YARN: "the root part is optional").
pub fn under_root(name: &str) -> &str {
    if name == ROOT {
        ""
    } else {
        name.strip_prefix("root.").unwrap_or(name)
    }
}

/// A pool to build: its wire id, its node in the weight tree, its declared queue if any.
struct Target {
    id: String,
    node: usize,
    queue: Option<usize>,
}

impl FairAllocations {
    /// Pools for every declared leaf queue that `defined` (a check on names under `root`) does
    /// not cover, then for every name in `referenced` (pool names jobs use, in order) that is
    /// neither defined nor a declared queue: these are created as YARN creates undeclared
    /// queues on submission, as children of their deepest declared ancestor (or of the root),
    /// with weight 1 and that ancestor's inherited settings. A name of a declared parent queue
    /// gets no pool (YARN refuses apps there), so the snapshot stays invalid. `slots`: the
    /// cluster's map and reduce slots, for percentages. Deterministic: declared leaves in
    /// document order, then `referenced` order. See the module docs for each field.
    /// O(queues · depth + referenced · queues).
    pub fn pools(
        &self,
        defined: &dyn Fn(&str) -> bool,
        referenced: &[&str],
        slots: [f64; 2],
    ) -> Vec<Pool> {
        // The weight tree: declared queues, then one node per undeclared referenced name.
        let mut parents: Vec<Option<usize>> = self.queues.iter().map(|q| q.parent).collect();
        let mut weights: Vec<f64> =
            self.queues.iter().map(|q| q.settings.weight.unwrap_or(1.0)).collect();
        let mut targets: Vec<Target> = Vec::new();
        let mut spelled: BTreeMap<&str, &str> = BTreeMap::new();
        for name in referenced {
            spelled.entry(under_root(name)).or_insert(name);
        }
        for (i, q) in self.queues.iter().enumerate() {
            if !q.is_parent && !defined(&q.path) {
                let id = spelled.get(q.path.as_str()).copied().unwrap_or(&q.path).to_owned();
                targets.push(Target { id, node: i, queue: Some(i) });
            }
        }
        let mut added: BTreeSet<&str> = BTreeSet::new();
        for &name in referenced {
            let path = under_root(name);
            if path.is_empty() || defined(path) || !added.insert(path) {
                continue;
            }
            if self.queues.iter().any(|q| q.path == path) {
                continue; // a declared leaf (already a target) or a parent (no pool)
            }
            let ancestor = self
                .queues
                .iter()
                .enumerate()
                .filter(|(_, q)| path.starts_with(&format!("{}.", q.path)))
                .max_by_key(|(_, q)| q.path.len())
                .map(|(i, _)| i);
            parents.push(ancestor);
            weights.push(1.0);
            targets.push(Target { id: name.to_owned(), node: weights.len() - 1, queue: None });
        }
        let mut sums: BTreeMap<Option<usize>, f64> = BTreeMap::new();
        for (p, w) in parents.iter().zip(&weights) {
            *sums.entry(*p).or_default() += w;
        }
        let effective = |mut node: usize| {
            let mut w = 1.0;
            loop {
                match parents[node] {
                    None => return w * weights[node],
                    Some(p) => {
                        let sum = sums.get(&Some(p)).copied().unwrap_or(0.0);
                        w *= if sum > 0.0 { weights[node] / sum } else { 0.0 };
                        node = p;
                    }
                }
            }
        };
        targets
            .iter()
            .map(|t| {
                let parent = parents[t.node];
                self.pool(&t.id, t.queue, parent, effective(t.node), slots)
            })
            .collect()
    }

    /// The pool of queue `queue` (`None`: an undeclared one) under `parent`, with weight
    /// `weight`.
    fn pool(
        &self,
        id: &str,
        queue: Option<usize>,
        parent: Option<usize>,
        weight: f64,
        slots: [f64; 2],
    ) -> Pool {
        let own = queue.map(|i| &self.queues[i].settings);
        let mut ancestors: Vec<&QueueSettings> = Vec::new();
        let mut at = parent;
        while let Some(i) = at {
            ancestors.push(&self.queues[i].settings);
            at = self.queues[i].parent;
        }
        ancestors.push(&self.root);
        let inherited = |get: fn(&QueueSettings) -> Option<u64>, default: Option<u64>| {
            own.and_then(get).or_else(|| ancestors.iter().find_map(|s| get(s))).or(default)
        };
        let policy =
            own.and_then(|s| s.policy).or(self.default_policy).unwrap_or(SchedulingPolicy::Fair);
        let own_limit = own.and_then(|s| s.max_running_apps).or(self.queue_max_apps_default);
        let max_running_jobs =
            ancestors.iter().filter_map(|s| s.max_running_apps).chain(own_limit).min();
        let min_share = |kind: usize, mr1: Option<f64>| {
            mr1.or_else(|| {
                own.and_then(|s| s.min_resources.as_ref()).map(|r| r.slots(policy, slots[kind]))
            })
            .unwrap_or(0.0)
        };
        Pool {
            id: PoolId(id.to_owned()),
            weight,
            min_map_share: min_share(0, own.and_then(|s| s.min_maps)),
            min_reduce_share: min_share(1, own.and_then(|s| s.min_reduces)),
            mode: if policy == SchedulingPolicy::Fifo { PoolMode::Fifo } else { PoolMode::Fair },
            min_share_timeout_s: inherited(
                |s| s.min_share_timeout_s,
                self.default_min_share_timeout_s,
            )
            .map(|v| v as f64),
            fair_share_timeout_s: inherited(
                |s| s.fair_share_timeout_s,
                self.default_fair_share_timeout_s,
            )
            .map(|v| v as f64),
            max_running_jobs,
            starvation: None,
        }
    }

    /// The declared users as placer users (no weight).
    pub fn users(&self) -> Vec<User> {
        self.users
            .iter()
            .map(|u| User {
                id: UserId(u.name.clone()),
                max_running_jobs: u.max_running_apps,
                weight: None,
            })
            .collect()
    }

    /// Fills what `req` does not define (the file never overrides the snapshot):
    /// - pools: [`FairAllocations::pools`] for the snapshot's pools (compared under `root`)
    ///   and the pool names its jobs use, appended after the snapshot's;
    /// - users: the declared users the snapshot does not list, appended; when the snapshot
    ///   listed none, also every other user its jobs name (no limit), since the ShuffleWatcher
    ///   policies require every job's user listed once any is;
    /// - `policy.user_max_running_jobs`, when unset, from `userMaxAppsDefault`.
    ///
    /// O(queues · depth + jobs · log jobs + users).
    pub fn fill(&self, req: &mut PlaceRequest) {
        let slots = req.cluster.nodes.iter().fold([0.0, 0.0], |[m, r], n| {
            [m + f64::from(n.map_slots), r + f64::from(n.reducer_capacity())]
        });
        let defined: BTreeSet<String> =
            req.pools.iter().map(|p| under_root(p.id.as_str()).to_owned()).collect();
        let mut seen = BTreeSet::new();
        let referenced: Vec<&str> =
            req.jobs.iter().map(|j| j.pool.as_str()).filter(|p| seen.insert(*p)).collect();
        let pools = self.pools(&|name| defined.contains(name), &referenced, slots);
        req.pools.extend(pools);

        let snapshot_had_users = !req.users.is_empty();
        let mut listed: BTreeSet<String> = req.users.iter().map(|u| u.id.0.clone()).collect();
        for user in self.users() {
            if listed.insert(user.id.0.clone()) {
                req.users.push(user);
            }
        }
        if !snapshot_had_users && !req.users.is_empty() {
            for job in &req.jobs {
                if let Some(user) = &job.user {
                    if listed.insert(user.0.clone()) {
                        req.users.push(User {
                            id: user.clone(),
                            max_running_jobs: None,
                            weight: None,
                        });
                    }
                }
            }
        }
        if req.policy.user_max_running_jobs.is_none() {
            req.policy.user_max_running_jobs = self.user_max_apps_default;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn resource_formats_of_the_yarn_docs() {
        let abs = |m, v| ResourceAmount::Absolute { memory_mb: m, vcores: v };
        let pct = |m, c| ResourceAmount::Percent { memory: m, cpu: c };
        assert_eq!(parse_resources("1024 mb, 1 vcores"), Ok(abs(1024.0, 1.0)));
        assert_eq!(parse_resources("512 mb,0vcores"), Ok(abs(512.0, 0.0)));
        assert_eq!(parse_resources("10000 MB, 2 VCORES"), Ok(abs(10000.0, 2.0)));
        assert_eq!(parse_resources("25% cpu, 50% memory"), Ok(pct(50.0, 25.0)));
        assert_eq!(parse_resources("30%"), Ok(pct(30.0, 30.0)));
        assert_eq!(parse_resources("vcores=2, memory-mb=4096"), Ok(abs(4096.0, 2.0)));
        assert_eq!(parse_resources("memory-mb=10%, vcores=20%"), Ok(pct(10.0, 20.0)));
        for bad in [
            "1024 mb",
            "lots",
            "-1 mb, 1 vcores",
            "1 mb, 1 vcores, 1 disks",
            "150%",
            "gpu=1",
            "memory-mb=1%, vcores=2",
        ] {
            assert!(parse_resources(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn slots_count_memory_under_fair_and_the_scarcer_resource_under_drf() {
        let r = ResourceAmount::Absolute { memory_mb: 4096.0, vcores: 2.0 };
        assert_eq!(r.slots(SchedulingPolicy::Fair, 0.0), 4.0);
        assert_eq!(r.slots(SchedulingPolicy::Drf, 0.0), 2.0);
        let p = ResourceAmount::Percent { memory: 25.0, cpu: 10.0 };
        assert_eq!(p.slots(SchedulingPolicy::Fifo, 40.0), 10.0);
        assert_eq!(p.slots(SchedulingPolicy::Drf, 40.0), 4.0);
        let half = ResourceAmount::Absolute { memory_mb: 1500.0, vcores: 9.0 };
        assert_eq!(half.slots(SchedulingPolicy::Fair, 0.0), 1.0);
    }
}

//! When the master learns that a task ended (FAIR, Zaharia et al. §2: tasks are assigned in
//! response to heartbeats, "status messages" from the slaves every few seconds). In Hadoop
//! 0.20 a TaskTracker sleeps a full heartbeat interval between heartbeats, whatever ends in
//! between, and its next heartbeat carries both the status of its finished tasks and its
//! request for work: the JobTracker updates the jobs first, then offers the freed slots in the
//! same heartbeat (Hadoop's `TaskTracker.offerService` and `JobTracker.heartbeat`; an
//! out-of-band heartbeat on a task's end came with later Hadoop versions, off by default).
//!
//! With [`crate::CompletionReport::Heartbeat`] and heartbeat offers, a task whose run ends
//! stops consuming its node at once (`Mechanism::task_exited`) but keeps its slot, and the
//! master keeps seeing it running, until its node's next heartbeat: there every end the node
//! has to report is processed in the order they happened (the slot is freed, a map's output
//! becomes known to its job's reduces, the job's progress, its reduces' release and its
//! cleanup follow), then the heartbeat's offer is made. A setup or cleanup task
//! (`job_tasks.rs`) is reported the same way. A task preempted before its end was reported
//! dies as a running one would (the master acted on what it knew). O(1) per end and per
//! reported item.

use super::World;
use crate::error::SimError;

/// An end a node has yet to report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Report {
    /// Task `0`'s run (successful or one of a trace's failed attempts) ended.
    Task(usize),
    /// Job `0`'s setup or cleanup task ended.
    JobTask(usize),
}

/// Per node, the ends its next heartbeat reports, oldest first.
#[derive(Clone, Debug)]
pub(crate) struct Reports {
    by_node: Vec<Vec<Report>>,
}

impl Reports {
    pub fn new(nodes: usize) -> Self {
        Self { by_node: vec![Vec::new(); nodes] }
    }
}

impl World<'_> {
    /// Task `t`'s run ended: reported at its node's next heartbeat, or now.
    pub(crate) fn task_done(&mut self, t: usize) -> Result<(), SimError> {
        if !self.cfg.reports_at_heartbeat() {
            return self.finish_task(t);
        }
        let run = &mut self.tasks[t];
        run.exited = true;
        run.version = run.version.wrapping_add(1);
        self.each_mechanism(|m, cx| m.task_exited(cx, t));
        // A computing task stopped: its work is done.
        self.tasks[t].work_left = 0.0;
        let n = self.tasks[t].node;
        self.exited(n, Report::Task(t));
        Ok(())
    }

    /// Node `n` has `report` to send: its next heartbeat is due whatever it offers.
    pub(crate) fn exited(&mut self, n: usize, report: Report) {
        self.reports.by_node[n].push(report);
        if let Some(b) = &mut self.beats {
            b.report_due(n, self.now, &mut self.queue);
        }
    }

    /// Node `n` heartbeats: the ends it reports take effect, oldest first.
    pub(crate) fn report(&mut self, n: usize) -> Result<(), SimError> {
        if self.reports.by_node[n].is_empty() {
            return Ok(());
        }
        let mut items = std::mem::take(&mut self.reports.by_node[n]);
        for &item in &items {
            match item {
                Report::Task(t) => {
                    // A task preempted since it ended has nothing left to report.
                    if self.tasks[t].exited {
                        self.finish_task(t)?;
                    }
                }
                Report::JobTask(j) => self.release_job_task(j),
            }
        }
        items.clear();
        if self.reports.by_node[n].is_empty() {
            self.reports.by_node[n] = items;
        }
        Ok(())
    }
}

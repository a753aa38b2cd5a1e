//! What a multi-resource policy (`drf`, `ras`, `lsap_ras`) may place in one round of the gang
//! rounds ([`super::rounds`]): the jobs left out (a gang that cannot start, KEP-4671's
//! PodGroup below `minCount`; a required job that no domain fits, Kueue TAS's
//! `podset-required-topology`) and, per job, the nodes of the one topology domain its tasks
//! are kept to.

use placer_models::WaitReason;

/// Per job: left out of the round, or kept to some nodes, or free.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// Per job: why it places nothing this round (`gang_incomplete`, `no_domain_fits`), or
    /// `None` when it takes part.
    pub dropped: Vec<Option<WaitReason>>,
    /// Per job: the nodes its tasks may use (a mask by node index), `None` for any node.
    pub nodes: Vec<Option<Vec<bool>>>,
    /// Per job: the domain chosen for it (an index into its level's [`super::Domains`]),
    /// `None` without a topology rule or when no domain fits its need; its tasks are kept
    /// there when [`Self::nodes`] has its mask (a preferred job whose domain cannot hold all
    /// its tasks has none and may spill).
    pub domain: Vec<Option<u32>>,
}

impl Scope {
    /// Every one of `jobs` takes part, on any node.
    ///
    /// # Complexity
    /// O(jobs).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// ```
    /// let s = placer_solver::gang::Scope::open(2);
    /// assert!(s.takes(1) && s.allows(1, 7));
    /// ```
    pub fn open(jobs: usize) -> Self {
        Self { dropped: vec![None; jobs], nodes: vec![None; jobs], domain: vec![None; jobs] }
    }

    /// Whether job `j` takes part in the round (an index beyond the jobs: yes).
    ///
    /// # Complexity
    /// O(1).
    pub fn takes(&self, j: usize) -> bool {
        self.dropped.get(j).is_none_or(|d| d.is_none())
    }

    /// Whether job `j`'s tasks may go to node `n`: it takes part and `n` is in its mask (any
    /// node without one).
    ///
    /// # Complexity
    /// O(1).
    ///
    /// # Examples
    /// ```
    /// let mut s = placer_solver::gang::Scope::open(2);
    /// s.nodes[0] = Some(vec![false, true]);
    /// s.dropped[1] = Some(placer_models::WaitReason::GangIncomplete);
    /// assert!(!s.allows(0, 0) && s.allows(0, 1));
    /// assert!(!s.allows(1, 1));
    /// ```
    pub fn allows(&self, j: usize, n: u32) -> bool {
        self.takes(j)
            && match self.nodes.get(j) {
                Some(Some(mask)) => mask.get(n as usize).copied().unwrap_or(false),
                _ => true,
            }
    }
}

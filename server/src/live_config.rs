//! The server's settings as they are now (docs/operations/configuration.md, "Config
//! file": config reloaded on SIGHUP or file change): one shared handle that request handlers read
//! at the start of each request and the reloader replaces as a whole, so a request never sees half
//! of an old and half of a new configuration.

use crate::config::ServerConfig;
use std::sync::{Arc, PoisonError, RwLock};

/// A shared, replaceable [`ServerConfig`]; clones share it.
#[derive(Clone, Debug)]
pub struct LiveConfig(Arc<RwLock<Arc<ServerConfig>>>);

impl LiveConfig {
    /// A handle holding `config`.
    pub fn new(config: ServerConfig) -> Self {
        Self(Arc::new(RwLock::new(Arc::new(config))))
    }

    /// The configuration in force now (cheap: one read lock and an `Arc` clone).
    pub fn get(&self) -> Arc<ServerConfig> {
        Arc::clone(&self.0.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Puts `config` in force for every request that starts from now on.
    pub fn replace(&self, config: ServerConfig) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(config);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_is_seen_by_every_clone() {
        let live = LiveConfig::new(ServerConfig::default());
        let other = live.clone();
        let before = other.get();
        live.replace(ServerConfig { body_limit_bytes: 7, ..ServerConfig::default() });
        assert_eq!(other.get().body_limit_bytes, 7);
        assert_eq!(before.body_limit_bytes, ServerConfig::default().body_limit_bytes);
    }
}

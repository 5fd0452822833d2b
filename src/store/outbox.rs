//! The MQTT outbox (issue 18): the seq each broker has acknowledged, and the stored events
//! after it. The `events` table is the outbox's queue (every event is written there, in order,
//! before it is published); `mqtt_outbox` holds each broker's place in it.

use rusqlite::{params, OptionalExtension};

use super::{unix_now_ms, Store, StoreError};

impl Store {
    /// The seq of the last event `broker` acknowledged, `None` if it never acknowledged one.
    ///
    /// # Errors
    /// SQLite failed.
    pub fn mqtt_acked(&self, broker: &str) -> Result<Option<u64>, StoreError> {
        self.conn
            .query_row(
                "SELECT acked_seq FROM mqtt_outbox WHERE broker = ?1",
                params![broker],
                |r| r.get::<_, i64>(0),
            )
            .optional()
            .map(|s| s.map(|s| s as u64))
            .map_err(self.err())
    }

    /// Records that `broker` acknowledged every event up to `seq`. Never moves backwards.
    ///
    /// # Errors
    /// SQLite failed (nothing written).
    pub fn set_mqtt_acked(&mut self, broker: &str, seq: u64) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO mqtt_outbox (broker, acked_seq, unix_ms) VALUES (?1, ?2, ?3) \
                 ON CONFLICT(broker) DO UPDATE SET acked_seq = MAX(acked_seq, excluded.acked_seq), \
                 unix_ms = excluded.unix_ms",
                params![broker, seq as i64, unix_now_ms()],
            )
            .map(|_| ())
            .map_err(self.err())
    }

    /// Up to `limit` stored events with `after < seq < before`, oldest first, as
    /// `(seq, JSON)`: what a broker has not acknowledged yet.
    ///
    /// # Errors
    /// SQLite failed.
    pub fn events_between(
        &self,
        after: u64,
        before: u64,
        limit: usize,
    ) -> Result<Vec<(u64, String)>, StoreError> {
        let before = i64::try_from(before).unwrap_or(i64::MAX);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, body FROM events WHERE seq > ?1 AND seq < ?2 ORDER BY seq LIMIT ?3",
            )
            .map_err(self.err())?;
        let rows = stmt
            .query_map(params![after as i64, before, limit as i64], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?))
            })
            .map_err(self.err())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.err())?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_brokers_place_is_kept_and_never_moves_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        assert_eq!(store.mqtt_acked("mqtt://a").unwrap(), None);
        store.set_mqtt_acked("mqtt://a", 42).unwrap();
        store.set_mqtt_acked("mqtt://a", 17).unwrap();
        store.set_mqtt_acked("mqtt://b", 5).unwrap();
        assert_eq!(store.mqtt_acked("mqtt://a").unwrap(), Some(42));
        assert_eq!(store.mqtt_acked("mqtt://b").unwrap(), Some(5));
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.mqtt_acked("mqtt://a").unwrap(), Some(42));
        assert!(store.events_between(0, u64::MAX, 10).unwrap().is_empty());
    }
}

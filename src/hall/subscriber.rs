//! The hall's MQTT side: subscribes to every board of the hall and feeds [`Hall`]; sends the
//! hall's commands (MQTT 5 request/response) and collects the boards' answers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use rumqttc::v5::mqttbytes::v5::{Packet, PublishProperties};
use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::{AsyncClient, Event as MqttEvent};
use tokio::sync::{mpsc, Notify};

use super::Hall;
use crate::mqtt::{
    client_options, hall_cmd_topic, BoardTopics, BrokerUrl, CommandAnswer, HallCommand, MqttError,
    TOPIC_ROOT,
};

/// How the hall reaches its broker.
#[derive(Clone, Debug)]
pub struct HallMqtt {
    /// The broker.
    pub url: BrokerUrl,
    /// User name and password (the hall's user may publish commands: README "Many boards").
    pub credentials: Option<(String, String)>,
    /// TLS roots (PEM), else the system's.
    pub ca_file: Option<std::path::PathBuf>,
    /// The hall id.
    pub hall: String,
}

/// `smartgoban/v1/<hall>/hall/pairings`: the imported pairings (CSV), retained.
pub fn pairings_topic(hall: &str) -> String {
    format!("{TOPIC_ROOT}/{hall}/hall/pairings")
}

/// Where a command goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// One board.
    Board(String),
    /// Every board of the hall (`smartgoban/v1/<hall>/cmd`).
    All,
}

type Waiters = Arc<Mutex<HashMap<u64, mpsc::UnboundedSender<CommandAnswer>>>>;

/// The hall's connection to its broker.
#[derive(Clone, Debug)]
pub struct HallLink {
    client: AsyncClient,
    hall: String,
    answers_topic: String,
    waiters: Waiters,
    next: Arc<AtomicU64>,
    connected: Arc<AtomicBool>,
    connects: Arc<AtomicU64>,
}

impl HallLink {
    /// Connects (and keeps reconnecting) to `mqtt`'s broker, subscribes to every board of the
    /// hall and feeds `hall`; `changed` is notified after every message that changed it.
    ///
    /// # Errors
    /// A bad hall id or TLS setting.
    pub fn start(
        mqtt: HallMqtt,
        hall: Arc<Mutex<Hall>>,
        changed: Arc<Notify>,
    ) -> Result<HallLink, MqttError> {
        crate::mqtt::check_id("hall", &mqtt.hall)?;
        let client_id = format!(
            "smartgoban-hall-{}-{:08x}",
            mqtt.hall,
            rand::random::<u32>()
        );
        let options = client_options(
            &client_id,
            &mqtt.url,
            mqtt.credentials.as_ref(),
            mqtt.ca_file.as_deref(),
            Duration::from_secs(10),
        )?;
        let (client, eventloop) = AsyncClient::new(options, 1024);
        let link = HallLink {
            client,
            answers_topic: format!("{TOPIC_ROOT}/{}/hall/answers/{client_id}", mqtt.hall),
            hall: mqtt.hall.clone(),
            waiters: Arc::default(),
            next: Arc::new(AtomicU64::new(1)),
            connected: Arc::default(),
            connects: Arc::default(),
        };
        tokio::spawn(link.clone().run(eventloop, mqtt.url, hall, changed));
        Ok(link)
    }

    /// Connected to the broker now.
    pub fn is_connected(&self) -> bool {
        self.connected.load(Ordering::Acquire)
    }

    /// Connections made to the broker since the start (1 while the first holds).
    pub fn connections(&self) -> u64 {
        self.connects.load(Ordering::Acquire)
    }

    async fn run(
        self,
        mut eventloop: rumqttc::v5::EventLoop,
        url: BrokerUrl,
        hall: Arc<Mutex<Hall>>,
        changed: Arc<Notify>,
    ) {
        let pairings = pairings_topic(&self.hall);
        let board_topics = [
            format!("{TOPIC_ROOT}/{}/board/+/+", self.hall),
            format!("{TOPIC_ROOT}/{}/board/+/games/+", self.hall),
            self.answers_topic.clone(),
            pairings.clone(),
        ];
        let mut last_error = String::new();
        loop {
            match eventloop.poll().await {
                Ok(MqttEvent::Incoming(Packet::ConnAck(_))) => {
                    self.connected.store(true, Ordering::Release);
                    self.connects.fetch_add(1, Ordering::AcqRel);
                    tracing::info!("hall: connected to {url}");
                    last_error.clear();
                    for t in &board_topics {
                        let _ = self.client.try_subscribe(t.clone(), QoS::AtLeastOnce);
                    }
                }
                Ok(MqttEvent::Incoming(Packet::Publish(p))) => {
                    let topic = String::from_utf8_lossy(&p.topic).into_owned();
                    let props = p.properties.unwrap_or_default();
                    if topic == self.answers_topic {
                        self.answer(&p.payload, props.correlation_data);
                        continue;
                    }
                    if topic == pairings {
                        // the pairings the hall imported last, kept by the broker
                        let text = String::from_utf8_lossy(&p.payload);
                        match super::pairings::parse(&text) {
                            Ok(list) => {
                                hall.lock()
                                    .unwrap_or_else(|e| e.into_inner())
                                    .set_pairings(list);
                                changed.notify_waiters();
                            }
                            Err(e) => tracing::warn!("hall: the broker's pairings: {e}"),
                        }
                        continue;
                    }
                    let published_ms = props
                        .user_properties
                        .iter()
                        .find(|(k, _)| k == crate::mqtt::publisher::PUBLISHED_MS)
                        .and_then(|(_, v)| v.parse().ok());
                    let now = crate::store::unix_now_ms().max(0) as u64;
                    let applied = hall.lock().unwrap_or_else(|e| e.into_inner()).apply(
                        &topic,
                        &p.payload,
                        published_ms,
                        now,
                    );
                    match applied {
                        super::Applied::Ignored(why) => {
                            tracing::debug!("hall: {topic}: ignored ({why})");
                        }
                        super::Applied::Duplicate => {}
                        _ => changed.notify_waiters(),
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    self.connected.store(false, Ordering::Release);
                    let why = e.to_string();
                    if why != last_error {
                        tracing::warn!("hall: broker {url}: {why}; trying again");
                        last_error = why;
                    }
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
    }

    fn answer(&self, payload: &[u8], correlation: Option<Bytes>) {
        let Some(id) = correlation
            .and_then(|c| <[u8; 8]>::try_from(c.as_ref()).ok())
            .map(u64::from_be_bytes)
        else {
            return;
        };
        let Ok(answer) = serde_json::from_slice::<CommandAnswer>(payload) else {
            return;
        };
        if let Some(tx) = self
            .waiters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
        {
            let _ = tx.send(answer);
        }
    }

    /// Keeps `csv` (pairings just imported) on the broker, retained, so that the hall gets
    /// them back after a restart, and another hall instance has them too.
    ///
    /// # Errors
    /// The message could not be handed to the connection.
    pub async fn publish_pairings(&self, csv: &str) -> Result<(), String> {
        self.client
            .publish(
                pairings_topic(&self.hall),
                QoS::AtLeastOnce,
                true,
                csv.as_bytes().to_vec(),
            )
            .await
            .map_err(|e| e.to_string())
    }

    /// Sends `command` to `target` and collects the answers until `expect` boards answered or
    /// `wait` passed.
    ///
    /// # Errors
    /// The command could not be handed to the connection (the hall is shutting down).
    pub async fn command(
        &self,
        target: &Target,
        command: &HallCommand,
        expect: usize,
        wait: Duration,
    ) -> Result<Vec<CommandAnswer>, String> {
        let id = self.next.fetch_add(1, Ordering::AcqRel);
        let (tx, mut rx) = mpsc::unbounded_channel();
        self.waiters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, tx);
        let topic = match target {
            Target::Board(b) => BoardTopics::new(&self.hall, b).cmd(),
            Target::All => hall_cmd_topic(&self.hall),
        };
        let props = PublishProperties {
            response_topic: Some(self.answers_topic.clone()),
            correlation_data: Some(Bytes::copy_from_slice(&id.to_be_bytes())),
            content_type: Some("application/json".into()),
            // a command not delivered within this time is void (a board that comes back an
            // hour later must not start last round's game)
            message_expiry_interval: Some(wait.as_secs().max(1) as u32),
            ..Default::default()
        };
        let payload = serde_json::to_vec(command).unwrap_or_default();
        let sent = self
            .client
            .publish_with_properties(topic, QoS::AtLeastOnce, false, payload, props)
            .await;
        let mut answers = Vec::new();
        if let Err(e) = sent {
            self.forget(id);
            return Err(e.to_string());
        }
        let deadline = tokio::time::Instant::now() + wait;
        while answers.len() < expect {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(a)) => answers.push(a),
                _ => break,
            }
        }
        self.forget(id);
        Ok(answers)
    }

    fn forget(&self, id: u64) {
        self.waiters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }
}

//! A small client of Chromium's DevTools protocol (CDP) for the live page tests: headless
//! Debian `chromium` started with `--remote-debugging-port=0`, one page driven over its
//! WebSocket (tokio-tungstenite, already a dev-dependency). Every wait has a deadline and
//! polls a condition; nothing sleeps and hopes.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// How long any one wait may take: generous, for a busy 2-core machine.
pub const DEADLINE: Duration = Duration::from_secs(60);

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A headless Chromium with one page under control; killed on drop.
pub struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
    ws: Socket,
    next_id: u64,
    /// The protocol events received so far (`{"method", "params"}`).
    pub events: Vec<Value>,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Starts `chromium` headless on a fresh profile and connects to its first page.
    pub async fn start(chromium: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--remote-debugging-port=0",
                "--remote-debugging-address=127.0.0.1",
                "--window-size=1280,1000",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start chromium");
        // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/…" on stderr.
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let browser_url = rx
            .recv_timeout(DEADLINE)
            .expect("chromium printed no DevTools address");
        let port = browser_url
            .trim_start_matches("ws://")
            .split(['/', ':'])
            .nth(1)
            .unwrap()
            .to_string();
        let started = Instant::now();
        let page_url = loop {
            let list: Option<Vec<Value>> =
                match reqwest::get(format!("http://127.0.0.1:{port}/json/list")).await {
                    Ok(r) => r.json().await.ok(),
                    Err(_) => None,
                };
            let page = list.into_iter().flatten().find(|t| t["type"] == "page");
            if let Some(url) =
                page.and_then(|p| p["webSocketDebuggerUrl"].as_str().map(String::from))
            {
                break url;
            }
            assert!(started.elapsed() < DEADLINE, "chromium opened no page");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let (ws, _) = tokio_tungstenite::connect_async(page_url)
            .await
            .expect("connect to the page's DevTools socket");
        let mut b = Browser {
            child,
            _profile: profile,
            ws,
            next_id: 0,
            events: Vec::new(),
        };
        b.call("Page.enable", json!({})).await;
        b.call("Network.enable", json!({})).await;
        b.call("Runtime.enable", json!({})).await;
        b
    }

    /// Calls `method` and returns its result; panics on a protocol error or after
    /// [`DEADLINE`].
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        match self.try_call(method, params).await {
            Ok(result) => result,
            Err(error) => panic!("{method}: {error}"),
        }
    }

    /// Calls `method`: its result, or the protocol's error (e.g. a node gone with a document
    /// replaced meanwhile); panics when the browser does not answer within [`DEADLINE`].
    pub async fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({ "id": id, "method": method, "params": params }).to_string();
        self.ws.send(Message::Text(msg.into())).await.unwrap();
        let until = Instant::now() + DEADLINE;
        loop {
            let v = self.next_message(until, method).await;
            if v["id"] == id {
                return match v.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(v["result"].clone()),
                };
            }
        }
    }

    /// The next message from the browser (a protocol event is kept in [`Browser::events`]
    /// too); panics, naming `what` was awaited, when none comes by `until`.
    async fn next_message(&mut self, until: Instant, what: &str) -> Value {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let msg = tokio::time::timeout(left, self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("{what}: nothing within {DEADLINE:?}"))
                .expect("the DevTools socket closed")
                .unwrap();
            let Message::Text(text) = msg else { continue };
            let v: Value = serde_json::from_str(text.as_str()).unwrap();
            if v.get("method").is_some() {
                self.events.push(v.clone());
            }
            return v;
        }
    }

    /// Waits for the protocol event `method` received after the first `from` events (the
    /// length of [`Browser::events`] before the action that causes it), and returns its
    /// params; panics after [`DEADLINE`].
    pub async fn wait_event(&mut self, method: &str, from: usize) -> Value {
        let until = Instant::now() + DEADLINE;
        loop {
            if let Some(e) = self.events[from.min(self.events.len())..]
                .iter()
                .find(|e| e["method"] == method)
            {
                return e["params"].clone();
            }
            self.next_message(until, method).await;
        }
    }

    /// Opens `url` and waits until its `load` event.
    pub async fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url })).await;
        self.wait_for("document.readyState === 'complete'", "the page to load")
            .await;
    }

    /// The value of the JavaScript expression `expr` (awaited if a promise).
    pub async fn eval(&mut self, expr: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
            )
            .await;
        assert!(
            r.get("exceptionDetails").is_none(),
            "{expr}: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Polls `expr` until it is truthy (not null, false, 0 or ""), and returns its value;
    /// panics with `what` and the last value after [`DEADLINE`].
    pub async fn wait_for(&mut self, expr: &str, what: &str) -> Value {
        let started = Instant::now();
        loop {
            let v = self.eval(expr).await;
            let truthy = match &v {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64() != Some(0.0),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return v;
            }
            assert!(
                started.elapsed() < DEADLINE,
                "waited {DEADLINE:?} for {what}: `{expr}` is {v}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A real key press (`ArrowLeft`, `ArrowRight`, `Home`, `End`), as the keyboard sends it.
    pub async fn key(&mut self, key: &str) {
        let code = match key {
            "ArrowLeft" => 37,
            "ArrowRight" => 39,
            "Home" => 36,
            "End" => 35,
            other => panic!("no key code for {other}"),
        };
        for kind in ["rawKeyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": key,
                        "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code }),
            )
            .await;
        }
    }

    /// A real mouse click in the middle of the element `selector`, as a person does: the
    /// element is scrolled into view, the pointer goes to it, and the button is pressed once
    /// the element is the one under the pointer. The page may move things meanwhile (a new
    /// move scrolls the moves list, possibly the element out of its box), so this is tried
    /// again, scrolling it back, until the element stays under the pointer.
    pub async fn click(&mut self, selector: &str) {
        let sel = serde_json::to_string(selector).unwrap();
        let centre = format!(
            "(() => {{ const e = document.querySelector({sel}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        );
        let deadline = Instant::now() + DEADLINE;
        let (x, y) = loop {
            let at = self.wait_for(&centre, selector).await;
            let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
            self.pointer_to(x, y).await;
            let under = self
                .eval(&format!(
                    "(() => {{ const e = document.querySelector({sel}), u = document.elementFromPoint({x}, {y}); \
                     return !!e && !!u && e.contains(u); }})()"
                ))
                .await;
            if under == json!(true) {
                break (x, y);
            }
            assert!(
                Instant::now() < deadline,
                "{selector} never stayed under the pointer"
            );
        };
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )
            .await;
        }
    }

    /// Moves the pointer to `(x, y)`, CSS pixels from the window's top left.
    pub async fn pointer_to(&mut self, x: f64, y: f64) {
        self.call(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y }),
        )
        .await;
    }

    /// A PNG of the page (the whole page, not only the window) in `dir/name.png`.
    pub async fn screenshot(&mut self, dir: &Path, name: &str) -> PathBuf {
        let r = self
            .call(
                "Page.captureScreenshot",
                json!({ "format": "png", "captureBeyondViewport": true }),
            )
            .await;
        let png = base64_decode(r["data"].as_str().unwrap());
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 10_000,
            "{name}: {} bytes",
            png.len()
        );
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap();
        path
    }
}

/// Standard base64 (CDP's screenshots) to bytes.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for v in text.bytes().filter_map(value) {
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

//! `smartgoban leds test`: walks the LEDs in chain order, one at a time, so the installer can
//! check the corner of LED 0 and the wiring order (`[leds] first` and `order`).
//!
//! For each LED it prints `LED n → POINT` and lights that LED alone (dim white, at least a
//! visible level even with `brightness = 0`) for `--step-ms`. With the `sim` driver nothing is
//! lit: it prints the walk and the map of LED numbers over the board. With `mcu` the frames go
//! over the serial link to the board (points in SGF order on the board's own size; the
//! firmware owns its wiring), each acknowledged before the next, and all LEDs go off at the
//! end.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use smartgoban_protocol::{BoardSize, LedCells, LedFrame, LedPaint, PALETTE_LEN};

use crate::config::{Config, LedDriverKind, DEFAULT_CONFIG};
use crate::devices::leds::{self, LedError};
use crate::leds::{Frame, Layout, Role};
use crate::link::{Connection, LedDelivery, LinkConfig, LinkEvent};
use crate::rules::Point;

/// `smartgoban leds …`.
#[derive(Debug, Args)]
pub struct LedsArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: LedsCommand,
}

/// The `leds` subcommands.
#[derive(Debug, Subcommand)]
pub enum LedsCommand {
    /// Lights every LED in chain order, one at a time, printing the point each should be under.
    Test(LedsTestArgs),
}

/// `smartgoban leds test`.
#[derive(Debug, Clone, Args)]
pub struct LedsTestArgs {
    /// Config file (`[leds]`); default /etc/smartgoban/smartgoban.toml if it exists.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Driver instead of the config's: mcu, ws2812-spi, apa102-spi or sim.
    #[arg(long, value_parser = parse_driver)]
    pub driver: Option<LedDriverKind>,
    /// Corner of LED 0 instead of the config's: top-left, top-right, bottom-left, bottom-right
    /// (seen from Black).
    #[arg(long)]
    pub first: Option<String>,
    /// Wiring order instead of the config's: rows, serpentine-rows, columns,
    /// serpentine-columns.
    #[arg(long)]
    pub order: Option<String>,
    /// Points per side: 9, 13 or 19 (the SPI and sim drivers; the mcu walk takes the board's).
    #[arg(long, default_value_t = 19, value_parser = parse_size)]
    pub size: u8,
    /// How long each LED stays lit, ms.
    #[arg(long, default_value_t = 300)]
    pub step_ms: u64,
    /// The board's serial device (the `mcu` driver) instead of the config's.
    #[arg(long, value_name = "PATH")]
    pub serial: Option<PathBuf>,
}

fn parse_driver(s: &str) -> Result<LedDriverKind, String> {
    match s {
        "mcu" => Ok(LedDriverKind::Mcu),
        "ws2812-spi" => Ok(LedDriverKind::Ws2812Spi),
        "apa102-spi" => Ok(LedDriverKind::Apa102Spi),
        "sim" => Ok(LedDriverKind::Sim),
        _ => Err(format!(
            "driver `{s}`: use mcu, ws2812-spi, apa102-spi or sim"
        )),
    }
}

fn parse_size(s: &str) -> Result<u8, String> {
    match s.parse::<u8>() {
        Ok(n @ (9 | 13 | 19)) => Ok(n),
        _ => Err(format!("size `{s}`: use 9, 13 or 19")),
    }
}

/// Why the test could not run.
#[derive(Debug, thiserror::Error)]
pub enum LedsTestError {
    /// The config file.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// A bad `--first` or `--order`.
    #[error(transparent)]
    Layout(#[from] crate::leds::LayoutError),
    /// The driver.
    #[error(transparent)]
    Led(#[from] LedError),
    /// `driver = "none"`.
    #[error("no LEDs configured (`[leds] driver = \"none\"`): pass --driver")]
    NoDriver,
    /// The `mcu` driver needs the board.
    #[error(
        "the mcu driver needs the board: pass --serial PATH or set `serial` in the config file"
    )]
    NoSerial,
    /// The board did not answer.
    #[error("the board: {0}")]
    Board(String),
}

/// One LED on: `point` in dim white, everything else off.
pub fn single_led_frame(size: u8, point: Point, brightness: u8) -> Frame {
    let board = BoardSize::new(size).unwrap_or(BoardSize::NINETEEN);
    let mut palette = [LedPaint::OFF; PALETTE_LEN];
    let level = brightness.max(16) / 2;
    palette[1].rgb = [level; 3];
    let mut cells = LedCells::new(board);
    let n = usize::from(board.get()) * usize::from(board.get());
    let index = point.index(board.get());
    cells.set(index, 1);
    let mut roles = vec![None; n];
    if let Some(r) = roles.get_mut(index) {
        *r = Some(Role::Star);
    }
    Frame {
        leds: LedFrame {
            frame_id: 0,
            palette,
            cells,
        },
        roles,
        next: None,
        peak_current_ua: crate::leds::budget::current_ua(u64::from(level) * 3, 20),
    }
}

/// The map of LED numbers over the board, rows top first (as seen from Black).
pub fn led_map(layout: &Layout, size: u8) -> String {
    let n = usize::from(size);
    let mut number = vec![0usize; n * n];
    for (led, point) in layout.chain(size).into_iter().enumerate() {
        number[point] = led;
    }
    let mut out = String::from("    ");
    for c in "ABCDEFGHJKLMNOPQRST".chars().take(n) {
        out += &format!("{c:>4}");
    }
    out.push('\n');
    for y in 0..n {
        out += &format!("{:>4}", n - y);
        for x in 0..n {
            out += &format!("{:>4}", number[y * n + x]);
        }
        out.push('\n');
    }
    out
}

/// Runs `leds test`, printing to `out`.
pub async fn test(args: LedsTestArgs, out: &mut impl std::io::Write) -> Result<(), LedsTestError> {
    let mut config = match &args.config {
        Some(path) => Config::load(path)?,
        None if std::path::Path::new(DEFAULT_CONFIG).exists() => {
            Config::load(std::path::Path::new(DEFAULT_CONFIG))?
        }
        None => Config::defaults(),
    };
    if let Some(d) = args.driver {
        config.leds.driver = d;
    }
    if args.first.is_some() || args.order.is_some() {
        let first = args
            .first
            .clone()
            .unwrap_or_else(|| corner_name(&config.leds.layout));
        let order = args
            .order
            .clone()
            .unwrap_or_else(|| order_name(&config.leds.layout));
        config.leds.layout = Layout::parse(&first, &order)?;
    }
    let layout = config.leds.layout;
    let size = args.size;
    let brightness = config.leds.settings.brightness;
    let step = Duration::from_millis(args.step_ms);
    let say = |out: &mut dyn std::io::Write, line: String| {
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    match config.leds.driver {
        LedDriverKind::None => return Err(LedsTestError::NoDriver),
        LedDriverKind::Mcu => {
            let serial = args
                .serial
                .clone()
                .or(config.serial.clone())
                .ok_or(LedsTestError::NoSerial)?;
            return mcu_walk(serial, brightness, step, out).await;
        }
        _ => {}
    }
    let Some(mut driver) = leds::from_config(&config.leds)? else {
        return Err(LedsTestError::NoDriver);
    };
    say(
        out,
        format!(
            "LED walk: {size}×{size}, LED 0 at {}, {}; each LED {} ms",
            corner_name(&layout),
            order_name(&layout),
            args.step_ms
        ),
    );
    for led in 0..usize::from(size) * usize::from(size) {
        let Some(point) = layout.point(led, size) else {
            break;
        };
        say(out, format!("LED {led:>3} → {}", point.to_gtp(size)));
        driver.show(&single_led_frame(size, point, brightness), 0)?;
        tokio::time::sleep(step).await;
    }
    driver.show(
        &crate::leds::render(&crate::leds::Scene::idle(size, true), &config.leds.settings),
        0,
    )?;
    say(
        out,
        format!(
            "LED numbers over the board (seen from Black):\n{}",
            led_map(&layout, size)
        ),
    );
    Ok(())
}

/// The serial link to the board for the walk: the port thread and the protocol state machine.
struct McuLink {
    port: crate::link::serial::SerialPort,
    rx: tokio::sync::mpsc::Receiver<crate::link::serial::PortEvent>,
    conn: Connection,
    start: std::time::Instant,
    serial: PathBuf,
}

impl McuLink {
    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Moves bytes both ways for up to 50 ms; returns the link's events. A port that cannot be
    /// opened or fails is an error at once.
    async fn turn(&mut self) -> Result<Vec<LinkEvent>, LedsTestError> {
        use crate::link::serial::PortEvent;
        while let Some(bytes) = self.conn.poll_transmit() {
            self.port.write(bytes);
        }
        let ev = tokio::time::timeout(Duration::from_millis(50), self.rx.recv()).await;
        let now = self.now();
        match ev {
            Ok(Some(PortEvent::Opened)) => self.conn.on_open(now),
            Ok(Some(PortEvent::Bytes(b))) => self.conn.handle_bytes(&b, now),
            Ok(Some(PortEvent::Closed(reason) | PortEvent::OpenFailed(reason))) => {
                return Err(LedsTestError::Board(format!(
                    "{}: {reason}",
                    self.serial.display()
                )))
            }
            Ok(None) | Err(_) => {}
        }
        self.conn.handle_timeout(self.now());
        while let Some(bytes) = self.conn.poll_transmit() {
            self.port.write(bytes);
        }
        Ok(std::iter::from_fn(|| self.conn.poll_event()).collect())
    }

    /// Waits for the handshake; returns the board's size.
    async fn handshake(&mut self) -> Result<u8, LedsTestError> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while tokio::time::Instant::now() < deadline {
            for ev in self.turn().await? {
                match ev {
                    LinkEvent::Up(info) if self.conn.version().is_some_and(|v| v >= 2) => {
                        return Ok(info.board_size)
                    }
                    LinkEvent::Up(_) => {
                        return Err(LedsTestError::Board(
                            "the board speaks protocol version 1: it has no LEDs".into(),
                        ))
                    }
                    LinkEvent::Rejected { board_version } => {
                        return Err(LedsTestError::Board(format!(
                            "the board refused protocol version {} (its own is {board_version})",
                            smartgoban_protocol::PROTOCOL_VERSION
                        )))
                    }
                    _ => {}
                }
            }
        }
        Err(LedsTestError::Board(format!(
            "{} did not answer the handshake within 5 s",
            self.serial.display()
        )))
    }

    /// Sends `frame` and waits until the board acknowledges it with the right CRC.
    async fn show(&mut self, frame: LedFrame) -> Result<(), LedsTestError> {
        self.conn.set_leds(frame, self.now());
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while tokio::time::Instant::now() < deadline {
            if let LedDelivery::Shown { .. } = self.conn.led_delivery() {
                return Ok(());
            }
            for ev in self.turn().await? {
                if let LinkEvent::Down { reason } = ev {
                    return Err(LedsTestError::Board(format!(
                        "the link went down: {reason}"
                    )));
                }
            }
        }
        Err(LedsTestError::Board(format!(
            "{} did not acknowledge the LED frame within 5 s",
            self.serial.display()
        )))
    }
}

/// The walk through the board's microcontroller: every point in SGF order (the firmware maps
/// points to its LEDs), each frame acknowledged before the next; all off at the end.
async fn mcu_walk(
    serial: PathBuf,
    brightness: u8,
    step: Duration,
    out: &mut impl std::io::Write,
) -> Result<(), LedsTestError> {
    if !serial.exists() {
        return Err(LedsTestError::Board(format!(
            "{} does not exist (is the board plugged in?)",
            serial.display()
        )));
    }
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    let port = crate::link::serial::SerialPort::spawn(serial.clone(), tx)
        .map_err(|e| LedsTestError::Board(format!("{}: {e}", serial.display())))?;
    let mut link = McuLink {
        port,
        rx,
        conn: Connection::new(LinkConfig::default()),
        start: std::time::Instant::now(),
        serial,
    };
    let size = link.handshake().await?;
    let _ = writeln!(
        out,
        "the board is {size}×{size}: points in SGF order (the firmware maps them to its LEDs)"
    );
    for index in 0..usize::from(size) * usize::from(size) {
        let point = Point::from_index(index, size);
        let _ = writeln!(out, "point {index:>3} → {}", point.to_gtp(size));
        let _ = out.flush();
        link.show(single_led_frame(size, point, brightness).leds)
            .await?;
        tokio::time::sleep(step).await;
    }
    let board = BoardSize::new(size).unwrap_or(BoardSize::NINETEEN);
    link.show(LedFrame {
        frame_id: 0,
        palette: [LedPaint::OFF; PALETTE_LEN],
        cells: LedCells::new(board),
    })
    .await?;
    let _ = writeln!(out, "done: every LED off");
    Ok(())
}

fn corner_name(layout: &Layout) -> String {
    serde_json::to_value(layout.first)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn order_name(layout: &Layout) -> String {
    serde_json::to_value(layout.order)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_numbers_the_chain() {
        let map = led_map(&Layout::default(), 9);
        let lines: Vec<&str> = map.lines().collect();
        assert_eq!(
            lines[1].split_whitespace().collect::<Vec<_>>(),
            ["9", "0", "1", "2", "3", "4", "5", "6", "7", "8"]
        );
        assert_eq!(
            lines[2].split_whitespace().collect::<Vec<_>>(),
            ["8", "17", "16", "15", "14", "13", "12", "11", "10", "9"]
        );
        let f = single_led_frame(9, Point::from_gtp("E5", 9).unwrap(), 128);
        let lit: Vec<usize> = (0..81).filter(|&i| f.leds.cells.get(i) != 0).collect();
        assert_eq!(lit, [40]);
        assert_eq!(f.leds.palette[1].rgb, [64, 64, 64]);
    }
}

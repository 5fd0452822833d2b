//! The smartgoban board's firmware for the RP2040 (a Raspberry Pi Pico under the board):
//! hardware/WIRING.md is the wiring, hardware/PROTOCOL.md the protocol to the Raspberry Pi.
//!
//! This file is only the shell — pins, peripherals, tasks and timing. Every decision is made
//! by `smartgoban-board-core`, which the host tests (`cargo test --workspace`) and the virtual
//! board runs (`smartgoban sim --firmware`):
//!
//! - **scan** (every 20 ms, 50 scans a second, §8): the 361 Hall sensors through the two levels
//!   of 74HC4067 ([`board_core::mux::scan_order`]), 8 conversions each reduced by a trimmed
//!   mean ([`board_core::oversample`]), classified with hysteresis and the neighbours' field
//!   taken out ([`board_core::classify`]), recorded in the board's history
//!   ([`board_core::history`], §14) and sent as a `Scan` when a session is open; it feeds the
//!   watchdog.
//! - **buttons** (every millisecond): the six buttons debounced and counted
//!   ([`board_core::debounce`], §7).
//! - **usb rx / usb tx**: USB CDC-ACM with the flash's unique id as serial number
//!   ([`board_core::usb`]); the host's bytes go to [`board_core::link::BoardLink`], whose
//!   answers and scans go out through a 4 KiB pipe (a full pipe drops the scan: the host sees
//!   the gap, §8).
//! - **leds** (every 20 ms): the host's LED frame with its effects on the WS2812 chain through
//!   PIO, the link-lost pattern while the host is silent, the current cap
//!   ([`board_core::led_chain`]).
//!
//! - **calibration** (PROTOCOL.md §15): the image `smartgoban calibrate` writes
//!   (`CalibrationData`, `CalibrationCommit`) is checked ([`board_core::image::decode`]), used
//!   from the next scan and kept in the last 8 KiB of the flash, from where it is read at
//!   power-up; the raw readings of the latest scan answer `RawRequest`, the sensors' health
//!   `HealthRequest`. A board never calibrated classifies with the design calibration —
//!   mid-scale empty, ±770 counts for a stone (WIRING.md "Sensors"), the dipole coupling of
//!   the design height — and says so (`SensorHealth.calibrated` = 0).
#![no_std]
#![no_main]

use core::cell::RefCell;

use embassy_executor::Spawner;
use embassy_rp::adc::{self, Adc, Channel};
use embassy_rp::bind_interrupts;
use embassy_rp::flash::{Blocking, Flash};
use embassy_rp::gpio::{Input, Level, Output, Pull};
use embassy_rp::peripherals::{DMA_CH0, PIO0, USB};
use embassy_rp::pio::{self, Pio};
use embassy_rp::pio_programs::ws2812::{Grb, PioWs2812, PioWs2812Program};
use embassy_rp::usb::{self as rp_usb, Driver};
use embassy_rp::watchdog::Watchdog;
use embassy_sync::blocking_mutex::raw::ThreadModeRawMutex;
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::pipe::Pipe;
use embassy_time::{block_for, Duration, Instant, Ticker};
use embassy_usb::class::cdc_acm::{CdcAcmClass, Receiver, Sender, State};
use embassy_usb::UsbDevice;
use panic_reset as _;
use smart_leds::RGB8;
use smartgoban_board_core as board_core;
use static_cell::StaticCell;

use board_core::calibration::{BoardCalibration, PointCalibration};
use board_core::classify::{Classifier, Thresholds};
use board_core::coupling::{Coupling, DESIGN_HEIGHT_MM, DESIGN_PITCH_MM};
use board_core::debounce::Buttons;
use board_core::health::Health;
use board_core::history::FirmwareHistory;
use board_core::led_chain::Chain;
use board_core::link::{BoardLink, LinkConfig, Sensors};
use board_core::oversample::trimmed_mean;
use board_core::MAX_POINTS;
use smartgoban_protocol::calibration::{CalibrationStatus, SensorHealth, MAX_IMAGE_LEN};
use smartgoban_protocol::timing::DEFAULT_SCAN_RATE_HZ;
use smartgoban_protocol::{
    encode, BoardSize, ButtonCounters, Frame, Message, MAX_FRAME_LEN, PROTOCOL_VERSION,
};

bind_interrupts!(struct Irqs {
    USBCTRL_IRQ => rp_usb::InterruptHandler<USB>;
    PIO0_IRQ_0 => pio::InterruptHandler<PIO0>;
    DMA_IRQ_0 => embassy_rp::dma::InterruptHandler<DMA_CH0>;
});

/// The board this firmware is built for.
const SIZE: BoardSize = BoardSize::NINETEEN;

/// Points on it.
const POINTS: usize = SIZE.points();

/// One scan period, ms (50 scans a second, PROTOCOL.md §8).
const SCAN_PERIOD_MS: u64 = 1000 / DEFAULT_SCAN_RATE_HZ as u64;

/// ADC conversions per point and scan (WIRING.md "Scan timing").
const SAMPLES: usize = 8;

/// Settling time after the level-2 address changes, µs (WIRING.md "Scan timing").
const SETTLE_US: u64 = 5;

/// The watchdog restarts the chip when no scan finished for this long, ms.
const WATCHDOG_MS: u64 = 500;

/// This firmware's build, as `HelloAck.firmware_version` reports it.
const FIRMWARE_VERSION: u16 = 1;

/// Size of the Pico's flash (W25Q16JV), bytes.
const FLASH_SIZE: usize = 2 * 1024 * 1024;

/// A design reading span for a stone, counts (WIRING.md: about ±770 counts).
const DESIGN_SPAN: u16 = 770;

/// Where the calibration image lives: the last 8 KiB of the flash (two 4 KiB sectors,
/// PROTOCOL.md §15), far past the firmware.
const IMAGE_OFFSET: u32 = (FLASH_SIZE - MAX_IMAGE_LEN) as u32;

type BoardFlash = Flash<'static, embassy_rp::peripherals::FLASH, Blocking, FLASH_SIZE>;

/// What the tasks share: the protocol, the classifier and its calibration, the buttons.
struct Board {
    link: BoardLink,
    classifier: Classifier,
    calibration: BoardCalibration,
    /// Each point's sensor health, from the stored calibration (all healthy without one).
    health: [Health; MAX_POINTS],
    /// Whether a calibration was stored (`SensorHealth.calibrated`).
    calibrated: bool,
    /// The latest scan's readings (counts), for `RawRequest`.
    raw: [u16; MAX_POINTS],
    /// The debouncer's counters, from the buttons task.
    counters: ButtonCounters,
    /// The counters whose presses are in the history.
    recorded: ButtonCounters,
}

/// The shared state (one executor, thread mode: the lock only guards against re-entry).
static BOARD: Mutex<ThreadModeRawMutex, RefCell<Option<Board>>> = Mutex::new(RefCell::new(None));

/// The history (162.5 KiB, board-core `history`): a `static`, built at compile time.
static HISTORY: Mutex<ThreadModeRawMutex, RefCell<FirmwareHistory>> =
    Mutex::new(RefCell::new(FirmwareHistory::new(SIZE)));

/// The flash, for the calibration image.
static FLASH: Mutex<ThreadModeRawMutex, RefCell<Option<BoardFlash>>> =
    Mutex::new(RefCell::new(None));

/// The watchdog, fed by the scan loop and while the flash is written.
static WATCHDOG: Mutex<ThreadModeRawMutex, RefCell<Option<Watchdog>>> =
    Mutex::new(RefCell::new(None));

fn feed_watchdog() {
    WATCHDOG.lock(|w| {
        if let Some(w) = w.borrow_mut().as_mut() {
            w.feed(Duration::from_millis(WATCHDOG_MS));
        }
    });
}

/// The board's sensors as the calibration messages reach them (PROTOCOL.md §15).
struct BoardSensors<'a> {
    raw: &'a [u16],
    calibration: &'a mut BoardCalibration,
    health: &'a mut [Health; MAX_POINTS],
    calibrated: &'a mut bool,
}

impl Sensors for BoardSensors<'_> {
    fn raw_readings(&self) -> &[u16] {
        self.raw
    }

    fn sensor_health(&self) -> SensorHealth {
        let mut report = SensorHealth::new(SIZE, *self.calibrated);
        for (i, h) in self.health.iter().enumerate().take(POINTS) {
            report.set(i, h.0);
        }
        report
    }

    fn store_calibration(&mut self, image: &[u8]) -> CalibrationStatus {
        let Ok(decoded) = board_core::image::decode(image, Some(SIZE)) else {
            return CalibrationStatus::Invalid;
        };
        *self.calibration = decoded.calibration;
        *self.health = decoded.health;
        *self.calibrated = true;
        // Erasing two sectors takes up to 0.8 s: the watchdog is fed around each step.
        let written = FLASH.lock(|f| {
            let mut flash = f.borrow_mut();
            let Some(flash) = flash.as_mut() else {
                return false;
            };
            feed_watchdog();
            let mut ok = true;
            for sector in 0..(MAX_IMAGE_LEN / 4096) as u32 {
                let from = IMAGE_OFFSET + sector * 4096;
                ok &= flash.blocking_erase(from, from + 4096).is_ok();
                feed_watchdog();
            }
            ok && flash.blocking_write(IMAGE_OFFSET, image).is_ok()
        });
        feed_watchdog();
        if written {
            CalibrationStatus::Stored
        } else {
            CalibrationStatus::FlashFailed
        }
    }
}

/// The calibration image kept in flash, if there is a valid one for this board.
fn stored_image(flash: &mut BoardFlash) -> Option<board_core::image::Image> {
    let mut buf = [0u8; board_core::image::MAX_LEN];
    flash.blocking_read(IMAGE_OFFSET, &mut buf).ok()?;
    let len = board_core::image::image_len(SIZE);
    board_core::image::decode(buf.get(..len)?, Some(SIZE)).ok()
}

/// Encoded frames for the host, drained by the usb tx task.
static TX: Pipe<ThreadModeRawMutex, 4096> = Pipe::new();

/// The board's millisecond clock (wraps after 49.7 days, §5.3).
fn now_ms() -> u32 {
    Instant::now().as_millis() as u32
}

/// Puts `frame` in the pipe whole, or not at all (a full pipe: the host does not read).
fn put(frame: &Frame) -> bool {
    let mut buf = [0u8; MAX_FRAME_LEN];
    let Ok(n) = encode(frame, &mut buf) else {
        return false;
    };
    let bytes = &buf[..n];
    TX.free_capacity() >= n && TX.try_write(bytes) == Ok(n)
}

#[embassy_executor::main(
    executor = "embassy_rp::executor::Executor",
    entry = "cortex_m_rt::entry"
)]
async fn main(spawner: Spawner) {
    let p = embassy_rp::init(Default::default());

    // The flash's unique id: the USB serial number and the HelloAck's device id.
    let mut uid = [0u8; 8];
    let mut flash = Flash::<_, Blocking, FLASH_SIZE>::new_blocking(p.FLASH);
    if flash.blocking_unique_id(&mut uid).is_err() {
        uid = [0; 8];
    }
    static SERIAL: StaticCell<[u8; board_core::usb::SERIAL_LEN]> = StaticCell::new();
    let serial = SERIAL.init(board_core::usb::serial_number(uid));
    let serial = core::str::from_utf8(serial).unwrap_or("0000000000000000");

    // The stored calibration, or the design's.
    let (calibration, health, calibrated) = match stored_image(&mut flash) {
        Some(image) => (image.calibration, image.health, true),
        None => {
            let coupling =
                Coupling::dipole(DESIGN_HEIGHT_MM, DESIGN_PITCH_MM).unwrap_or(Coupling::none());
            let mid = board_core::oversample::ADC_MAX / 2 + 1;
            let design = BoardCalibration::uniform(
                SIZE,
                PointCalibration::symmetric(mid, DESIGN_SPAN),
                coupling,
            );
            (design, [Health::HEALTHY; MAX_POINTS], false)
        }
    };
    FLASH.lock(|f| *f.borrow_mut() = Some(flash));
    let Ok(classifier) = Classifier::new(SIZE, Thresholds::default()) else {
        panic!("the default thresholds hang together");
    };
    BOARD.lock(|b| {
        *b.borrow_mut() = Some(Board {
            link: BoardLink::new(LinkConfig {
                board_size: SIZE,
                protocol_version: PROTOCOL_VERSION,
                scan_rate_hz: DEFAULT_SCAN_RATE_HZ,
                firmware_version: FIRMWARE_VERSION,
                device_id: board_core::usb::device_id(uid),
            }),
            classifier,
            calibration,
            health,
            calibrated,
            raw: [0; MAX_POINTS],
            counters: ButtonCounters::ZERO,
            recorded: ButtonCounters::ZERO,
        })
    });
    // A new boot id at every power-up (§14.1): from the ring oscillator's random bits.
    let mut rng = embassy_rp::clocks::RoscRng;
    let boot_id = loop {
        let id = rng.next_u32();
        if id != 0 {
            break id;
        }
    };
    HISTORY.lock(|h| h.borrow_mut().restart(boot_id));

    // USB CDC-ACM.
    let driver = Driver::new(p.USB, Irqs);
    let mut config =
        embassy_usb::Config::new(board_core::usb::VENDOR_ID, board_core::usb::PRODUCT_ID);
    config.manufacturer = Some(board_core::usb::MANUFACTURER);
    config.product = Some(board_core::usb::PRODUCT);
    config.serial_number = Some(serial);
    config.max_power = 100;
    config.max_packet_size_0 = 64;
    static CONFIG_DESCRIPTOR: StaticCell<[u8; 256]> = StaticCell::new();
    static BOS_DESCRIPTOR: StaticCell<[u8; 256]> = StaticCell::new();
    static CONTROL_BUF: StaticCell<[u8; 64]> = StaticCell::new();
    static CDC_STATE: StaticCell<State> = StaticCell::new();
    let mut builder = embassy_usb::Builder::new(
        driver,
        config,
        CONFIG_DESCRIPTOR.init([0; 256]),
        BOS_DESCRIPTOR.init([0; 256]),
        &mut [],
        CONTROL_BUF.init([0; 64]),
    );
    let class = CdcAcmClass::new(&mut builder, CDC_STATE.init(State::new()), 64);
    let (sender, receiver) = class.split();
    let usb = builder.build();

    // The sensors: level-1 address GP2-GP5, level-2 address GP6-GP9, ADC0 (GP26), ADC1 (GP27).
    let mux = Mux {
        level1: [
            Output::new(p.PIN_2, Level::Low),
            Output::new(p.PIN_3, Level::Low),
            Output::new(p.PIN_4, Level::Low),
            Output::new(p.PIN_5, Level::Low),
        ],
        level2: [
            Output::new(p.PIN_6, Level::Low),
            Output::new(p.PIN_7, Level::Low),
            Output::new(p.PIN_8, Level::Low),
            Output::new(p.PIN_9, Level::Low),
        ],
        adc: Adc::new_blocking(p.ADC, adc::Config::default()),
        inputs: [
            Channel::new_pin(p.PIN_26, Pull::None),
            Channel::new_pin(p.PIN_27, Pull::None),
        ],
    };
    // The buttons, to ground with the internal pull-ups, in the protocol's order (§5.3):
    // Black's and White's pass (GP12, GP13), resign (GP14, GP15), clock (GP10, GP11).
    let buttons = [
        Input::new(p.PIN_12, Pull::Up),
        Input::new(p.PIN_13, Pull::Up),
        Input::new(p.PIN_14, Pull::Up),
        Input::new(p.PIN_15, Pull::Up),
        Input::new(p.PIN_10, Pull::Up),
        Input::new(p.PIN_11, Pull::Up),
    ];
    // The LED chain: GP16, PIO0's state machine 0, DMA channel 0.
    let Pio {
        mut common, sm0, ..
    } = Pio::new(p.PIO0, Irqs);
    static PROGRAM: StaticCell<PioWs2812Program<'static, PIO0>> = StaticCell::new();
    let program = PROGRAM.init(PioWs2812Program::new(&mut common));
    let chain = PioWs2812::new(&mut common, sm0, p.DMA_CH0, Irqs, p.PIN_16, program);

    let mut watchdog = Watchdog::new(p.WATCHDOG);
    watchdog.start(Duration::from_millis(WATCHDOG_MS));
    WATCHDOG.lock(|w| *w.borrow_mut() = Some(watchdog));

    spawner.spawn(usb_task(usb).expect("one usb task"));
    spawner.spawn(rx_task(receiver).expect("one rx task"));
    spawner.spawn(tx_task(sender).expect("one tx task"));
    spawner.spawn(buttons_task(buttons).expect("one buttons task"));
    spawner.spawn(led_task(chain).expect("one led task"));
    scan_loop(mux).await;
}

type UsbDriver = Driver<'static, USB>;

#[embassy_executor::task]
async fn usb_task(mut usb: UsbDevice<'static, UsbDriver>) -> ! {
    usb.run().await
}

/// The host's bytes to the link; its answers to the pipe. A closed port ends the session.
#[embassy_executor::task]
async fn rx_task(mut receiver: Receiver<'static, UsbDriver>) -> ! {
    let mut buf = [0u8; 64];
    loop {
        receiver.wait_connection().await;
        while let Ok(n) = receiver.read_packet(&mut buf).await {
            let now = now_ms();
            BOARD.lock(|b| {
                HISTORY.lock(|h| {
                    if let Some(board) = b.borrow_mut().as_mut() {
                        let mut history = h.borrow_mut();
                        let Board {
                            link,
                            calibration,
                            health,
                            calibrated,
                            raw,
                            ..
                        } = board;
                        let mut sensors = BoardSensors {
                            raw: &raw[..POINTS],
                            calibration,
                            health,
                            calibrated,
                        };
                        link.receive(
                            &buf[..n],
                            now,
                            Some(&mut *history),
                            Some(&mut sensors),
                            &mut |frame| {
                                put(&frame);
                            },
                        );
                    }
                })
            });
        }
        BOARD.lock(|b| {
            if let Some(board) = b.borrow_mut().as_mut() {
                board.link.disconnect();
            }
        });
        TX.clear();
    }
}

/// The pipe to the host, a USB packet at a time.
#[embassy_executor::task]
async fn tx_task(mut sender: Sender<'static, UsbDriver>) -> ! {
    let mut buf = [0u8; 64];
    loop {
        sender.wait_connection().await;
        loop {
            let n = TX.read(&mut buf).await;
            if sender.write_packet(&buf[..n]).await.is_err() {
                break;
            }
        }
    }
}

/// The buttons sampled every millisecond and debounced (§7).
#[embassy_executor::task]
async fn buttons_task(inputs: [Input<'static>; 6]) -> ! {
    let mut buttons = Buttons::new();
    let mut ticker = Ticker::every(Duration::from_millis(1));
    loop {
        ticker.next().await;
        let pressed = [0, 1, 2, 3, 4, 5].map(|i| inputs[i].is_low());
        let counters = buttons.sample(pressed, now_ms());
        BOARD.lock(|b| {
            if let Some(board) = b.borrow_mut().as_mut() {
                board.counters = counters;
            }
        });
    }
}

/// The LED chain, every scan period.
#[embassy_executor::task]
async fn led_task(mut ws2812: PioWs2812<'static, PIO0, 0, POINTS, Grb>) -> ! {
    let chain = Chain::new(SIZE);
    let mut colors = [[0u8; 3]; MAX_POINTS];
    let mut data = [RGB8::default(); POINTS];
    let mut ticker = Ticker::every(Duration::from_millis(SCAN_PERIOD_MS));
    loop {
        ticker.next().await;
        let now = now_ms();
        let (frame, lost) = BOARD.lock(|b| match b.borrow().as_ref() {
            Some(board) => (board.link.leds().copied(), board.link.host_silent(now)),
            None => (None, true),
        });
        chain.render(frame.as_ref(), lost, now, &mut colors);
        for (led, [r, g, b]) in data.iter_mut().zip(colors) {
            *led = RGB8 { r, g, b };
        }
        ws2812.write(&data).await;
    }
}

/// The sensor multiplexers and the ADC.
struct Mux {
    level1: [Output<'static>; 4],
    level2: [Output<'static>; 4],
    adc: Adc<'static, adc::Blocking>,
    inputs: [Channel<'static>; 2],
}

impl Mux {
    /// One reading of every point into `readings` (counts, point order), yielding to the other
    /// tasks after each level-1 address.
    async fn read_all(&mut self, readings: &mut [u16; MAX_POINTS]) {
        let mut level1 = u8::MAX;
        for r in board_core::mux::scan_order(POINTS) {
            if r.level1 != level1 {
                if level1 != u8::MAX {
                    embassy_futures::yield_now().await;
                }
                level1 = r.level1;
                set_address(&mut self.level1, r.level1);
            }
            set_address(&mut self.level2, r.level2);
            block_for(Duration::from_micros(SETTLE_US));
            let mut samples = [0u16; SAMPLES];
            let input = &mut self.inputs[usize::from(r.adc)];
            for s in samples.iter_mut() {
                *s = self.adc.blocking_read(input).unwrap_or(0);
            }
            readings[usize::from(r.point)] = trimmed_mean(&samples).unwrap_or(0);
        }
    }
}

fn set_address(pins: &mut [Output<'static>; 4], address: u8) {
    for (bit, pin) in pins.iter_mut().enumerate() {
        pin.set_level(if address >> bit & 1 == 1 {
            Level::High
        } else {
            Level::Low
        });
    }
}

/// The scan loop: read, classify, record, send; feeds the watchdog.
async fn scan_loop(mut mux: Mux) -> ! {
    let mut readings = [0u16; MAX_POINTS];
    let mut ticker = Ticker::every(Duration::from_millis(SCAN_PERIOD_MS));
    loop {
        ticker.next().await;
        mux.read_all(&mut readings).await;
        let now = now_ms();
        BOARD.lock(|b| {
            HISTORY.lock(|h| {
                let mut board = b.borrow_mut();
                let Some(board) = board.as_mut() else {
                    return;
                };
                let mut history = h.borrow_mut();
                board.raw = readings;
                let Ok(cells) = board.classifier.update(
                    &readings[..POINTS],
                    &board.calibration,
                    &board.health[..POINTS],
                ) else {
                    return;
                };
                // The presses counted since the last scan, then the scan (§14.2).
                let presses = board.counters.presses_since(&board.recorded);
                for &(button, side) in &ButtonCounters::ORDER {
                    for _ in 0..presses.get(button, side) {
                        history.record_press(now, button, side);
                    }
                }
                board.recorded = board.counters;
                history.record_scan(now, &cells);
                if let Some(scan) = board.link.scan(now, cells, board.counters) {
                    // Room for the frame, or the scan is dropped (§8).
                    if TX.free_capacity() >= MAX_FRAME_LEN {
                        let frame = board.link.frame(Message::Scan(scan));
                        put(&frame);
                    }
                }
            })
        });
        feed_watchdog();
    }
}

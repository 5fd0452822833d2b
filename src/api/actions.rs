//! The referee's and organiser's actions (`POST /api/v1/…`, bearer token): each one a session
//! [`Command`], answered with the state after it.
//!
//! | route | body | command |
//! |---|---|---|
//! | `POST games` | [`NewGame`] | a new game |
//! | `POST violations/{id}/resolve` | `{"ruling": "put_back" \| "accept"}` | settle a violation |
//! | `POST ambiguous/choose` | `{"index": n}` or `{"index": n, "first": m}` | pick an explanation of an ambiguous board, or the order of provisional moves from move m |
//! | `POST moves/{number}/correct` | `{"point": "D4" \| null}` | correct a move (null: a pass) |
//! | `POST warnings` | `{"color": "black", "reason": "…"}` | a warning (R24) |
//! | `POST clock/pause`, `POST clock/resume` | none | pause or resume play and the clock |
//! | `POST clock/adjust` | `{"color": "white", "delta_ms": 60000}` | give or take main time |
//! | `POST result` | `{"decision": "black" \| "white" \| "draw" \| "both_lose" \| "replay" \| "no_result"}` | adjudicate |
//! | `POST count` | `{"dead": ["D4", …] \| null}` | confirm the count (null: the proposal) |
//! | `POST count/dispute` | `{"claimant": "white"}` | life and death disputed: play resumes, the claimant first (R21.4) |
//! | `POST broadcast` | `{"delay_moves": n, "delay_s": n}` | the public broadcast delay |
//!
//! Errors: 401 without the right token, 400 for a body that is not JSON, 422 for JSON with
//! wrong or missing values (unknown fields included), 404 for a violation or move that does
//! not exist, 409 when the rules refuse the action (with the reason), 413 for a body over
//! [`BODY_LIMIT`]. Nothing changes on any error.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use utoipa::openapi::schema::{Array, ArrayBuilder, Object, ObjectBuilder, SchemaType, Type};

use super::{error, ErrorBody, OkBody};
use crate::daemon::Shared;
use crate::referee::{Adjudication, CommandError, GameSetup, Ruling};
use crate::rules::{Color, CoordError, Point};
use crate::session::{Command, SessionError};

/// Largest request body accepted, bytes (a new game's names and a list of dead stones fit
/// many times over).
pub const BODY_LIMIT: usize = 64 * 1024;

/// Time a request's body has to arrive once its headers are in.
pub const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A JSON object body whose rejections are JSON errors: 400 (not JSON), 422 (not an object, or
/// wrong values), 413 (too big), 415 (not `application/json`), 408 (not sent within
/// [`BODY_TIMEOUT`]).
pub struct Body<T>(pub T);

/// Whether `headers` say the body is JSON: `application/json` or `application/…+json`, any
/// parameters.
fn is_json(headers: &axum::http::HeaderMap) -> bool {
    let Some(mime) = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || essence
            .strip_prefix("application/")
            .is_some_and(|sub| sub.ends_with("+json"))
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if !is_json(req.headers()) {
            return Err(error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "send the body as JSON, with `Content-Type: application/json`",
            ));
        }
        let read = tokio::time::timeout(BODY_TIMEOUT, Bytes::from_request(req, state)).await;
        let Ok(read) = read else {
            return Err(error(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the body did not arrive within {} s",
                    BODY_TIMEOUT.as_secs()
                ),
            ));
        };
        let bytes = read.map_err(|rejection| error(rejection.status(), rejection.body_text()))?;
        let value = Json::<T>::from_bytes(&bytes).map_err(|rejection| {
            // serde_json calls some values of the wrong type syntax errors (a number where a
            // name is expected): well-formed JSON that does not fit is a bad value, 422
            // (strings checked too: a byte that is no UTF-8 is no JSON, 400)
            let well_formed = serde_json::from_slice::<serde_json::Value>(&bytes).is_ok();
            let text = rejection.body_text();
            match &rejection {
                JsonRejection::JsonDataError(_) => error(StatusCode::UNPROCESSABLE_ENTITY, text),
                JsonRejection::JsonSyntaxError(_) if well_formed => {
                    let what = text
                        .strip_prefix("Failed to parse the request body as JSON: ")
                        .unwrap_or(&text);
                    error(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        format!("a value of the wrong type in the body ({what})"),
                    )
                }
                JsonRejection::JsonSyntaxError(_) => error(StatusCode::BAD_REQUEST, text),
                other => error(other.status(), text),
            }
        })?;
        // serde also reads a struct from an array of its fields: the API takes objects only.
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "the body must be a JSON object ({\"field\": value, …})",
            ));
        }
        Ok(Body(value.0))
    }
}

/// Sends `command` and answers 200 with `{"ok": true}`, or the error.
async fn apply(shared: &Shared, command: Command) -> Response {
    match shared.command(command).await {
        Some(Ok(())) => Json(serde_json::json!({ "ok": true })).into_response(),
        Some(Err(e)) => refused(e),
        None => error(StatusCode::SERVICE_UNAVAILABLE, "the session is stopping"),
    }
}

/// The status of a refused command: 404 for what does not exist, 422 for a bad value, 409
/// when the rules or the game's state refuse it.
fn refused(e: SessionError) -> Response {
    let status = match &e {
        SessionError::Command(CommandError::NoViolation(_) | CommandError::NoSuchMove(_)) => {
            StatusCode::NOT_FOUND
        }
        SessionError::Command(CommandError::BadPoint(_)) | SessionError::Setup(_) => {
            StatusCode::UNPROCESSABLE_ENTITY
        }
        SessionError::Command(_) => StatusCode::CONFLICT,
    };
    error(status, e.to_string())
}

/// A side: `"black"` or `"white"`.
#[derive(Clone, Copy, Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Black.
    Black,
    /// White.
    White,
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::Black => Color::Black,
            Side::White => Color::White,
        }
    }
}

/// `POST games`: a new game. Every field is optional.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// 9, 13 or 19 (default 19).
    #[schema(schema_with = size_schema)]
    pub size: Option<u8>,
    /// Komi in points (default 7.5), at most 1000 either way.
    #[schema(minimum = -1000, maximum = 1000)]
    pub komi: Option<f64>,
    /// Free handicap stones, 0 or 2–9 (default 0).
    #[schema(schema_with = handicap_schema)]
    pub handicap: Option<u8>,
    /// Black's name (`PB`), up to 200 characters; control characters are dropped and the
    /// name trimmed.
    #[schema(max_length = 200)]
    pub black: Option<String>,
    /// White's name (`PW`), as `black`.
    #[schema(max_length = 200)]
    pub white: Option<String>,
    /// Black's rank (`BR`), as `black`.
    #[schema(max_length = 200)]
    pub black_rank: Option<String>,
    /// White's rank (`WR`), as `black`.
    #[schema(max_length = 200)]
    pub white_rank: Option<String>,
    /// Event (`EV`), as `black`.
    #[schema(max_length = 200)]
    pub event: Option<String>,
    /// Round (`RO`), as `black`.
    #[schema(max_length = 200)]
    pub round: Option<String>,
    /// Time system: words `main=60m`, `cn=5x60s` (Chinese counting), `jp=3x30s` (byo-yomi),
    /// `ca=10/300s` (Canadian), `fischer=10s` or `fischer=10s/20m` (with a cap), durations in
    /// `h`, `m`, `s`; empty or `none`: no clock. Limits the pattern does not say are answered
    /// 422 with the reason: at most 100 h and 10,000 periods, no word twice, periods longer
    /// than 0 s, a main time for Fischer.
    #[schema(
        pattern = r"^(|none|\s*((main|cn|jp|ca|fischer)=[0-9.hmsx/]+\s+)*(main|cn|jp|ca|fischer)=[0-9.hmsx/]+\s*)$"
    )]
    pub time: Option<String>,
    /// Referee profile: `cn2002` or `cn1988` (default: the service's).
    #[schema(schema_with = profile_schema)]
    pub profile: Option<String>,
    /// Public broadcast delay for this game, moves; at most 1000.
    #[schema(minimum = 0, maximum = 1000)]
    pub delay_moves: Option<u32>,
    /// Public broadcast delay for this game, seconds; at most 86,400 (24 h).
    #[schema(minimum = 0, maximum = 86400)]
    pub delay_s: Option<u32>,
    /// Must be `true` to replace a game in progress (moves played, no result): that game ends
    /// without a result and its record is kept in `GET games`. Otherwise 409.
    pub replace: Option<bool>,
}

/// `NewGame::size`'s schema: 9, 13, 19 or null.
fn size_schema() -> Object {
    nullable_enum(
        Type::Integer,
        [9, 13, 19].map(serde_json::Value::from),
        "9, 13 or 19 (default 19)",
    )
}

/// `NewGame::handicap`'s schema: 0, 2–9 or null.
fn handicap_schema() -> Object {
    let stones = std::iter::once(0).chain(2..=9).map(serde_json::Value::from);
    nullable_enum(
        Type::Integer,
        stones,
        "free handicap stones, 0 or 2–9 (default 0)",
    )
}

/// `NewGame::profile`'s schema.
fn profile_schema() -> Object {
    nullable_enum(
        Type::String,
        ["cn2002", "cn1988"].map(serde_json::Value::from),
        "referee profile: `cn2002` or `cn1988` (default: the service's)",
    )
}

/// A schema of `values` (of `of`) or null.
fn nullable_enum(
    of: Type,
    values: impl IntoIterator<Item = serde_json::Value>,
    description: &str,
) -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([of, Type::Null]))
        .enum_values(Some(values.into_iter().chain([serde_json::Value::Null])))
        .description(Some(description))
        .build()
}

/// A GTP point (`D4`, any case, row 1–19; spaces around it are trimmed), the pattern of every
/// point in a request.
const GTP_POINT: &str = r"^\s*[A-HJ-Ta-hj-t](0?[1-9]|1[0-9])\s*$";

/// A GTP point's schema.
fn gtp_point() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(GTP_POINT))
}

/// `Correct::point`'s schema: a GTP point or null.
fn correct_point_schema() -> Object {
    gtp_point()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .description(Some("the right point (GTP, e.g. `D4`), or null for a pass"))
        .build()
}

/// `Count::dead`'s schema: up to 361 GTP points, or null.
fn dead_schema() -> Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(gtp_point().build())
        .max_items(Some(361))
        .description(Some(
            "the dead stones as agreed (GTP, e.g. `D4`), or null for the proposal",
        ))
        .build()
}

/// The point `text` on this game's `size` × `size` board: 422 when it is not a GTP point of a
/// 19×19 board, 409 when it is but lies off this smaller board.
fn point_on(text: &str, size: u8) -> Result<Point, Box<Response>> {
    Point::from_gtp(text, size).map_err(|e| {
        let status = match e {
            // On the largest board, but not on this one.
            CoordError::OutsideBoard { .. } if Point::from_gtp(text, 19).is_ok() => {
                StatusCode::CONFLICT
            }
            _ => StatusCode::UNPROCESSABLE_ENTITY,
        };
        Box::new(error(status, e.to_string()))
    })
}

impl NewGame {
    fn setup(self) -> Result<GameSetup, String> {
        let size = self.size.unwrap_or(19);
        if ![9, 13, 19].contains(&size) {
            return Err(format!("size {size}: use 9, 13 or 19"));
        }
        let handicap = self.handicap.unwrap_or(0);
        if handicap == 1 || handicap > 9 {
            return Err(format!("handicap {handicap}: use 0 or 2 to 9 stones"));
        }
        let komi = self.komi.unwrap_or(7.5);
        if !komi.is_finite() || komi.abs() > 1000.0 {
            return Err(format!("komi {komi}: use a number of points"));
        }
        let mut setup = GameSetup::free_handicap(size, handicap);
        setup.info.komi = Some(komi);
        if let Some(p) = self.profile.as_deref() {
            setup.profile = Some(
                p.parse()
                    .map_err(|_| format!("profile {p:?}: use \"cn2002\" or \"cn1988\""))?,
            );
        }
        if let Some(t) = self
            .time
            .as_deref()
            .filter(|t| !t.is_empty() && *t != "none")
        {
            let time: crate::clock::TimeSystem =
                t.parse().map_err(|e| format!("time {t:?}: {e}"))?;
            setup.info.time_limit = Some(time.sgf_tm());
            setup.info.overtime = time.sgf_ot();
            setup.time = Some(time);
        }
        for (field, value) in [
            (&mut setup.info.black, self.black),
            (&mut setup.info.white, self.white),
            (&mut setup.info.black_rank, self.black_rank),
            (&mut setup.info.white_rank, self.white_rank),
            (&mut setup.info.event, self.event),
            (&mut setup.info.round, self.round),
        ] {
            if value.as_ref().is_some_and(|v| v.chars().count() > 200) {
                return Err("names and titles are limited to 200 characters".into());
            }
            // Control characters have no place in a name (the record, the terminal).
            *field = value
                .map(|v| v.chars().filter(|c| !c.is_control()).collect::<String>())
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty());
        }
        Ok(setup)
    }
}

#[utoipa::path(post, path = "/api/v1/games", request_body = NewGame, responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "a game is in progress (send `replace`), or the board is of another size", body = ErrorBody), (status = 422, description = "a wrong value (the reason): the time control's limits (at most 100 h, 10,000 periods, no word twice, periods longer than 0 s) are checked here", body = ErrorBody)))]
pub(super) async fn new_game(
    State(shared): State<Arc<Shared>>,
    Body(body): Body<NewGame>,
) -> Response {
    let delay = crate::daemon::delay::DelaySettings {
        delay_moves: body.delay_moves.unwrap_or(0),
        delay_s: body.delay_s.unwrap_or(0),
    };
    if let Err(why) = check_delay(&delay) {
        return error(StatusCode::UNPROCESSABLE_ENTITY, why);
    }
    let replace = body.replace == Some(true);
    match body.setup() {
        Ok(setup) => {
            let snapshot = shared.snapshot();
            let state = &snapshot.state;
            let board = state.link.board_size;
            if let Some(b) = board.filter(|&b| b != setup.size()) {
                return error(
                    StatusCode::CONFLICT,
                    format!(
                        "the board is {b}×{b}: a {s}×{s} game cannot be played on it",
                        s = setup.size()
                    ),
                );
            }
            let in_progress = state.move_number > 0 && state.phase != crate::event::Phase::Finished;
            if in_progress && !replace {
                return error(
                    StatusCode::CONFLICT,
                    format!(
                        "a game is in progress (move {}, no result): send \"replace\": true to end it without a result and start the new one (its record is kept in GET games), or enter its result first",
                        state.move_number
                    ),
                );
            }
            let resp = apply(&shared, Command::NewGame(Box::new(setup))).await;
            if resp.status().is_success() {
                shared.delay.set(delay);
            }
            resp
        }
        Err(why) => error(StatusCode::UNPROCESSABLE_ENTITY, why),
    }
}

/// `POST violations/{id}/resolve`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Resolve {
    /// `put_back` (the board as the record has it) or `accept` (the act stands as played).
    pub ruling: RulingName,
}

/// A ruling's name.
#[derive(Clone, Copy, Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RulingName {
    /// Put the board back.
    PutBack,
    /// Accept as played.
    Accept,
    /// Uphold a notice: the rules' sanction applies (issue 35).
    Uphold,
}

#[utoipa::path(post, path = "/api/v1/violations/{id}/resolve", params(("id" = u32, Path, description = "violation id")), request_body = Resolve, responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "the rules or the game's state refuse it (the reason)", body = ErrorBody), (status = 404, description = "no open violation with this id", body = ErrorBody)))]
pub(super) async fn resolve(
    State(shared): State<Arc<Shared>>,
    id: Result<Path<u32>, PathRejection>,
    Body(body): Body<Resolve>,
) -> Response {
    let Ok(Path(id)) = id else {
        return error(
            StatusCode::NOT_FOUND,
            "no such violation: ids are whole numbers from 1",
        );
    };
    let ruling = match body.ruling {
        RulingName::PutBack => Ruling::PutBack,
        RulingName::Accept => Ruling::AcceptAsPlayed,
        RulingName::Uphold => Ruling::Uphold,
    };
    apply(&shared, Command::Resolve { id, ruling }).await
}

/// `POST ambiguous/choose`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Choose {
    /// Index of the explanation in `GET state`'s `ambiguous` — or, with `first`, of the
    /// order in `GET state`'s `provisional` entry whose moves start at `first` (409 when there
    /// is none with it).
    #[schema(minimum = 0, maximum = 1000)]
    pub index: usize,
    /// The first move number of provisional moves (`GET state`'s `provisional[].numbers[0]`):
    /// pick their order instead of an explanation of a held board.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 100000)]
    pub first: Option<u32>,
}

#[utoipa::path(post, path = "/api/v1/ambiguous/choose", request_body = Choose, responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "the rules or the game's state refuse it (the reason)", body = ErrorBody)))]
pub(super) async fn choose(
    State(shared): State<Arc<Shared>>,
    Body(body): Body<Choose>,
) -> Response {
    let command = match body.first {
        Some(first) => Command::ChooseOrder {
            first,
            index: body.index,
        },
        None => Command::Choose(body.index),
    };
    apply(&shared, command).await
}

/// `POST moves/{number}/correct`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Correct {
    /// The right point (GTP, e.g. `D4`), or null for a pass.
    #[schema(schema_with = correct_point_schema)]
    pub point: Option<String>,
}

#[utoipa::path(post, path = "/api/v1/moves/{number}/correct", params(("number" = u32, Path, description = "move number, from 1")), request_body = Correct, responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "the rules refuse it (the reason), or the point is not on this game's board", body = ErrorBody), (status = 404, description = "no move with this number", body = ErrorBody)))]
pub(super) async fn correct(
    State(shared): State<Arc<Shared>>,
    number: Result<Path<u32>, PathRejection>,
    Body(body): Body<Correct>,
) -> Response {
    let Ok(Path(number)) = number else {
        return error(
            StatusCode::NOT_FOUND,
            "no such move: moves are numbered from 1",
        );
    };
    let size = shared.snapshot().state.size;
    let point = match body.point.as_deref().map(|p| point_on(p, size)) {
        None => None,
        Some(Ok(p)) => Some(p),
        Some(Err(resp)) => return *resp,
    };
    apply(&shared, Command::CorrectMove { number, point }).await
}

/// `POST warnings`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Warn {
    /// The warned side.
    pub color: Side,
    /// Why, for the record: 1–500 characters, not only spaces.
    #[schema(min_length = 1, max_length = 500, pattern = r"\S")]
    pub reason: String,
}

#[utoipa::path(post, path = "/api/v1/warnings", request_body = Warn, responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "the rules or the game's state refuse it (the reason)", body = ErrorBody)))]
pub(super) async fn warn(State(shared): State<Arc<Shared>>, Body(body): Body<Warn>) -> Response {
    if body.reason.trim().is_empty() || body.reason.chars().count() > 500 {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "reason: say why, in up to 500 characters",
        );
    }
    apply(
        &shared,
        Command::Warn {
            color: body.color.into(),
            reason: body.reason,
        },
    )
    .await
}

#[utoipa::path(post, path = "/api/v1/clock/pause", responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "the rules or the game's state refuse it (the reason)", body = ErrorBody)))]
pub(super) async fn pause(State(shared): State<Arc<Shared>>) -> Response {
    apply(&shared, Command::Pause).await
}

#[utoipa::path(post, path = "/api/v1/clock/resume", responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "the rules or the game's state refuse it (the reason)", body = ErrorBody)))]
pub(super) async fn resume(State(shared): State<Arc<Shared>>) -> Response {
    apply(&shared, Command::Resume).await
}

/// `POST clock/adjust`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Adjust {
    /// The side whose clock changes.
    pub color: Side,
    /// Main time given (positive) or taken (negative), ms; at most 24 h either way.
    #[schema(minimum = -86_400_000, maximum = 86_400_000)]
    pub delta_ms: i64,
}

#[utoipa::path(post, path = "/api/v1/clock/adjust", request_body = Adjust, responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "the rules or the game's state refuse it (the reason)", body = ErrorBody)))]
pub(super) async fn adjust(
    State(shared): State<Arc<Shared>>,
    Body(body): Body<Adjust>,
) -> Response {
    if body.delta_ms.unsigned_abs() > 24 * 3600 * 1000 {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "delta_ms: at most 24 hours either way",
        );
    }
    apply(
        &shared,
        Command::AdjustTime {
            color: body.color.into(),
            delta_ms: body.delta_ms,
        },
    )
    .await
}

/// `POST result`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Decide {
    /// The referee's decision.
    pub decision: Decision,
    /// Must be `true` to change the result of a game that already has one (a correction);
    /// otherwise a finished game's result is 409.
    pub correct: Option<bool>,
}

/// A decision's name.
#[derive(Clone, Copy, Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Black wins.
    Black,
    /// White wins.
    White,
    /// A draw.
    Draw,
    /// Both lose.
    BothLose,
    /// To be replayed.
    Replay,
    /// No result.
    NoResult,
}

#[utoipa::path(post, path = "/api/v1/result", request_body = Decide, responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "the rules or the game's state refuse it (the reason)", body = ErrorBody)))]
pub(super) async fn result(
    State(shared): State<Arc<Shared>>,
    Body(body): Body<Decide>,
) -> Response {
    let decision = match body.decision {
        Decision::Black => Adjudication::Win(Color::Black),
        Decision::White => Adjudication::Win(Color::White),
        Decision::Draw => Adjudication::Draw,
        Decision::BothLose => Adjudication::BothLose,
        Decision::Replay => Adjudication::Replay,
        Decision::NoResult => Adjudication::NoResult,
    };
    let decided = shared.snapshot().state.game.result.clone();
    if let (Some(re), false) = (decided, body.correct == Some(true)) {
        return error(
            StatusCode::CONFLICT,
            format!("the game already has its result ({re}): send \"correct\": true to correct it"),
        );
    }
    apply(&shared, Command::Adjudicate(decision)).await
}

/// `POST count`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Count {
    /// The dead stones as agreed (GTP, e.g. `D4`), or null for the proposal.
    #[schema(schema_with = dead_schema)]
    pub dead: Option<Vec<String>>,
}

#[utoipa::path(post, path = "/api/v1/count", request_body = Count, responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "not counting now, or a point not on this game's board or not a stone", body = ErrorBody)))]
pub(super) async fn count(State(shared): State<Arc<Shared>>, Body(body): Body<Count>) -> Response {
    let size = shared.snapshot().state.size;
    let dead = match body.dead {
        None => None,
        Some(points) => {
            let mut out = Vec::with_capacity(points.len());
            for p in &points {
                match point_on(p, size) {
                    Ok(p) => out.push(p),
                    Err(resp) => return *resp,
                }
            }
            Some(out)
        }
    };
    apply(&shared, Command::ConfirmCount(dead)).await
}

/// `POST count/dispute`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Dispute {
    /// The side claiming stones dead that the other holds alive: it moves first (R21.4).
    pub claimant: Side,
}

#[utoipa::path(post, path = "/api/v1/count/dispute", request_body = Dispute, responses((status = 200, description = "done (GET state shows the change)", body = OkBody), (status = 409, description = "the rules or the game's state refuse it (the reason)", body = ErrorBody)))]
pub(super) async fn dispute(
    State(shared): State<Arc<Shared>>,
    Body(body): Body<Dispute>,
) -> Response {
    apply(&shared, Command::DisputeCount(body.claimant.into())).await
}

fn check_delay(d: &crate::daemon::delay::DelaySettings) -> Result<(), String> {
    if d.delay_moves > 1000 || d.delay_s > 24 * 3600 {
        return Err("delay: at most 1000 moves and 86400 seconds".into());
    }
    Ok(())
}

/// `POST broadcast`: sets the public broadcast delay.
#[utoipa::path(post, path = "/api/v1/broadcast", request_body = crate::daemon::delay::DelaySettings, responses((status = 200, description = "the delay now in force", body = crate::daemon::delay::DelaySettings)))]
pub(super) async fn set_broadcast(
    State(shared): State<Arc<Shared>>,
    Body(body): Body<crate::daemon::delay::DelaySettings>,
) -> Response {
    if let Err(why) = check_delay(&body) {
        return error(StatusCode::UNPROCESSABLE_ENTITY, why);
    }
    shared.delay.set(body);
    Json(body).into_response()
}

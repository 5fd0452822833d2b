//! Pairings imported from a CSV file, as pairing programs (OpenGotha and the like) export them:
//! one row a game with the columns `round`, `table`, `black`, `white` (any order, any case,
//! other columns ignored; a header row names them). The table is the board id.

use serde::Serialize;

/// One game of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Pairing {
    /// Round (as written: `1`, `3`, `final`).
    pub round: String,
    /// Table: the board id that plays it.
    pub table: String,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
}

/// Errors reading pairings: the line and what is wrong.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PairingsError {
    /// A column is missing from the header.
    #[error("the header has no `{0}` column (it needs round, table, black and white)")]
    Column(&'static str),
    /// A row cannot be read.
    #[error("line {line}: {why}")]
    Row {
        /// 1-based line.
        line: u64,
        /// Why.
        why: String,
    },
    /// Too many rows.
    #[error("more than {0} pairings")]
    TooMany(usize),
    /// The text is longer than [`MAX_PAIRINGS_BYTES`].
    #[error("{0} bytes of pairings: at most {MAX_PAIRINGS_BYTES} (the broker keeps them for a restarted hall)")]
    TooLong(usize),
}

/// The longest pairings text taken, bytes: it is kept on the broker as one retained message,
/// which the hall reads back after a restart (within [`crate::mqtt::MAX_PACKET_BYTES`]).
pub const MAX_PAIRINGS_BYTES: usize = 4 << 20;

/// Pairings kept at most (a few hundred tables × a dozen rounds).
pub const MAX_PAIRINGS: usize = 20_000;

/// Reads pairings from CSV text (commas or semicolons, quoted fields, a BOM).
///
/// # Errors
/// [`PairingsError`]: a missing column, a row without a value in one, a table id that is not
/// a board id, the same table twice in a round, too many rows.
pub fn parse(text: &str) -> Result<Vec<Pairing>, PairingsError> {
    if text.len() > MAX_PAIRINGS_BYTES {
        return Err(PairingsError::TooLong(text.len()));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first_line = text.lines().next().unwrap_or("");
    let delimiter = if first_line.matches(';').count() > first_line.matches(',').count() {
        b';'
    } else {
        b','
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| PairingsError::Row {
            line: 1,
            why: e.to_string(),
        })?
        .clone();
    let column = |name: &'static str| {
        headers
            .iter()
            .position(|h| h.eq_ignore_ascii_case(name))
            .ok_or(PairingsError::Column(name))
    };
    let (round, table, black, white) = (
        column("round")?,
        column("table")?,
        column("black")?,
        column("white")?,
    );
    let mut out: Vec<Pairing> = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| PairingsError::Row {
            line: e.position().map_or(0, |p| p.line()),
            why: e.to_string(),
        })?;
        let line = record.position().map_or(0, |p| p.line());
        if record.iter().all(str::is_empty) {
            continue;
        }
        let field = |i: usize, name: &str| {
            record
                .get(i)
                .filter(|v| !v.is_empty())
                .map(|v| v.chars().filter(|c| !c.is_control()).collect::<String>())
                .ok_or_else(|| PairingsError::Row {
                    line,
                    why: format!("no {name}"),
                })
        };
        let p = Pairing {
            round: field(round, "round")?,
            table: field(table, "table")?,
            black: field(black, "black")?,
            white: field(white, "white")?,
        };
        if crate::mqtt::check_id("board", &p.table).is_err() {
            return Err(PairingsError::Row {
                line,
                why: format!(
                    "table {:?} is not a board id (1 to 64 letters, digits, '-' or '_')",
                    p.table
                ),
            });
        }
        if [&p.round, &p.black, &p.white]
            .iter()
            .any(|v| v.chars().count() > 200)
        {
            return Err(PairingsError::Row {
                line,
                why: "a value longer than 200 characters".into(),
            });
        }
        if out.iter().any(|q| q.round == p.round && q.table == p.table) {
            return Err(PairingsError::Row {
                line,
                why: format!("table {} twice in round {}", p.table, p.round),
            });
        }
        if out.len() == MAX_PAIRINGS {
            return Err(PairingsError::TooMany(MAX_PAIRINGS));
        }
        out.push(p);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairings_are_read_in_any_column_order_with_quotes_and_semicolons() {
        let p = parse(
            "\u{feff}Table,Round,White,Black,Rating\n1,1,\"Shi, Xiangxia\",Fan Xiping,2700\n2,1,B,A,\n\n1,2,A,\"Fan Xiping\",\n",
        )
        .unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].white, "Shi, Xiangxia");
        assert_eq!(p[0].black, "Fan Xiping");
        assert_eq!((p[2].round.as_str(), p[2].table.as_str()), ("2", "1"));
        let q = parse("round;table;black;white\n1;7;X;Y\n").unwrap();
        assert_eq!(q[0].table, "7");
    }

    #[test]
    fn bad_pairings_name_the_line() {
        assert_eq!(
            parse("round,board,black,white\n").unwrap_err(),
            PairingsError::Column("table")
        );
        let e = parse("round,table,black,white\n1,1,A,B\n1,1,C,D\n").unwrap_err();
        assert!(
            e.to_string().contains("line 3") && e.to_string().contains("twice"),
            "{e}"
        );
        let e = parse("round,table,black,white\n1,a/b,A,B\n").unwrap_err();
        assert!(e.to_string().contains("not a board id"), "{e}");
        let e = parse("round,table,black,white\n1,2,,B\n").unwrap_err();
        assert!(e.to_string().contains("no black"), "{e}");
        assert_eq!(parse("").unwrap_err(), PairingsError::Column("round"));
    }
}

//! Where a key is in a config file: the line an error names (issue 16: every error with the
//! file's line and the key's name).

/// The 1-based line of `key` (`serial`, `game.size`, `leds.brightness`) in `text`, a TOML file
/// that parsed: the line `name = …` under the table header `[table]` (or at the top level for
/// a key without a dot), or a dotted `table.name = …` at the top level. `None` when the key
/// is not written in the file (a default was checked), or for a whole table (`api`: the first
/// of its keys is the line then).
pub(super) fn line_of(text: &str, key: &str) -> Option<usize> {
    let mut current = String::new();
    let mut first_in_table = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or("").trim();
            current = header.trim_matches('[').trim().to_string();
            continue;
        }
        let Some((lhs, _)) = line.split_once('=') else {
            continue;
        };
        let lhs = lhs.trim().trim_matches('"');
        let full = if current.is_empty() {
            lhs.to_string()
        } else {
            format!("{current}.{lhs}")
        };
        if full == key {
            return Some(i + 1);
        }
        // the key names a whole table: its first key
        if (current == key || full.starts_with(&format!("{key}."))) && first_in_table.is_none() {
            first_in_table = Some(i + 1);
        }
    }
    first_in_table
}

#[cfg(test)]
mod tests {
    use super::line_of;

    const FILE: &str = "# a comment\nserial = \"/dev/x\"\nhttp = \"0.0.0.0:8019\"\n\n[game]\nsize = 21\n komi = 7.5\n\n[leds]\n# dim\nbrightness = 300\n\n[api]\nconnections = 1\n";

    #[test]
    fn keys_are_found_under_their_table() {
        assert_eq!(line_of(FILE, "serial"), Some(2));
        assert_eq!(line_of(FILE, "http"), Some(3));
        assert_eq!(line_of(FILE, "game.size"), Some(6));
        assert_eq!(line_of(FILE, "game.komi"), Some(7));
        assert_eq!(line_of(FILE, "leds.brightness"), Some(11));
        assert_eq!(line_of(FILE, "api"), Some(14), "a table: its first key");
    }

    #[test]
    fn a_key_not_in_the_file_has_no_line() {
        assert_eq!(line_of(FILE, "settle_ms"), None);
        assert_eq!(line_of(FILE, "leds.spi_hz"), None);
        // `size` at the top level is not `game.size`
        assert_eq!(line_of("size = 3\n[game]\n", "game.size"), None);
    }

    #[test]
    fn dotted_keys_at_the_top_level() {
        assert_eq!(line_of("game.size = 21\n", "game.size"), Some(1));
    }
}

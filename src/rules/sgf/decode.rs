//! Turning the bytes of an SGF file into text, before any parsing.
//!
//! Decoding must come first: in Shift_JIS the second byte of a character may be 0x5C, the SGF
//! escape `\` (ソ is `83 5C`), so un-escaping raw bytes corrupts the text. The order of tests:
//!
//! 1. a UTF-8 byte-order mark: UTF-8 (the mark is dropped);
//! 2. a UTF-16 byte-order mark, or NUL bytes in every other position of the start of the file:
//!    UTF-16 LE or BE;
//! 3. valid UTF-8: taken as it is (this covers ASCII and every `CA[UTF-8]` file);
//! 4. the charset named by the first `CA[...]` in the (ASCII) bytes, decoded with
//!    `encoding_rs`; non-standard names are mapped (`MS_KANJI` → Shift_JIS, `UTF16LE` →
//!    UTF-16LE, `EUC-CN`/`GB2312` → GBK, `MacRoman` → macintosh, …);
//! 5. otherwise (no `CA`, an unknown one, or one that does not fit the bytes) the charset
//!    guessed by `chardetng`.
//!
//! Malformed sequences become U+FFFD; decoding never fails.

use encoding_rs::{Encoding, GBK, SHIFT_JIS, UTF_16BE, UTF_16LE, UTF_8};

/// The text of an SGF file and the charset it was read in.
pub(crate) fn decode(bytes: &[u8]) -> (String, &'static Encoding) {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return (
            UTF_8.decode_without_bom_handling(rest).0.into_owned(),
            UTF_8,
        );
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return (
            UTF_16LE.decode_without_bom_handling(rest).0.into_owned(),
            UTF_16LE,
        );
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return (
            UTF_16BE.decode_without_bom_handling(rest).0.into_owned(),
            UTF_16BE,
        );
    }
    if let Some(enc) = utf16_by_nul_bytes(bytes) {
        return (enc.decode_without_bom_handling(bytes).0.into_owned(), enc);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (text.to_owned(), UTF_8);
    }
    let declared = declared_charset(bytes).and_then(encoding_for_name);
    let enc = match declared {
        // A declared UTF-8 or UTF-16 that the bytes do not match (tests 2 and 3 failed) is
        // wrong: guess instead.
        Some(enc) if enc != UTF_8 && enc != UTF_16LE && enc != UTF_16BE => enc,
        _ => guess(bytes),
    };
    (enc.decode_without_bom_handling(bytes).0.into_owned(), enc)
}

/// UTF-16 without a byte-order mark: in SGF text, which is mostly ASCII, every other byte is
/// NUL. Looks at the first 256 bytes.
fn utf16_by_nul_bytes(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(256)];
    if head.len() < 4 {
        return None;
    }
    let (mut even, mut odd) = (0usize, 0usize);
    for (i, &b) in head.iter().enumerate() {
        if b == 0 {
            if i % 2 == 0 {
                even += 1;
            } else {
                odd += 1;
            }
        }
    }
    let half = head.len() / 2;
    if odd * 10 >= half * 7 && even * 10 < half {
        Some(UTF_16LE)
    } else if even * 10 >= half * 7 && odd * 10 < half {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// The value of the first `CA[...]` property found in the bytes (ASCII only, at most 40
/// characters).
fn declared_charset(bytes: &[u8]) -> Option<&str> {
    let mut from = 0;
    while let Some(pos) = find(&bytes[from..], b"CA[") {
        let at = from + pos;
        let preceded_by_letter = at > 0 && bytes[at - 1].is_ascii_alphabetic();
        let value_start = at + 3;
        if !preceded_by_letter {
            let rest = &bytes[value_start..];
            let end = rest.iter().position(|&b| b == b']')?;
            let value = &rest[..end];
            if end <= 40 && value.is_ascii() {
                return std::str::from_utf8(value).ok().map(str::trim);
            }
        }
        from = value_start;
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The encoding for a charset name as found in SGF files: the WHATWG labels that
/// `encoding_rs` knows, plus names seen in SGF files that are not among them.
pub(crate) fn encoding_for_name(name: &str) -> Option<&'static Encoding> {
    let lower = name.trim().to_ascii_lowercase();
    let mapped: Option<&'static Encoding> = match lower.as_str() {
        "utf16le" | "utf-16-le" | "ucs-2le" | "ucs2le" => Some(UTF_16LE),
        "utf16be" | "utf-16-be" | "ucs-2be" | "ucs2be" => Some(UTF_16BE),
        "utf16" | "ucs-2" | "ucs2" => Some(UTF_16LE),
        "euc-cn" | "euccn" | "gb2312" | "gb_2312" | "cp936" | "ms936" => Some(GBK),
        "ms_kanji" | "ms-kanji" | "mskanji" | "shift-jis" | "sjis" | "cp932" | "ms932" => {
            Some(SHIFT_JIS)
        }
        "macroman" | "mac-roman" | "mac_roman" => Encoding::for_label(b"macintosh"),
        "cp949" | "uhc" | "ks_c_5601" => Encoding::for_label(b"euc-kr"),
        "cp950" | "big-5" => Encoding::for_label(b"big5"),
        _ => None,
    };
    mapped.or_else(|| Encoding::for_label(lower.as_bytes()))
}

/// chardetng's guess for bytes that are not UTF-8.
fn guess(bytes: &[u8]) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    detector.feed(bytes, true);
    detector.guess(None, chardetng::Utf8Detection::Allow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_and_plain_utf8() {
        let (t, e) = decode(b"\xEF\xBB\xBF(;C[\xE4\xB8\xAD])");
        assert_eq!((t.as_str(), e), ("(;C[中])", UTF_8));
        let (t, e) = decode("(;PB[黑])".as_bytes());
        assert_eq!((t.as_str(), e), ("(;PB[黑])", UTF_8));
    }

    #[test]
    fn utf16_with_and_without_bom() {
        let le: Vec<u8> = "(;C[ü])"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        let be: Vec<u8> = "(;C[ü])"
            .encode_utf16()
            .flat_map(|u| u.to_be_bytes())
            .collect();
        assert_eq!(decode(&le), ("(;C[ü])".to_string(), UTF_16LE));
        assert_eq!(decode(&be), ("(;C[ü])".to_string(), UTF_16BE));
        let mut bom = vec![0xFF, 0xFE];
        bom.extend_from_slice(&le);
        assert_eq!(decode(&bom).0, "(;C[ü])");
    }

    #[test]
    fn declared_charsets_and_their_odd_names() {
        // ソ in Shift_JIS is 83 5C: the second byte is the SGF escape character.
        let sjis = b"(;CA[MS_KANJI]C[\x83\x5C])";
        assert_eq!(
            decode(sjis),
            ("(;CA[MS_KANJI]C[ソ])".to_string(), SHIFT_JIS)
        );
        let gb = b"(;CA[EUC-CN]C[\xD6\xD0])";
        assert_eq!(decode(gb).0, "(;CA[EUC-CN]C[中])");
        assert_eq!(encoding_for_name("UTF16LE"), Some(UTF_16LE));
        assert_eq!(encoding_for_name("gb2312"), Some(GBK));
        assert_eq!(
            encoding_for_name("ISO-8859-1").map(|e| e.name()),
            Some("windows-1252")
        );
        assert_eq!(
            encoding_for_name("MacRoman").map(|e| e.name()),
            Some("macintosh")
        );
        assert_eq!(encoding_for_name("unknown"), None);
    }

    #[test]
    fn undeclared_legacy_text_is_guessed() {
        // Shift_JIS Japanese without CA.
        let text = "(;PB[申眞ソ]PW[党毅飛]PC[韓国棋院]C[黒中押し勝ち、第1回世界最高棋士決定戦])";
        let (bytes, _, _) = SHIFT_JIS.encode(text);
        let (t, e) = decode(&bytes);
        assert_eq!(e, SHIFT_JIS);
        assert_eq!(t, text);
    }

    #[test]
    fn never_fails() {
        for bytes in [
            &b""[..],
            b"\xFF",
            b"\x00",
            b"CA[",
            b"CA[\xFF]",
            b"\xFE\xFF\x00",
        ] {
            let _ = decode(bytes);
        }
    }
}

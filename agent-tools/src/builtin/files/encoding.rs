//! Which text encoding a file is in, so that the file tools read what
//! users keep on disk and not only UTF-8: UTF-8 with or without a byte
//! order mark, UTF-16 with one (what Windows tools and spreadsheet
//! exports write as "Unicode text"), and Windows-1252, the Latin-1 of
//! older Windows files (a French or German CSV saved by a spreadsheet).
//! A file with a NUL, or with control bytes outside UTF-8, is binary. Any
//! other file that is not UTF-8 is read as Windows-1252, so text in
//! another legacy encoding (Shift-JIS, GBK, Windows-1251) reads garbled
//! rather than not at all; `edit_file` writes a file back in the encoding
//! it was read in, so the bytes it does not replace stay as they were.

/// A text file's encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Encoding {
    /// UTF-8, with a byte order mark when `bom` is set.
    Utf8 {
        /// The file starts with `EF BB BF`.
        bom: bool,
    },
    /// UTF-16, little-endian, with its byte order mark.
    Utf16Le,
    /// UTF-16, big-endian, with its byte order mark.
    Utf16Be,
    /// Windows-1252 (Latin-1 with printable characters in 0x80–0x9F).
    Windows1252,
}

/// The characters Windows-1252 puts at 0x80–0x9F; the five it leaves
/// undefined read as the C1 controls Latin-1 has there.
#[rustfmt::skip]
const WINDOWS_1252_HIGH: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡',
    'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž', '\u{8F}',
    '\u{90}', '‘', '’', '“', '”', '•', '–', '—',
    '˜', '™', 'š', '›', 'œ', '\u{9D}', 'ž', 'Ÿ',
];

/// The text of a file's `bytes` and its encoding; `None` when it is not
/// text in any of them (a NUL, or control bytes outside UTF-8).
pub(super) fn decode(bytes: Vec<u8>) -> Option<(String, Encoding)> {
    let (text, encoding) = match bytes.as_slice() {
        [0xEF, 0xBB, 0xBF, rest @ ..] => (
            String::from_utf8(rest.to_vec()).ok()?,
            Encoding::Utf8 { bom: true },
        ),
        [0xFF, 0xFE, rest @ ..] => (utf16(rest, u16::from_le_bytes)?, Encoding::Utf16Le),
        [0xFE, 0xFF, rest @ ..] => (utf16(rest, u16::from_be_bytes)?, Encoding::Utf16Be),
        _ => match String::from_utf8(bytes) {
            Ok(text) => (text, Encoding::Utf8 { bom: false }),
            Err(err) => {
                let bytes = err.into_bytes();
                if bytes.iter().any(|b| is_binary_control(*b)) {
                    return None;
                }
                (windows_1252(&bytes), Encoding::Windows1252)
            }
        },
    };
    (!text.contains('\0')).then_some((text, encoding))
}

/// `text` written in `encoding`; `None` when a character has no place in
/// it (Windows-1252 holds only Western European letters).
pub(super) fn encode(text: &str, encoding: Encoding) -> Option<Vec<u8>> {
    match encoding {
        Encoding::Utf8 { bom } => {
            let mut bytes = Vec::with_capacity(text.len() + 3);
            if bom {
                bytes.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
            }
            bytes.extend_from_slice(text.as_bytes());
            Some(bytes)
        }
        Encoding::Utf16Le => Some(
            [0xFF, 0xFE]
                .into_iter()
                .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
                .collect(),
        ),
        Encoding::Utf16Be => Some(
            [0xFE, 0xFF]
                .into_iter()
                .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
                .collect(),
        ),
        Encoding::Windows1252 => text.chars().map(windows_1252_byte).collect(),
    }
}

impl Encoding {
    /// How the encoding is named in a message.
    pub(super) fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 { .. } => "UTF-8",
            Encoding::Utf16Le | Encoding::Utf16Be => "UTF-16",
            Encoding::Windows1252 => "Windows-1252",
        }
    }
}

/// A byte that text outside UTF-8 does not hold: a control character but
/// tab, line feed, form feed, carriage return and escape.
fn is_binary_control(byte: u8) -> bool {
    (byte < 0x20 && !matches!(byte, b'\t' | b'\n' | 0x0C | b'\r' | 0x1B)) || byte == 0x7F
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> Option<String> {
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    let units = bytes.chunks_exact(2).map(|pair| unit([pair[0], pair[1]]));
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .ok()
}

fn windows_1252(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0x9F => WINDOWS_1252_HIGH[usize::from(b - 0x80)],
            _ => char::from(b),
        })
        .collect()
}

fn windows_1252_byte(c: char) -> Option<u8> {
    let code = u32::from(c);
    if code < 0x80 || (0xA0..=0xFF).contains(&code) {
        return u8::try_from(code).ok();
    }
    let at = WINDOWS_1252_HIGH.iter().position(|high| *high == c)?;
    u8::try_from(0x80 + at).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_encoding_reads_and_writes_back_the_same_bytes() {
        let text = "ville;prix\nMünchen;12,50 €\n";
        for encoding in [
            Encoding::Utf8 { bom: false },
            Encoding::Utf8 { bom: true },
            Encoding::Utf16Le,
            Encoding::Utf16Be,
            Encoding::Windows1252,
        ] {
            let bytes = encode(text, encoding).unwrap_or_default();
            assert_eq!(
                decode(bytes.clone()),
                Some((text.to_string(), encoding)),
                "{encoding:?}"
            );
        }
        // `ü` is 0xFC and `€` 0x80 in Windows-1252.
        let latin = encode("Mü€", Encoding::Windows1252).unwrap_or_default();
        assert_eq!(latin, [b'M', 0xFC, 0x80]);
    }

    #[test]
    fn binary_bytes_are_not_text() {
        assert_eq!(
            decode(vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]),
            None
        );
        assert_eq!(decode(vec![b'a', 0, b'b']), None);
        assert_eq!(decode(vec![0xFF, 0xFE, b'a']), None);
        assert_eq!(decode(vec![0xFF, 0xFE, 0x00, 0xD8]), None);
        assert_eq!(decode(vec![0xC3, 0x28, 0x01]), None);
    }

    #[test]
    fn a_character_windows_1252_lacks_cannot_be_written_in_it() {
        assert_eq!(encode("東京", Encoding::Windows1252), None);
    }
}

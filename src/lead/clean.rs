//! Text hygiene applied to every visitor-written value before any other rule.

use unicode_normalization::UnicodeNormalization;

/// For one-line fields: NFC, line breaks and tabs become spaces, other control and
/// direction-override characters are dropped, surrounding whitespace trimmed.
pub fn single_line(raw: &str) -> String {
    raw.nfc()
        .filter_map(|c| match c {
            '\n' | '\r' | '\t' => Some(' '),
            c if is_unwanted(c) => None,
            c => Some(c),
        })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// For the comment: like `single_line`, but line breaks are kept (as `\n`).
pub fn multi_line(raw: &str) -> String {
    raw.replace("\r\n", "\n")
        .nfc()
        .filter_map(|c| match c {
            '\n' | '\r' => Some('\n'),
            '\t' => Some(' '),
            c if is_unwanted(c) => None,
            c => Some(c),
        })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// Control characters, and the bidirectional overrides that can make a stored value read
/// differently from what it is when an operator looks at it.
fn is_unwanted(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_line_flattens_breaks_and_drops_controls() {
        assert_eq!(single_line(" a\tb\nc\u{202E}d\u{0001} "), "a b cd");
    }

    #[test]
    fn multi_line_keeps_line_breaks() {
        assert_eq!(multi_line("a\r\nb\rc\n"), "a\nb\nc");
    }
}

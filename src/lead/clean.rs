//! Text hygiene applied to every visitor-written value before any other rule.

use unicode_normalization::UnicodeNormalization;

/// For one-line fields: line breaks and tabs become spaces, other control and
/// direction-override characters are dropped, then NFC (after the dropping, so that a letter and
/// its accent that had a control character between them are composed too), surrounding
/// whitespace trimmed.
pub fn single_line(raw: &str) -> String {
    raw.chars()
        .filter_map(|c| match c {
            '\n' | '\r' | '\t' => Some(' '),
            c if is_unwanted(c) => None,
            c => Some(c),
        })
        .nfc()
        .collect::<String>()
        .trim()
        .to_owned()
}

/// For the comment: like `single_line`, but line breaks are kept (as `\n`).
pub fn multi_line(raw: &str) -> String {
    raw.replace("\r\n", "\n")
        .chars()
        .filter_map(|c| match c {
            '\n' | '\r' => Some('\n'),
            '\t' => Some(' '),
            c if is_unwanted(c) => None,
            c => Some(c),
        })
        .nfc()
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
    fn a_dropped_character_between_a_letter_and_its_accent_leaves_them_composed() {
        assert_eq!(single_line("Украі\u{0000}\u{0308}на"), "Україна");
        assert_eq!(multi_line("И\u{FEFF}\u{0306}осип"), "Йосип");
    }

    #[test]
    fn multi_line_keeps_line_breaks() {
        assert_eq!(multi_line("a\r\nb\rc\n"), "a\nb\nc");
    }
}

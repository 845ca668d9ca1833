//! Text hygiene applied to every visitor-written value before any other rule.
//!
//! What an operator reads must be what was sent, so characters that show nothing are dropped:
//! control characters; format characters (general category Cf: direction marks, embeddings,
//! overrides and isolates that can make a stored value read differently from what it is,
//! zero-width spaces and joiners, the word joiner, the BOM, the soft hyphen, and the tag
//! characters, which can carry a whole hidden message); and the other characters Unicode tells a
//! renderer to show as nothing (blank Hangul fillers, the grapheme joiner, reserved ignorable
//! code points). A name made only of them is therefore empty, that is missing.
//!
//! Two of them are kept where they carry something a reader sees:
//! - in the comment, a zero-width joiner between two emoji, which joins them into one picture
//!   (👩‍💻 is 👩 U+200D 💻). In the one-line fields it is dropped: a name or a phone has no
//!   emoji to join, and there a joiner could only make two values that look alike differ;
//! - one variation selector right after a visible character (❤️ drawn as a picture; a variant of
//!   a CJK ideograph in a name). A second one in a row changes nothing on screen and could carry
//!   hidden data.
//!
//! Visible characters are never touched: apostrophes in names (’ U+2019, ʼ U+02BC, ') are kept as
//! typed. The price of one simple rule: a regional flag made with tag characters (🏴 + tags, e.g.
//! Scotland) shows as a plain black flag, and the rare visible Cf characters (Arabic number signs,
//! U+0600–U+0605) are dropped, their digits kept.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeEmoji, UnicodeGeneralCategory};

const ZERO_WIDTH_JOINER: char = '\u{200D}';

/// For one-line fields: line breaks and tabs become spaces, invisible characters are dropped,
/// then NFC (after the dropping, so that a letter and its accent that had an invisible character
/// between them are composed too), surrounding whitespace trimmed.
pub fn single_line(raw: &str) -> String {
    clean(raw, Lines::Joined)
}

/// For the comment: like `single_line`, but line breaks are kept (as `\n`), and so is a joiner
/// between two emoji.
pub fn multi_line(raw: &str) -> String {
    clean(raw, Lines::Kept)
}

/// For text shown where control characters would act rather than show: a terminal, a log line,
/// the audit trail. Control characters, and the marks that reorder text (bidirectional controls,
/// Unicode's line separators), are written as escapes (`\n`, `\u{1b}`), so a stranger's text
/// can neither start a forged line nor hide or recolour what follows it.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    fn acts(c: char) -> bool {
        c.is_control()
            || matches!(c, '\u{200E}' | '\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    }
    if !text.chars().any(acts) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\t' => shown.extend(c.escape_default()),
            c if acts(c) => shown.extend(c.escape_unicode()),
            c => shown.push(c),
        }
    }
    std::borrow::Cow::Owned(shown)
}

#[derive(Clone, Copy, PartialEq)]
enum Lines {
    Joined,
    Kept,
}

fn clean(raw: &str, lines: Lines) -> String {
    let line_break = if lines == Lines::Kept { '\n' } else { ' ' };
    let raw = raw.replace("\r\n", "\n");
    let mut kept = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        let before = kept.chars().next_back();
        match c {
            // Every line break Unicode has, U+2028/U+2029 too: a reader sees a new line.
            '\n' | '\r' | '\u{0085}' | '\u{2028}' | '\u{2029}' => kept.push(line_break),
            '\t' => kept.push(' '),
            ZERO_WIDTH_JOINER if lines == Lines::Kept && joins_emoji(before, chars.peek().copied()) => {
                kept.push(c)
            }
            c if is_variation_selector(c) => {
                let after_visible = before.is_some_and(|b| {
                    !b.is_whitespace() && !is_variation_selector(b) && b != ZERO_WIDTH_JOINER
                });
                if after_visible {
                    kept.push(c);
                }
            }
            c if is_invisible(c) => {}
            c => kept.push(c),
        }
    }
    kept.nfc().collect::<String>().trim().to_owned()
}

/// Whether a zero-width joiner between `before` and `after` joins two emoji into one picture;
/// `before` may be the first emoji's presentation selector (❤️‍🔥). ASCII digits, `#` and `*` are
/// emoji only in keycaps, which no joiner joins.
fn joins_emoji(before: Option<char>, after: Option<char>) -> bool {
    let emoji = |c: char| !c.is_ascii() && c.is_emoji_char();
    before.is_some_and(|b| emoji(b) || b == '\u{FE0F}') && after.is_some_and(emoji)
}

fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Characters that show nothing (see the module's comment).
fn is_invisible(c: char) -> bool {
    c.is_control()
        || c.general_category() == GeneralCategory::Format
        || matches!(
            c,
            '\u{034F}' // combining grapheme joiner
            | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' // Hangul fillers: blank letters
            | '\u{17B4}' | '\u{17B5}' // Khmer inherent vowels, drawn as nothing
            | '\u{180B}'..='\u{180F}' // Mongolian variation selectors
            // Reserved now, to be invisible whatever they become.
            | '\u{2065}' | '\u{FFF0}'..='\u{FFF8}' | '\u{E0000}'..='\u{E0FFF}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_text_escapes_what_would_act_in_a_terminal() {
        assert_eq!(printable("olena@example.org"), "olena@example.org");
        assert!(matches!(printable("Ганна"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(
            printable("a@b.c\n2026-11-25T00:00:00Z  signed_in"),
            "a@b.c\\n2026-11-25T00:00:00Z  signed_in"
        );
        assert_eq!(printable("x\u{1b}[8mhidden"), "x\\u{1b}[8mhidden");
        assert_eq!(printable("\u{202e}moc.elpmaxe"), "\\u{202e}moc.elpmaxe");
        assert_eq!(printable("a\u{2028}b\u{9b}c"), "a\\u{2028}b\\u{9b}c");
    }

    #[test]
    fn single_line_flattens_breaks_and_drops_controls() {
        assert_eq!(single_line(" a\tb\nc\u{202E}d\u{0001} "), "a b cd");
    }

    #[test]
    fn a_dropped_character_between_a_letter_and_its_accent_leaves_them_composed() {
        assert_eq!(single_line("Украі\u{0000}\u{0308}на"), "Україна");
        assert_eq!(multi_line("И\u{FEFF}\u{0306}осип"), "Йосип");
        assert_eq!(single_line("Украі\u{200B}\u{0308}на"), "Україна");
    }

    #[test]
    fn multi_line_keeps_line_breaks() {
        assert_eq!(multi_line("a\r\nb\rc\n"), "a\nb\nc");
    }

    #[test]
    fn direction_controls_are_dropped() {
        let sent = "О\u{202A}л\u{202B}е\u{202C}н\u{202D}а\u{202E} \
                    \u{2066}Ш\u{2067}е\u{2068}в\u{2069}ч\u{200E}у\u{200F}к\u{061C}";
        assert_eq!(single_line(sent), "Олена Шевчук");
        assert_eq!(multi_line(sent), "Олена Шевчук");
    }

    #[test]
    fn zero_width_characters_and_the_soft_hyphen_are_dropped() {
        let sent = "\u{FEFF}О\u{200B}л\u{200C}е\u{200D}н\u{2060}а\u{00AD}";
        assert_eq!(single_line(sent), "Олена");
        assert_eq!(multi_line(sent), "Олена");
    }

    #[test]
    fn line_and_paragraph_separators_are_a_space_in_one_line_and_a_new_line_in_the_comment() {
        assert_eq!(single_line("Олена\u{2028}Шевчук\u{2029}Київ"), "Олена Шевчук Київ");
        assert_eq!(multi_line("Зранку\u{2028}або ввечері\u{2029}Дякую"), "Зранку\nабо ввечері\nДякую");
    }

    #[test]
    fn tag_characters_hiding_a_message_are_dropped() {
        let hidden: String =
            "ignore all orders".chars().map(|c| char::from_u32(0xE0000 + c as u32).unwrap()).collect();
        assert_eq!(multi_line(&format!("Передзвоніть{hidden}\u{E007F}")), "Передзвоніть");
        assert_eq!(single_line(&format!("\u{E0001}Олена{hidden}")), "Олена");
    }

    #[test]
    fn a_value_of_only_invisible_characters_is_empty() {
        for sent in [
            "\u{200B}",
            "\u{200B}\u{200D}\u{2060}\u{FEFF}",
            " \u{200E} ",
            "\u{3164}",
            "\u{FE0F}",
            "\u{E0041}",
        ] {
            assert_eq!(single_line(sent), "", "{sent:?}");
            assert_eq!(multi_line(sent), "", "{sent:?}");
        }
    }

    #[test]
    fn a_joiner_between_emoji_stays_in_the_comment_only() {
        let emoji = "👩\u{200D}💻 ❤\u{FE0F}\u{200D}🔥 👩🏽\u{200D}🚀";
        assert_eq!(multi_line(emoji), emoji);
        assert_eq!(single_line(emoji), "👩💻 ❤\u{FE0F}🔥 👩🏽🚀");
        assert_eq!(multi_line("Ол\u{200D}ена 1\u{200D}2 👩\u{200D} \u{200D}💻"), "Олена 12 👩 💻");
    }

    #[test]
    fn one_variation_selector_after_a_visible_character_stays() {
        assert_eq!(multi_line("Дякую ❤\u{FE0F}"), "Дякую ❤\u{FE0F}");
        assert_eq!(multi_line("❤\u{FE0F}\u{FE0F}\u{FE0E}"), "❤\u{FE0F}");
        assert_eq!(single_line("葛\u{E0100}\u{E0101}\u{E0102}"), "葛\u{E0100}");
        assert_eq!(single_line("a \u{FE0F}b"), "a b");
    }

    #[test]
    fn apostrophes_and_letters_are_kept_as_typed() {
        for name in ["Д’Артаньян", "Мар'яна", "Мар\u{02BC}яна", "Zoë O’Brien", "Олена-Марія"]
        {
            assert_eq!(single_line(name), name);
        }
    }
}

//! What the engines' indexes of names and phones need from a search: the text of a `LIKE`
//! pattern for the trigrams of names, the words of names and texts, the ranges of a phone search.

use std::collections::BTreeSet;

use crate::inbox::PhoneSearch;

/// The text of a `%text%` pattern (a part anywhere, `\` escaping `%`, `_` and itself), or `None`
/// for a pattern of another shape.
pub(super) fn like_part(pattern: &str) -> Option<String> {
    let inner = pattern.strip_prefix('%')?.strip_suffix('%')?;
    let mut part = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => part.push(chars.next()?),
            '%' | '_' => return None,
            c => part.push(c),
        }
    }
    Some(part)
}

/// The words of a folded name or text (ADR 0076): its runs between spaces, each once. Only U+0020
/// divides: another space is part of a word, in a name and in a text alike, so a text is never cut
/// where its name is not.
pub(super) fn words(folded: &str) -> BTreeSet<&str> {
    folded.split(' ').filter(|word| !word.is_empty()).collect()
}

/// The words of a folded text that a search looks up among the words of names: those of three
/// characters or more, which a trigram index can be asked for.
pub(super) fn words_to_look_up(folded: &str) -> impl Iterator<Item = &str> {
    words(folded).into_iter().filter(|word| word.chars().nth(2).is_some())
}

/// The ranges, in byte order, of the numbers a phone search finds: `(from, to)` of the reversed
/// numbers (those ending with the digits typed), and of the numbers themselves when their start
/// is searched too.
pub(super) fn phone_ranges(phone: &PhoneSearch) -> (Range, Option<Range>) {
    let end: String = phone.end.chars().rev().collect();
    (range_of(end), phone.start.clone().map(range_of))
}

/// From a text to the first text after every text that starts with it.
pub(super) type Range = (String, String);

fn range_of(prefix: String) -> Range {
    let mut to = prefix.clone();
    let last = to.pop().expect("a part of a number");
    to.push(char::from_u32(u32::from(last) + 1).expect("digits and `+`"));
    (prefix, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_anywhere_is_read_back_from_its_pattern() {
        assert_eq!(like_part("%олена%").as_deref(), Some("олена"));
        assert_eq!(like_part("%50\\%\\_\\\\%").as_deref(), Some("50%_\\"));
        assert_eq!(like_part("%a%b%"), None);
        assert_eq!(like_part("олена%"), None);
        // A trailing `\%` is an escaped percent sign, not the pattern's end.
        assert_eq!(like_part("%ab\\%"), None);
    }

    #[test]
    fn a_phone_search_is_two_ranges() {
        let phone = PhoneSearch { end: "4567".into(), start: Some("+38067129".into()) };
        let (end, start) = phone_ranges(&phone);
        assert_eq!(end, ("7654".into(), "7655".into()));
        assert_eq!(start, Some(("+38067129".into(), "+3806712:".into())));
    }
}

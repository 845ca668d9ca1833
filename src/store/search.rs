//! What the engines' indexes of names and phones need from a search: the text of a `LIKE`
//! pattern for the trigrams of names, the words of names and texts, the ranges of a phone search.

use std::borrow::Cow;
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

/// The words of a folded name or text, in order (ADR 0076): its runs between spaces. Only U+0020
/// divides: another space is part of a word, in a name and in a text alike, so a text is never cut
/// where its name is not.
fn words(folded: &str) -> Vec<&str> {
    folded.split(' ').filter(|word| !word.is_empty()).collect()
}

/// What the words of names count of a folded name (ADR 0076, 0077): each word, and each two
/// adjacent words as one piece ("тарас шевченко"), once. Only the pairs are new text: the writer
/// counts every stored name's pieces in the commit that indexes it.
pub(super) fn words_and_pairs(folded: &str) -> BTreeSet<Cow<'_, str>> {
    let words = words(folded);
    let pairs = words.windows(2).map(|pair| Cow::Owned(pair.join(" ")));
    words.iter().map(|word| Cow::Borrowed(*word)).chain(pairs).collect()
}

/// The pieces of a folded text that a search looks up among the words of names and their pairs:
/// a name holding the text holds each inside one of its own. Each two adjacent words of three
/// characters or more go as a pair, which says what its two words say and their order too; each
/// other word of three or more goes alone (a trigram index can be asked for those).
pub(super) fn pieces_to_look_up(folded: &str) -> BTreeSet<String> {
    let long = |word: &str| word.chars().nth(2).is_some();
    let words = words(folded);
    let pairs: Vec<&[&str]> = words.windows(2).filter(|pair| pair.iter().all(|word| long(word))).collect();
    let paired = |word: &str| pairs.iter().any(|pair| pair.contains(&word));
    let alone = words.iter().filter(|word| long(word) && !paired(word)).map(|word| (*word).to_owned());
    pairs.iter().map(|pair| pair.join(" ")).chain(alone).collect()
}

/// What a piece a name is listed under (a pair of its words, or its one word) holds when the name
/// holds a folded text (ADR 0078), if the text has a piece to look up: a text of one or two words
/// is inside one pair or word of the name, its words joined by one space as the pairs' are; a
/// longer text is inside several, each holding its longest piece to look up.
pub(super) fn listed_piece_part(folded: &str) -> Option<String> {
    let pieces = pieces_to_look_up(folded);
    let longest = pieces.into_iter().max_by_key(|piece| piece.chars().count())?;
    let words = words(folded);
    Some(if words.len() <= 2 { words.join(" ") } else { longest })
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
    fn a_name_counts_its_words_and_each_two_in_a_row() {
        let counted = words_and_pairs(" тарас  григорович шевченко тарас");
        let expected =
            ["тарас", "григорович", "шевченко", "тарас григорович", "григорович шевченко", "шевченко тарас"];
        assert_eq!(counted, expected.map(Cow::from).into());
        assert_eq!(words_and_pairs("олена"), [Cow::from("олена")].into());
    }

    #[test]
    fn a_text_looks_up_its_long_words_two_in_a_row_where_it_can() {
        let looked_up = |text: &str| pieces_to_look_up(text).into_iter().collect::<Vec<_>>();
        assert_eq!(looked_up("шевченко тарас"), ["шевченко тарас"]);
        assert_eq!(looked_up("ко тарас гри"), ["тарас гри"]);
        assert_eq!(looked_up("тарас ко шевч"), ["тарас", "шевч"], "a short word between cuts the pair");
        assert_eq!(looked_up("тарас"), ["тарас"]);
        assert_eq!(looked_up("ко т"), Vec::<String>::new());
    }

    #[test]
    fn a_listed_piece_holds_a_text_of_two_words_whole_and_a_longer_ones_longest_piece() {
        assert_eq!(listed_piece_part("ас  шевч").as_deref(), Some("ас шевч"), "one space, as in the pairs");
        assert_eq!(listed_piece_part("шевченко").as_deref(), Some("шевченко"));
        assert_eq!(listed_piece_part("ко тарас гри").as_deref(), Some("тарас гри"));
        assert_eq!(listed_piece_part("ко т"), None, "nothing to look up");
    }

    #[test]
    fn a_phone_search_is_two_ranges() {
        let phone = PhoneSearch { end: "4567".into(), start: Some("+38067129".into()) };
        let (end, start) = phone_ranges(&phone);
        assert_eq!(end, ("7654".into(), "7655".into()));
        assert_eq!(start, Some(("+38067129".into(), "+3806712:".into())));
    }
}

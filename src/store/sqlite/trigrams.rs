//! The trigrams of folded text, which the name index (`names`) and the words of names
//! (`name_words`) are both asked for, and the FTS5 expression that asks for them.

use std::collections::BTreeSet;

/// The names (or words) that hold each of `trigrams`, `"abc" AND "bcd" AND …` for FTS5. The
/// indexes keep no positions (migration 0026, ADR 0065), so the trigrams are not asked for as a
/// phrase: the LIKE (or `instr`) decides.
pub(super) fn match_expression(trigrams: &[String]) -> String {
    let quoted: Vec<String> =
        trigrams.iter().map(|trigram| format!("\"{}\"", trigram.replace('"', "\"\""))).collect();
    quoted.join(" AND ")
}

/// The trigrams of a folded name or text: each three characters in a row, once.
pub(super) fn trigrams(folded: &str) -> BTreeSet<String> {
    let chars: Vec<char> = folded.chars().collect();
    chars.windows(3).map(String::from_iter).collect()
}

//! What the engines' trigram indexes of names and phones need from a search's `LIKE` pattern.

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
}

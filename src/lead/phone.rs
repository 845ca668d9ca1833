//! The phone rule: it must look like a phone number, and it is also kept in E.164 so the same
//! person typed differently (`067…`, `+38067…`, `38067…`) is found as one.

use phonenumber::country::Id;

const MIN_DIGITS: usize = 7;
const MAX_DIGITS: usize = 15;

/// Returns the phone in E.164, or `None` when it does not look like a phone number: only digits,
/// spaces, `+`, `-`, `(`, `)` and 7–15 digits. Ukraine is the default country.
pub fn normalise_phone(phone: &str) -> Option<String> {
    parse_phone(phone).map(|(e164, _)| e164)
}

/// The phone in E.164 as `normalise_phone` gives it, and whether the number can exist in its
/// country's numbering plan (libphonenumber's rules: `+380 00…` cannot, no Ukrainian line starts
/// 00). One that cannot is still stored (held for review), never refused: the visitor may have
/// typed a digit wrong and is better called back than lost.
pub fn parse_phone(phone: &str) -> Option<(String, bool)> {
    if !phone.chars().all(|c| c.is_ascii_digit() || matches!(c, ' ' | '+' | '-' | '(' | ')')) {
        return None;
    }
    if phone.chars().skip(1).any(|c| c == '+') {
        return None;
    }
    let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
    if !(MIN_DIGITS..=MAX_DIGITS).contains(&digits.len()) {
        return None;
    }
    // libphonenumber knows every country's trunk and international prefixes; a number it
    // cannot place still counts (the spec sets no format rule), kept as its plain digits.
    Some(match phonenumber::parse(Some(Id::UA), phone) {
        Ok(number) => (number.format().mode(phonenumber::Mode::E164).to_string(), number.is_valid()),
        Err(_) => (format!("+{digits}"), false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ukrainian_numbers_in_any_usual_form_are_one_number() {
        for typed in
            ["067 123 45 67", "+380 67 123 45 67", "380671234567", "(067) 123-45-67", "+38 067 123 45 67"]
        {
            assert_eq!(normalise_phone(typed).as_deref(), Some("+380671234567"), "{typed}");
        }
    }

    #[test]
    fn foreign_numbers_keep_their_country() {
        assert_eq!(normalise_phone("+48 601 234 567").as_deref(), Some("+48601234567"));
        assert_eq!(normalise_phone("0048 601 234 567").as_deref(), Some("+48601234567"));
    }

    #[test]
    fn a_number_outside_its_countrys_plan_is_told_apart() {
        for possible in ["067 123 45 67", "+48 601 234 567", "+380 44 234 56 78", "+1 650 253 0000"] {
            assert_eq!(parse_phone(possible).map(|(_, valid)| valid), Some(true), "{possible}");
        }
        for impossible in ["+380001234567", "+380 11 111 11 11", "+999 1234 5678"] {
            assert_eq!(parse_phone(impossible).map(|(_, valid)| valid), Some(false), "{impossible}");
        }
    }

    #[test]
    fn refuses_what_is_not_a_phone_number() {
        for typed in ["", "123456", "1234567890123456", "067-ABC-45-67", "067 123 45 67 ext 2", "67+1234567"]
        {
            assert_eq!(normalise_phone(typed), None, "{typed}");
        }
    }
}

//! The lead and its rules (docs/product.md, "The form's fields"). No HTTP, no storage here:
//! both entry points (`/rest/v1/CRN` and `/leads`) and every engine share these rules.

pub mod attribution;
pub mod clean;
mod phone;

pub use attribution::Attribution;

use serde::Serialize;

pub use phone::{normalise_phone, parse_phone};

/// Longest accepted values, in characters after cleaning. Generous for real people, small enough
/// that a flood cannot fill the disk with a few requests.
pub const MAX_NAME_CHARS: usize = 100;
pub const MAX_PHONE_CHARS: usize = 32;
pub const MAX_COMMENT_CHARS: usize = 1000;

/// Most leads one request may carry. The site's form sends one; a few leave room for a script
/// that forwards a small batch. Each counts against the client's rate limit as a submit.
pub const MAX_LEADS_PER_REQUEST: usize = 10;

/// The answer to the yes/no question, stored as the Ukrainian word the spec names.
pub const YES: &str = "Так";
pub const NO: &str = "Ні";

/// What a visitor sends, before any rule is applied. `None` means the key was absent or `null`.
#[derive(Debug, Default, Clone)]
pub struct LeadInput {
    pub name: Option<String>,
    pub phone: Option<String>,
    pub confirmation: Option<String>,
    pub comment: Option<String>,
    /// Where the lead came from, cleaned already (never a reason to refuse).
    pub attribution: Attribution,
}

/// A lead that passed every rule, ready to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLead {
    pub name: String,
    pub phone: String,
    /// The phone in E.164 (Ukraine as the default country), for finding the same person again.
    pub phone_e164: String,
    /// Whether the number can exist in its country's numbering plan.
    pub phone_in_plan: bool,
    pub confirmation: String,
    pub comment: Option<String>,
    /// Why the lead is held for review instead of going to the call list (`abuse::Signal` codes);
    /// empty for the call list. Decided after the rules, by the entry point.
    pub held: Vec<&'static str>,
    pub attribution: Attribution,
}

impl NewLead {
    /// The lead as stored under `id` at `created_at`.
    pub fn stored_as(&self, id: i64, created_at: String) -> Lead {
        Lead {
            id,
            created_at,
            name: self.name.clone(),
            phone: self.phone.clone(),
            confirmation: self.confirmation.clone(),
            comment: self.comment.clone(),
        }
    }
}

/// A stored lead, as the API and the export show it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Lead {
    pub id: i64,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub name: String,
    pub phone: String,
    pub confirmation: String,
    pub comment: Option<String>,
}

/// The field a rule failed on. Field names match the CRN columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Name,
    Phone,
    Confirmation,
    Comment,
}

impl Field {
    pub fn column(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Phone => "phone",
            Field::Confirmation => "confirmation",
            Field::Comment => "comment",
        }
    }

    /// How the visitor knows the field on the form.
    pub fn label_uk(self) -> &'static str {
        match self {
            Field::Name => "Ваше ім'я",
            Field::Phone => "Номер телефону",
            Field::Confirmation => "Відповідь «Так» або «Ні»",
            Field::Comment => "Коментар",
        }
    }
}

/// Why a lead was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Missing(Field),
    TooLong(Field, usize),
    BadPhone,
    BadConfirmation,
}

impl Problem {
    pub fn field(&self) -> Field {
        match self {
            Problem::Missing(f) | Problem::TooLong(f, _) => *f,
            Problem::BadPhone => Field::Phone,
            Problem::BadConfirmation => Field::Confirmation,
        }
    }

    /// A sentence in Ukrainian that tells the visitor what to change.
    pub fn message_uk(&self) -> String {
        match self {
            Problem::Missing(field) => format!("Поле «{}» обов'язкове.", field.label_uk()),
            Problem::TooLong(field, max) => {
                format!("Поле «{}» задовге: не більше {max} символів.", field.label_uk())
            }
            Problem::BadPhone => "Номер телефону має складатися з цифр (від 7 до 15), \
                                  можна з пробілами, дужками, дефісами та «+»."
                .to_owned(),
            Problem::BadConfirmation => "Оберіть відповідь «Так» або «Ні».".to_owned(),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message_uk())
    }
}

impl LeadInput {
    /// Applies every rule; returns all problems, not only the first, so a form can mark each field.
    pub fn validate(self) -> Result<NewLead, Vec<Problem>> {
        let mut problems = Vec::new();
        let name = required(Field::Name, self.name.as_deref(), MAX_NAME_CHARS, &mut problems);
        let phone = required(Field::Phone, self.phone.as_deref(), MAX_PHONE_CHARS, &mut problems);
        let parsed = phone.as_deref().and_then(|p| match parse_phone(p) {
            Some(parsed) => Some(parsed),
            None => {
                problems.push(Problem::BadPhone);
                None
            }
        });
        let confirmation = match self.confirmation.as_deref().map(clean::single_line) {
            None => {
                problems.push(Problem::Missing(Field::Confirmation));
                None
            }
            Some(answer) if answer.is_empty() => {
                problems.push(Problem::Missing(Field::Confirmation));
                None
            }
            Some(answer) if answer == YES || answer == NO => Some(answer),
            Some(_) => {
                problems.push(Problem::BadConfirmation);
                None
            }
        };
        let comment = self.comment.as_deref().map(clean::multi_line).filter(|c| !c.is_empty());
        if let Some(c) = &comment {
            if c.chars().count() > MAX_COMMENT_CHARS {
                problems.push(Problem::TooLong(Field::Comment, MAX_COMMENT_CHARS));
            }
        }
        match (name, phone, parsed, confirmation) {
            (Some(name), Some(phone), Some((phone_e164, phone_in_plan)), Some(confirmation))
                if problems.is_empty() =>
            {
                Ok(NewLead {
                    name,
                    phone,
                    phone_e164,
                    phone_in_plan,
                    confirmation,
                    comment,
                    held: Vec::new(),
                    attribution: self.attribution,
                })
            }
            _ => Err(problems),
        }
    }
}

fn required(field: Field, value: Option<&str>, max: usize, problems: &mut Vec<Problem>) -> Option<String> {
    let value = value.map(clean::single_line).unwrap_or_default();
    if value.is_empty() {
        problems.push(Problem::Missing(field));
        None
    } else if value.chars().count() > max {
        problems.push(Problem::TooLong(field, max));
        None
    } else {
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str, phone: &str, confirmation: &str, comment: Option<&str>) -> LeadInput {
        LeadInput {
            name: Some(name.into()),
            phone: Some(phone.into()),
            confirmation: Some(confirmation.into()),
            comment: comment.map(Into::into),
            attribution: Attribution::default(),
        }
    }

    #[test]
    fn trims_and_nulls_an_empty_comment() {
        let lead = input("  Олена  ", " 067 123 45 67 ", "Так", Some("   ")).validate().unwrap();
        assert_eq!(lead.name, "Олена");
        assert_eq!(lead.phone, "067 123 45 67");
        assert_eq!(lead.phone_e164, "+380671234567");
        assert_eq!(lead.comment, None);
    }

    #[test]
    fn reports_every_missing_field() {
        let problems = LeadInput::default().validate().unwrap_err();
        assert_eq!(
            problems,
            vec![
                Problem::Missing(Field::Name),
                Problem::Missing(Field::Phone),
                Problem::Missing(Field::Confirmation)
            ]
        );
    }

    #[test]
    fn confirmation_must_be_yes_or_no_in_ukrainian() {
        assert_eq!(
            input("Іван", "0671234567", "yes", None).validate().unwrap_err(),
            vec![Problem::BadConfirmation]
        );
        assert!(input("Іван", "0671234567", "Ні", None).validate().is_ok());
    }

    #[test]
    fn refuses_overlong_fields() {
        let long_name = "я".repeat(MAX_NAME_CHARS + 1);
        let problems = input(&long_name, "0671234567", "Так", None).validate().unwrap_err();
        assert_eq!(problems, vec![Problem::TooLong(Field::Name, MAX_NAME_CHARS)]);
        let long_comment = "к".repeat(MAX_COMMENT_CHARS + 1);
        let problems = input("Іван", "0671234567", "Так", Some(&long_comment)).validate().unwrap_err();
        assert_eq!(problems, vec![Problem::TooLong(Field::Comment, MAX_COMMENT_CHARS)]);
    }

    #[test]
    fn refuses_a_phone_that_is_not_a_number() {
        let problems = input("Іван", "call me", "Так", None).validate().unwrap_err();
        assert_eq!(problems, vec![Problem::BadPhone]);
    }

    #[test]
    fn cleans_control_characters_and_normalises_unicode() {
        // "й" written as и + combining breve becomes the single precomposed letter (NFC).
        let lead =
            input("Андрі\u{0438}\u{0306}\u{0007}", "0671234567", "Так", Some("рядок 1\r\nрядок\u{0000} 2"))
                .validate()
                .unwrap();
        assert_eq!(lead.name, "Андрій");
        assert_eq!(lead.comment.as_deref(), Some("рядок 1\nрядок 2"));
    }
}

//! Reading the CSV of `placer whatif`'s tables back (DESIGN.md §CLI contract; RFC 4180 as
//! [`super::encode`] writes it), keeping which fields were quoted: `""` is an empty string,
//! an empty unquoted field an absent value.

/// One parsed CSV field.
pub(super) struct Field {
    pub(super) text: String,
    /// Whether it was quoted (tells `""` from an empty, null field).
    pub(super) quoted: bool,
}

/// RFC 4180 records of `text` (LF or CRLF line ends; a final line end optional).
pub(super) fn parse_csv(text: &str) -> Result<Vec<Vec<Field>>, String> {
    let mut records = Vec::new();
    let mut record: Vec<Field> = Vec::new();
    let mut field = Field { text: String::new(), quoted: false };
    let mut chars = text.chars().peekable();
    let mut line = 1usize;
    let mut at_record_start = true;
    while let Some(c) = chars.next() {
        at_record_start = false;
        match c {
            '"' if field.text.is_empty() && !field.quoted => {
                field.quoted = true;
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.text.push('"');
                        }
                        Some('"') => break,
                        Some(ch) => {
                            if ch == '\n' {
                                line += 1;
                            }
                            field.text.push(ch);
                        }
                        None => return Err(format!("line {line}: unterminated quoted field")),
                    }
                }
                if !matches!(chars.peek(), None | Some(',' | '\n' | '\r')) {
                    return Err(format!("line {line}: text after a closing quote"));
                }
            }
            ',' => record
                .push(std::mem::replace(&mut field, Field { text: String::new(), quoted: false })),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                record.push(std::mem::replace(
                    &mut field,
                    Field { text: String::new(), quoted: false },
                ));
                records.push(std::mem::take(&mut record));
                line += 1;
                at_record_start = true;
            }
            '"' => return Err(format!("line {line}: quote inside an unquoted field")),
            ch => field.text.push(ch),
        }
    }
    if !at_record_start {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::super::encode::{csv_field, push_record};
    use super::*;

    #[test]
    fn csv_fields_round_trip_through_the_parser() {
        let fields = ["plain", "a,b", "say \"hi\"", "two\nlines", "", "x\r\ny"];
        let mut text = String::new();
        push_record(&mut text, fields.iter().map(|f| Some(csv_field(f))).chain([None]));
        let records = parse_csv(&text).unwrap();
        assert_eq!(records.len(), 1);
        let got: Vec<(&str, bool)> =
            records[0].iter().map(|f| (f.text.as_str(), f.quoted)).collect();
        assert_eq!(
            got,
            [
                ("plain", false),
                ("a,b", true),
                ("say \"hi\"", true),
                ("two\nlines", true),
                ("", true),
                ("x\r\ny", true),
                ("", false),
            ]
        );
    }

    #[test]
    fn bad_csv_is_an_error() {
        assert!(parse_csv("a,\"b").is_err());
        assert!(parse_csv("a,\"b\"c\n").is_err());
        assert!(parse_csv("a,b\"c\n").is_err());
    }
}

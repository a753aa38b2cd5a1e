//! Reading the CSV of `placer whatif`'s tables back (docs/simulator.md, "Outputs"; RFC 4180 as
//! [`super::encode`] writes it) with the `csv` crate, plus which fields were quoted.
//!
//! The tables tell an empty string (`""`, quoted) from an absent value (an empty unquoted
//! field, DuckDB's NULL). The `csv` crate reads both as the same empty field and keeps no trace
//! of the quotes (by design: BurntSushi/rust-csv#114), and it is lenient where RFC 4180 is not
//! (a quote inside an unquoted field, text after a closing quote and an unterminated quoted
//! field are all read as text). So each record's raw bytes, from the reader's byte positions,
//! are checked to be the RFC 4180 encoding of the fields the crate parsed: a field is either
//! its text unquoted (no `"` in it) or `"` + its text with every `"` doubled + `"`. That tells
//! which fields were quoted, and turns the crate's leniency back into errors.
//!
//! Line ends are LF or CRLF (a final one optional). Blank lines are skipped (the crate's
//! behaviour; the writer never emits them).

use csv::StringRecord;

/// One CSV record.
pub(super) struct Record {
    /// The fields, unescaped.
    pub(super) fields: StringRecord,
    /// Per field, whether it was quoted (`""` is an empty string, an empty unquoted field is
    /// an absent value).
    pub(super) quoted: Vec<bool>,
    /// The line the record starts on, 1-based.
    pub(super) line: u64,
}

impl Record {
    /// Field `i`'s text and whether it was quoted, `None` past the record's end.
    pub(super) fn get(&self, i: usize) -> Option<(&str, bool)> {
        Some((self.fields.get(i)?, *self.quoted.get(i)?))
    }

    /// The number of fields.
    pub(super) fn len(&self) -> usize {
        self.fields.len()
    }
}

const UNTERMINATED: &str = "unterminated quoted field";
const TEXT_AFTER_QUOTE: &str = "text after a closing quote";
const QUOTE_IN_UNQUOTED: &str = "quote inside an unquoted field";

/// The records of `text`, the header (if any) first. Errors say which line and what is wrong.
pub(super) fn read_records(text: &str) -> Result<Vec<Record>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        // Short or long rows are the caller's to judge (columns are found by name).
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut records = Vec::new();
    let mut fields = StringRecord::new();
    loop {
        let start = reader.position().clone();
        let more =
            reader.read_record(&mut fields).map_err(|e| format!("line {}: {e}", start.line()))?;
        if !more {
            return Ok(records);
        }
        // The bytes read for this record: skipped blank lines (and the LF of a CRLF) first,
        // then the record and its line end.
        let raw = text.as_bytes().get(start.byte() as usize..reader.position().byte() as usize);
        let raw = raw.unwrap_or_default();
        let skipped = raw.iter().take_while(|b| matches!(b, b'\r' | b'\n')).count();
        let line_ends = raw[..skipped].iter().filter(|b| **b == b'\n').count();
        let line = start.line() + line_ends as u64;
        let quoted = quoting(&raw[skipped..], &fields).map_err(|e| format!("line {line}: {e}"))?;
        records.push(Record { fields: fields.clone(), quoted, line });
    }
}

/// Per field of `fields`, whether `raw` (the record's bytes and line end) quotes it; an error
/// if `raw` is not the RFC 4180 encoding of `fields`.
fn quoting(raw: &[u8], fields: &StringRecord) -> Result<Vec<bool>, &'static str> {
    let mut rest = raw;
    let mut quoted = Vec::with_capacity(fields.len());
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            rest = rest.strip_prefix(b",").ok_or(TEXT_AFTER_QUOTE)?;
        }
        let field = field.as_bytes();
        if let Some(inner) = rest.strip_prefix(b"\"") {
            rest = after_quoted(inner, field)?;
            quoted.push(true);
        } else if field.contains(&b'"') {
            return Err(QUOTE_IN_UNQUOTED);
        } else {
            // The crate ends an unquoted field at the first `,`, CR or LF, so this holds.
            rest = rest.strip_prefix(field).ok_or(QUOTE_IN_UNQUOTED)?;
            quoted.push(false);
        }
    }
    match rest {
        b"" | b"\n" | b"\r\n" | b"\r" => Ok(quoted),
        _ => Err(TEXT_AFTER_QUOTE),
    }
}

/// What follows the quoted field whose text is `field` in `rest` (which starts after the
/// opening quote): the text with every `"` doubled, then the closing quote.
fn after_quoted<'a>(mut rest: &'a [u8], field: &[u8]) -> Result<&'a [u8], &'static str> {
    // Where the raw bytes and the text part, a lone quote in the raw bytes closed the field.
    let cause = |rest: &[u8]| if rest.is_empty() { UNTERMINATED } else { TEXT_AFTER_QUOTE };
    for &b in field {
        let encoded: &[u8] = if b == b'"' { b"\"\"" } else { std::slice::from_ref(&b) };
        rest = rest.strip_prefix(encoded).ok_or_else(|| cause(rest))?;
    }
    rest.strip_prefix(b"\"").ok_or_else(|| cause(rest))
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
        let records = read_records(&text).unwrap();
        assert_eq!(records.len(), 1);
        let got: Vec<(&str, bool)> =
            (0..records[0].len()).filter_map(|i| records[0].get(i)).collect();
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
        assert!(read_records("a,\"b").is_err());
        assert!(read_records("a,\"b\"c\n").is_err());
        assert!(read_records("a,b\"c\n").is_err());
    }

    #[test]
    fn errors_say_what_is_wrong_and_where() {
        let err = |text: &str| read_records(text).err().unwrap_or_default();
        assert_eq!(err("h\nok\na,\"b"), "line 3: unterminated quoted field");
        assert_eq!(err("h\n\"a\nb\",\"c\"d\n"), "line 2: text after a closing quote");
        assert_eq!(err("h\r\n\r\na,b\"c\r\n"), "line 3: quote inside an unquoted field");
        assert_eq!(err("\"\"\"\"x,\n"), "line 1: text after a closing quote");
    }

    #[test]
    fn lines_count_crlf_quoted_line_ends_and_blank_lines() {
        let records = read_records("h,i\r\n\"a\nb\",\"\"\r\n\r\n\nc,\r\nd,\"e\"\"\"").unwrap();
        let lines: Vec<u64> = records.iter().map(|r| r.line).collect();
        assert_eq!(lines, [1, 2, 6, 7]);
        assert_eq!(records[1].get(1), Some(("", true)));
        assert_eq!(records[2].get(1), Some(("", false)));
        assert_eq!(records[3].get(1), Some(("e\"", true)));
        assert!(read_records("").unwrap().is_empty());
    }
}

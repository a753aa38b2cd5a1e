//! Encoding a table of `placer whatif` (docs/simulator.md, "Outputs") as CSV (RFC 4180, floats as
//! `{:?}`) and as Parquet (format 1.0 types, Snappy): one column-wise description feeds both
//! writers, so that the two files of a table hold the same rows (see the formats in
//! [`crate::tables`]).

use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

use crate::ReportError;

/// A column's values.
pub(super) enum Cells {
    /// Required strings.
    Str(Vec<String>),
    /// Nullable strings.
    OptStr(Vec<Option<String>>),
    /// Required floats.
    F64(Vec<f64>),
    /// Nullable floats.
    OptF64(Vec<Option<f64>>),
    /// Required integers.
    I64(Vec<i64>),
    /// Nullable integers.
    OptI64(Vec<Option<i64>>),
    /// Nullable booleans (`true` / `false` in CSV, BOOLEAN in Parquet).
    OptBool(Vec<Option<bool>>),
}

/// A named column.
pub(super) struct Column {
    pub(super) name: &'static str,
    pub(super) cells: Cells,
}

/// A table of equally long columns.
pub(super) struct Table {
    pub(super) columns: Vec<Column>,
    pub(super) rows: usize,
}

/// A count as Parquet's INT64 (saturating; counts never come near 2⁶³).
pub(super) fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Seconds → whole milliseconds (nearest; non-finite → `None`).
pub(super) fn ms(s: f64) -> Option<i64> {
    let v = (s * 1000.0).round();
    v.is_finite().then_some(v as i64)
}

impl Table {
    pub(super) fn new(columns: Vec<Column>, rows: usize) -> Self {
        Table { columns, rows }
    }

    /// The CSV text (see the module docs for the format).
    pub(super) fn to_csv(&self) -> String {
        let mut out = String::new();
        push_record(&mut out, self.columns.iter().map(|c| Some(csv_field(c.name))));
        for row in 0..self.rows {
            push_record(
                &mut out,
                self.columns.iter().map(|c| match &c.cells {
                    Cells::Str(v) => Some(csv_field(&v[row])),
                    Cells::OptStr(v) => v[row].as_deref().map(csv_field),
                    Cells::F64(v) => Some(float(v[row])),
                    Cells::OptF64(v) => v[row].map(float),
                    Cells::I64(v) => Some(v[row].to_string()),
                    Cells::OptI64(v) => v[row].map(|x| x.to_string()),
                    Cells::OptBool(v) => v[row].map(|x| x.to_string()),
                }),
            );
        }
        out
    }

    /// The Parquet message type of this table.
    fn parquet_schema(&self, name: &str) -> String {
        let mut s = format!("message {name} {{\n");
        for c in &self.columns {
            let (rep, ty) = match c.cells {
                Cells::Str(_) => ("REQUIRED", "BYTE_ARRAY"),
                Cells::OptStr(_) => ("OPTIONAL", "BYTE_ARRAY"),
                Cells::F64(_) => ("REQUIRED", "DOUBLE"),
                Cells::OptF64(_) => ("OPTIONAL", "DOUBLE"),
                Cells::I64(_) => ("REQUIRED", "INT64"),
                Cells::OptI64(_) => ("OPTIONAL", "INT64"),
                Cells::OptBool(_) => ("OPTIONAL", "BOOLEAN"),
            };
            let logical = if ty == "BYTE_ARRAY" { " (STRING)" } else { "" };
            s.push_str(&format!("  {rep} {ty} {}{logical};\n", c.name));
        }
        s.push('}');
        s
    }

    /// The Parquet file's bytes: one row group (none if the table is empty), Snappy.
    pub(super) fn to_parquet(&self, name: &str, path: &str) -> Result<Vec<u8>, ReportError> {
        let err = |e: parquet::errors::ParquetError| ReportError::Format {
            path: path.to_owned(),
            message: format!("writing parquet: {e}"),
        };
        let schema = Arc::new(parse_message_type(&self.parquet_schema(name)).map_err(err)?);
        let props =
            Arc::new(WriterProperties::builder().set_compression(Compression::SNAPPY).build());
        let mut writer = SerializedFileWriter::new(Vec::new(), schema, props).map_err(err)?;
        if self.rows > 0 {
            let mut group = writer.next_row_group().map_err(err)?;
            let mut columns = self.columns.iter();
            while let Some(mut out) = group.next_column().map_err(err)? {
                let Some(column) = columns.next() else {
                    return Err(ReportError::Format {
                        path: path.to_owned(),
                        message: "parquet schema has more columns than the table".to_owned(),
                    });
                };
                match &column.cells {
                    Cells::Str(v) => {
                        let values: Vec<ByteArray> = v.iter().map(|s| s.as_str().into()).collect();
                        out.typed::<ByteArrayType>().write_batch(&values, None, None)
                    }
                    Cells::OptStr(v) => {
                        let values: Vec<ByteArray> =
                            v.iter().flatten().map(|s| s.as_str().into()).collect();
                        out.typed::<ByteArrayType>().write_batch(&values, Some(&defs(v)), None)
                    }
                    Cells::F64(v) => out.typed::<DoubleType>().write_batch(v, None, None),
                    Cells::OptF64(v) => {
                        let values: Vec<f64> = v.iter().flatten().copied().collect();
                        out.typed::<DoubleType>().write_batch(&values, Some(&defs(v)), None)
                    }
                    Cells::I64(v) => out.typed::<Int64Type>().write_batch(v, None, None),
                    Cells::OptI64(v) => {
                        let values: Vec<i64> = v.iter().flatten().copied().collect();
                        out.typed::<Int64Type>().write_batch(&values, Some(&defs(v)), None)
                    }
                    Cells::OptBool(v) => {
                        let values: Vec<bool> = v.iter().flatten().copied().collect();
                        out.typed::<BoolType>().write_batch(&values, Some(&defs(v)), None)
                    }
                }
                .map_err(err)?;
                out.close().map_err(err)?;
            }
            group.close().map_err(err)?;
        }
        writer.into_inner().map_err(err)
    }
}

/// Definition levels of a nullable column: 1 present, 0 null.
fn defs<T>(v: &[Option<T>]) -> Vec<i16> {
    v.iter().map(|x| i16::from(x.is_some())).collect()
}

/// A float as written in CSV (see the module docs).
fn float(x: f64) -> String {
    format!("{x:?}")
}

/// A string field, quoted if needed (RFC 4180; empty strings quoted to tell them from null).
pub(super) fn csv_field(s: &str) -> String {
    if s.is_empty() || s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Appends one record (`None` = empty field) and a `\n`.
pub(super) fn push_record(out: &mut String, fields: impl Iterator<Item = Option<String>>) {
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Some(f) = f {
            out.push_str(&f);
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_always_read_as_floats() {
        assert_eq!(float(12.0), "12.0");
        assert_eq!(float(0.35), "0.35");
        assert_eq!(float(1e-7), "1e-7");
        assert_eq!(float(f64::INFINITY), "inf");
        assert_eq!(float(f64::NAN), "NaN");
        for x in [0.1 + 0.2, 1e300, -2.5e-12, 123456789.125] {
            assert_eq!(float(x).parse::<f64>().unwrap().to_bits(), x.to_bits());
        }
    }
}

//! `to_char(number, template)` with PostgreSQL's numeric template patterns: `9` (a digit or a
//! blank), `0` (a digit or a zero), `.`/`D` (the decimal point), `,`/`G` (the group
//! separator), `S`/`MI`/`PL`/`SG` (the sign), `PR` (negative in angle brackets), `FM` (no
//! padding) — what dashboards format counts and scores with. The locale is C: `D` is `.`,
//! `G` is `,`. Other patterns (`L`, `RN`, `EEEE`, `V`, `TH`) are refused (0A000), never
//! echoed.

use std::sync::Arc;

use arrow::array::{Array, AsArray, StringArray};
use arrow::datatypes::{DataType, Float64Type};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{create_udf, ColumnarValue, Volatility};

/// The function the statement rewrite calls for `to_char(x, 'numeric template')`.
pub const FUNCTION: &str = "pg_to_char_number";

/// Whether `template` is a numeric one (it has a digit position `9` or `0`).
pub fn is_numeric_template(template: &str) -> bool {
    template.contains('9') || template.contains('0')
}

/// One element of a parsed template.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Part {
    Nine,
    Zero,
    Point,
    Group,
    Sign,
    Minus,
    Plus,
    SignBoth,
    Angle,
    Literal(char),
}

fn parse(template: &str) -> std::result::Result<(Vec<Part>, bool), String> {
    let mut parts = Vec::new();
    let mut fill = false;
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        let upper = rest.to_ascii_uppercase();
        let (part, len) = if upper.starts_with("FM") {
            fill = true;
            rest = &rest[2..];
            continue;
        } else if upper.starts_with("MI") {
            (Part::Minus, 2)
        } else if upper.starts_with("PL") {
            (Part::Plus, 2)
        } else if upper.starts_with("SG") {
            (Part::SignBoth, 2)
        } else if upper.starts_with("PR") {
            (Part::Angle, 2)
        } else {
            match c {
                '9' => (Part::Nine, 1),
                '0' => (Part::Zero, 1),
                '.' | 'D' | 'd' => (Part::Point, 1),
                ',' | 'G' | 'g' => (Part::Group, 1),
                'S' | 's' => (Part::Sign, 1),
                c if c.is_ascii_alphabetic() => {
                    return Err(format!(
                        "the numeric template pattern \"{c}\" of \"{template}\" is not supported"
                    ))
                }
                c => (Part::Literal(c), c.len_utf8()),
            }
        };
        parts.push(part);
        rest = &rest[len..];
    }
    Ok((parts, fill))
}

/// `value` written by `template` as PostgreSQL's `to_char` writes it.
pub fn format(value: f64, template: &str) -> std::result::Result<String, String> {
    let (parts, fill) = parse(template)?;
    let is_digit = |p: &Part| matches!(p, Part::Nine | Part::Zero);
    let point = parts.iter().position(|p| *p == Part::Point);
    let int_end = point.unwrap_or(parts.len());
    let int_slots = parts[..int_end].iter().filter(|p| is_digit(p)).count();
    let frac_slots = parts[int_end..].iter().filter(|p| is_digit(p)).count();
    let negative = value < 0.0;
    let digits = format!("{:.*}", frac_slots, value.abs());
    let (int_digits, frac_digits) = digits.split_once('.').unwrap_or((&digits, ""));
    let int_digits = if int_digits == "0" { "" } else { int_digits };
    let overflow = int_digits.len() > int_slots || !value.is_finite();
    let first_zero = parts[..int_end]
        .iter()
        .filter(|p| is_digit(p))
        .position(|p| *p == Part::Zero)
        .unwrap_or(int_slots);
    let first_digit = int_slots - int_digits.len().min(int_slots);
    // A sign written just before the first printed digit: implicit (no sign pattern: a blank
    // for positive numbers) or `S` before the digits (`+` for positive numbers).
    let leading_s = parts[..int_end].first() == Some(&Part::Sign);
    let explicit = parts.iter().any(|p| {
        matches!(p, Part::Minus | Part::Plus | Part::SignBoth | Part::Angle)
            || (*p == Part::Sign && !leading_s)
    });
    let anchored = if leading_s {
        Some(if negative { '-' } else { '+' })
    } else if !explicit {
        Some(if negative && !overflow { '-' } else { ' ' })
    } else {
        None
    };
    let mut out: Vec<char> = Vec::new();
    if anchored.is_some() && !leading_s {
        out.push(' ');
    }
    let mut slot = 0;
    let mut first_printed: Option<usize> = None;
    let mut frac = frac_digits.chars();
    let mut in_fraction = false;
    for p in &parts {
        match p {
            Part::Nine | Part::Zero if !in_fraction => {
                let c = if overflow {
                    '#'
                } else if slot >= first_digit {
                    int_digits.as_bytes()[slot - first_digit] as char
                } else if slot >= first_zero {
                    '0'
                } else {
                    ' '
                };
                if c != ' ' && first_printed.is_none() {
                    first_printed = Some(out.len());
                }
                out.push(c);
                slot += 1;
            }
            Part::Nine | Part::Zero => out.push(if overflow {
                '#'
            } else {
                frac.next().unwrap_or('0')
            }),
            Part::Point => {
                if first_printed.is_none() {
                    first_printed = Some(out.len());
                }
                in_fraction = true;
                out.push('.');
            }
            Part::Group => out.push(if first_printed.is_some() { ',' } else { ' ' }),
            Part::Sign => {
                if !leading_s {
                    out.push(if negative { '-' } else { '+' });
                } else {
                    out.push(' ');
                }
            }
            Part::SignBoth => out.push(if negative { '-' } else { '+' }),
            Part::Minus => out.push(if negative { '-' } else { ' ' }),
            Part::Plus => out.push(if negative { ' ' } else { '+' }),
            Part::Angle => {}
            Part::Literal(c) => out.push(*c),
        }
    }
    if let Some(sign) = anchored {
        let at = first_printed.unwrap_or(out.len());
        if leading_s {
            // `S` held the first position; the sign moves next to the digits.
            out.remove(
                parts
                    .iter()
                    .position(|p| *p == Part::Sign)
                    .unwrap_or(0)
                    .min(out.len().saturating_sub(1)),
            );
            out.insert(at.saturating_sub(1), sign);
        } else if at > 0 {
            out[at - 1] = sign;
        }
    }
    let mut text: String = out.into_iter().collect();
    if parts.contains(&Part::Angle) {
        text = if negative {
            format!("<{text}>")
        } else {
            format!(" {text} ")
        };
    }
    if fill {
        // FM: no padding blanks, and no trailing zeros in `9` positions after the point.
        text = text.trim().to_string();
        let nines = parts[int_end..]
            .iter()
            .rev()
            .take_while(|p| !is_digit(p) || **p == Part::Nine)
            .filter(|p| **p == Part::Nine)
            .count();
        for _ in 0..nines {
            if text.ends_with('0') && text.contains('.') {
                text.pop();
            }
        }
    }
    Ok(text)
}

/// `pg_to_char_number(float8, text)`.
pub fn udf() -> datafusion::logical_expr::ScalarUDF {
    create_udf(
        FUNCTION,
        vec![DataType::Float64, DataType::Utf8],
        DataType::Utf8,
        Volatility::Immutable,
        Arc::new(|args: &[ColumnarValue]| {
            let n = crate::catalog::rows_of(args).unwrap_or(1);
            let values = args[0].to_array(n)?;
            let values = values.as_primitive::<Float64Type>();
            let templates = args[1].to_array(n)?;
            let templates = templates.as_string::<i32>();
            let out = (0..n)
                .map(|i| {
                    if values.is_null(i) || templates.is_null(i) {
                        return Ok(None);
                    }
                    format(values.value(i), templates.value(i))
                        .map(Some)
                        .map_err(DataFusionError::NotImplemented)
                })
                .collect::<Result<StringArray>>()?;
            crate::catalog::shaped(args, Arc::new(out))
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::format;

    #[test]
    fn numbers_are_written_as_postgres_writes_them() {
        // Each expectation is PostgreSQL 15's output.
        for (v, t, want) in [
            (1.23456, "999D99", "   1.23"),
            (-0.1, "99.99", "  -.10"),
            (-0.1, "FM9.99", "-.1"),
            (-0.1, "FM90.99", "-0.1"),
            (0.1, "0.9", " 0.1"),
            (12.0, "9990999.9", "    0012.0"),
            (12.0, "FM9990999.9", "0012."),
            (485.0, "999", " 485"),
            (-485.0, "999", "-485"),
            (485.0, "9 9 9", " 4 8 5"),
            (1485.0, "9,999", " 1,485"),
            (148.5, "999.999", " 148.500"),
            (148.5, "FM999.999", "148.5"),
            (148.5, "FM999.990", "148.500"),
            (-485.0, "999S", "485-"),
            (-485.0, "999MI", "485-"),
            (485.0, "999MI", "485 "),
            (485.0, "FM999MI", "485"),
            (485.0, "PL999", "+485"),
            (485.0, "SG999", "+485"),
            (-485.0, "SG999", "-485"),
            (-485.0, "9SG99", "4-85"),
            (-485.0, "999PR", "<485>"),
            (12345.0, "999", " ###"),
            (-5.0, "S999", "  -5"),
            (5.0, "S999", "  +5"),
            (1234567.0, "9,999,999", " 1,234,567"),
        ] {
            assert_eq!(format(v, t).unwrap(), want, "to_char({v}, '{t}')");
        }
        assert!(format(1.0, "9999RN").is_err());
    }
}

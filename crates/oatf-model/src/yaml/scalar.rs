//! Plain scalars resolved with the strict YAML 1.2 core schema: null, booleans, integers (decimal,
//! octal `0o`, hex `0x`) and floats; anything else is a string.

use super::float::parse_finite;
use crate::span::NodeKind;

/// Resolves a plain scalar with the strict YAML 1.2 core schema.
pub(crate) fn resolve_plain(text: &str) -> NodeKind {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return NodeKind::Null,
        "true" | "True" | "TRUE" => return NodeKind::Bool(true),
        "false" | "False" | "FALSE" => return NodeKind::Bool(false),
        _ => {}
    }
    if let Some(kind) = resolve_int(text) {
        return kind;
    }
    if is_float(text)
        && let Some(f) = parse_finite(text)
    {
        return NodeKind::Float(f);
    }
    NodeKind::Str(text.to_owned())
}

/// Whether a plain scalar is an integer of the core schema (decimal, `0o` octal or `0x` hex) that
/// no 64-bit integer holds (`18446744073709551616`, `-9223372036854775809`).
pub(crate) fn is_out_of_range_int(text: &str) -> bool {
    let radix_digits =
        |digits: &str, radix: u32| !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix));
    if let Some(oct) = text.strip_prefix("0o") {
        return radix_digits(oct, 8) && u64::from_str_radix(oct, 8).is_err();
    }
    if let Some(hex) = text.strip_prefix("0x") {
        return radix_digits(hex, 16) && u64::from_str_radix(hex, 16).is_err();
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !radix_digits(digits, 10) || (digits.len() > 1 && digits.starts_with('0')) {
        return false;
    }
    if text.starts_with('-') {
        text.parse::<i64>().is_err()
    } else {
        digits.parse::<u64>().is_err()
    }
}

fn resolve_int(text: &str) -> Option<NodeKind> {
    if let Some(oct) = text.strip_prefix("0o") {
        if !oct.is_empty() && oct.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            return u64::from_str_radix(oct, 8).ok().map(int_kind);
        }
        return None;
    }
    if let Some(hex) = text.strip_prefix("0x") {
        if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return u64::from_str_radix(hex, 16).ok().map(int_kind);
        }
        return None;
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Strict profile: `012` is a string, not a number.
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    if text.starts_with('-') {
        return match text.parse::<i64>() {
            Ok(i) => Some(NodeKind::Int(i)),
            Err(_) => parse_finite(text).map(NodeKind::Float),
        };
    }
    match digits.parse::<u64>() {
        Ok(u) => Some(int_kind(u)),
        Err(_) => parse_finite(digits).map(NodeKind::Float),
    }
}

fn int_kind(u: u64) -> NodeKind {
    match i64::try_from(u) {
        Ok(i) => NodeKind::Int(i),
        Err(_) => NodeKind::UInt(u),
    }
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, without a leading-zero integer part.
fn is_float(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    if let Some(exp) = exponent {
        let digits = exp.strip_prefix(['-', '+']).unwrap_or(exp);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
    }
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], Some(&mantissa[i + 1..])),
        None => (mantissa, None),
    };
    if !int_part.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if int_part.len() > 1 && int_part.starts_with('0') {
        return false;
    }
    match frac_part {
        Some(frac) => {
            frac.bytes().all(|b| b.is_ascii_digit()) && !(int_part.is_empty() && frac.is_empty())
        }
        None => !int_part.is_empty() && exponent.is_some(),
    }
}

//! `parse_duration` (SDK §5.2, spec-decisions item 11).
//!
//! Two forms are accepted and nothing else:
//! - shorthand `{N}s`, `{N}m`, `{N}h`, `{N}d` with one unit (no `1h30m`);
//! - ISO 8601 `P[nD][T[nH][nM][nS]]` with integer parts in descending order, at least one part,
//!   and `T` only when a time part follows.
//!
//! `N` is a non-negative integer of ASCII digits: no sign, no fraction, no whitespace.

use std::fmt;
use std::time::Duration;

/// Why a duration string was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DurationError {
    input: Box<str>,
    reason: &'static str,
}

impl DurationError {
    fn new(input: &str, reason: &'static str) -> Self {
        // Keep a bounded copy of hostile input for the message.
        let input: String = input.chars().take(64).collect();
        DurationError {
            input: input.into(),
            reason,
        }
    }

    /// Why the input is not a duration, in a few words.
    pub fn reason(&self) -> &str {
        self.reason
    }
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid duration {:?}: {}", self.input, self.reason)
    }
}

impl std::error::Error for DurationError {}

const MINUTE: u64 = 60;
const HOUR: u64 = 60 * MINUTE;
const DAY: u64 = 24 * HOUR;

/// Parses a duration in shorthand (`30s`, `5m`, `1h`, `2d`) or ISO 8601 (`PT30S`, `P1DT12H`) form.
///
/// ```
/// use oatf_primitives::parse_duration;
/// use std::time::Duration;
///
/// assert_eq!(parse_duration("PT1H30M")?, Duration::from_secs(5400));
/// assert!(parse_duration("1h30m").is_err());
/// # Ok::<(), oatf_primitives::DurationError>(())
/// ```
pub fn parse_duration(input: &str) -> Result<Duration, DurationError> {
    let seconds = match input.strip_prefix('P') {
        Some(rest) => parse_iso(input, rest)?,
        None => parse_shorthand(input)?,
    };
    Ok(Duration::from_secs(seconds))
}

fn parse_shorthand(input: &str) -> Result<u64, DurationError> {
    let Some(unit) = input.chars().last() else {
        return Err(DurationError::new(input, "empty string"));
    };
    let scale = match unit {
        's' => 1,
        'm' => MINUTE,
        'h' => HOUR,
        'd' => DAY,
        _ => {
            return Err(DurationError::new(
                input,
                "expected a number followed by one unit of s, m, h or d, or an ISO 8601 duration",
            ));
        }
    };
    let digits = &input[..input.len() - unit.len_utf8()];
    let n = parse_number(input, digits)?;
    n.checked_mul(scale)
        .ok_or_else(|| DurationError::new(input, "value is too large"))
}

fn parse_iso(input: &str, rest: &str) -> Result<u64, DurationError> {
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => {
            if time.is_empty() {
                return Err(DurationError::new(
                    input,
                    "`T` must be followed by a time part",
                ));
            }
            (date, Some(time))
        }
        None => (rest, None),
    };
    if date.is_empty() && time.is_none() {
        return Err(DurationError::new(
            input,
            "`P` must be followed by at least one part",
        ));
    }
    let mut total = 0u64;
    if !date.is_empty() {
        let digits = date.strip_suffix('D').ok_or_else(|| {
            DurationError::new(input, "only a day part (`nD`) may come before `T`")
        })?;
        total = add(input, total, parse_number(input, digits)?, DAY)?;
    }
    if let Some(mut time) = time {
        // Each unit may appear once, in this order.
        for (designator, scale) in [('H', HOUR), ('M', MINUTE), ('S', 1)] {
            if let Some(end) = time.find(designator) {
                let digits = &time[..end];
                total = add(input, total, parse_number(input, digits)?, scale)?;
                time = &time[end + 1..];
            }
        }
        if !time.is_empty() {
            return Err(DurationError::new(
                input,
                "time parts must be integers with H, M, S in that order, each at most once",
            ));
        }
    }
    Ok(total)
}

fn add(input: &str, total: u64, n: u64, scale: u64) -> Result<u64, DurationError> {
    n.checked_mul(scale)
        .and_then(|part| total.checked_add(part))
        .ok_or_else(|| DurationError::new(input, "value is too large"))
}

fn parse_number(input: &str, digits: &str) -> Result<u64, DurationError> {
    if digits.is_empty() {
        return Err(DurationError::new(input, "a unit needs a number before it"));
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        let reason = if digits.starts_with('-') {
            "negative durations are not allowed"
        } else if digits.contains(['.', ',']) {
            "fractional values are not allowed"
        } else {
            "expected a non-negative integer"
        };
        return Err(DurationError::new(input, reason));
    }
    digits
        .parse::<u64>()
        .map_err(|_| DurationError::new(input, "value is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expect: Result<u64, &str>) {
        let got = parse_duration(input)
            .map(|d| d.as_secs())
            .map_err(|e| e.reason().to_owned());
        assert_eq!(got, expect.map_err(str::to_owned), "input {input:?}");
    }

    #[test]
    fn accepts_every_form_of_the_table() {
        check("30s", Ok(30));
        check("0s", Ok(0));
        check("5m", Ok(300));
        check("1h", Ok(3600));
        check("2d", Ok(172_800));
        check("PT30S", Ok(30));
        check("PT5M", Ok(300));
        check("PT1H", Ok(3600));
        check("P2D", Ok(172_800));
        check("PT5M30S", Ok(330));
        check("PT1H30M", Ok(5400));
        check("PT1H30M15S", Ok(5415));
        check("P1DT12H", Ok(129_600));
        check("PT1H15S", Ok(3615));
    }

    #[test]
    fn rejects_with_a_reason() {
        check("-5s", Err("negative durations are not allowed"));
        check("PT-30S", Err("negative durations are not allowed"));
        check("1.5s", Err("fractional values are not allowed"));
        check("PT1.5S", Err("fractional values are not allowed"));
        check("P", Err("`P` must be followed by at least one part"));
        check("PT", Err("`T` must be followed by a time part"));
        check("P1DT", Err("`T` must be followed by a time part"));
        check("", Err("empty string"));
        check("s", Err("a unit needs a number before it"));
        check("PTS", Err("a unit needs a number before it"));
        check("99999999999999999999s", Err("value is too large"));
        check("18446744073709551615d", Err("value is too large"));
    }

    #[test]
    fn rejects_shapes_outside_the_grammar() {
        for input in [
            "1h30m", "PT30S5M", "PT1M1H", "P5M", "P1H", "PT1D", "5w", "5", " 5s", "5s ", "+5s",
            "5S", "pt5m", "P1D2D", "PT1H1H", "PT5M5M", "P1W", "PT5m", "P1DT1D", "5ms", "P1Y",
        ] {
            assert!(
                parse_duration(input).is_err(),
                "{input:?} should be rejected"
            );
        }
    }
}

//! RFC 3339 timestamps of trace messages, read into nanoseconds since the Unix epoch.
//!
//! Only what grace-period filtering needs: a total order and differences. No clock is read here.

/// Parses an RFC 3339 date-time (`2026-11-20T10:00:05.291Z`, `2026-11-20t10:00:05+01:00`; a space
/// instead of `T` is accepted as RFC 3339 §5.6 allows) into nanoseconds since the Unix epoch.
///
/// Fractions beyond nanoseconds are truncated; a leap second (`:60`) counts as the next second.
/// Anything else gives `None`.
pub(crate) fn parse_rfc3339(text: &str) -> Option<i128> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let year = digits(&b[0..4])?;
    let month = digits(&b[5..7])?;
    let day = digits(&b[8..10])?;
    let hour = digits(&b[11..13])?;
    let minute = digits(&b[14..16])?;
    let second = digits(&b[17..19])?;
    if !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut rest = &b[19..];
    let mut nanos: i128 = 0;
    if let Some((b'.', fraction)) = rest.split_first() {
        let len = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
        if len == 0 {
            return None;
        }
        for (i, c) in fraction[..len].iter().enumerate() {
            if i < 9 {
                nanos = nanos * 10 + i128::from(c - b'0');
            }
        }
        for _ in len..9 {
            nanos *= 10;
        }
        rest = &fraction[len..];
    }
    let offset_seconds: i128 = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let hours = digits(&[*h1, *h2])?;
            let minutes = digits(&[*m1, *m2])?;
            if hours > 23 || minutes > 59 {
                return None;
            }
            let offset = i128::from(hours * 3600 + minutes * 60);
            if *sign == b'+' { offset } else { -offset }
        }
        _ => return None,
    };
    let days = days_from_civil(i128::from(year), i128::from(month), i128::from(day));
    let seconds =
        days * 86_400 + i128::from(hour) * 3600 + i128::from(minute) * 60 + i128::from(second)
            - offset_seconds;
    Some(seconds * 1_000_000_000 + nanos)
}

fn digits(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0u32, |acc, c| {
        c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
    })
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(year: i128, month: i128, day: i128) -> i128 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::parse_rfc3339;

    #[track_caller]
    fn check(input: &str, expect: Option<i128>) {
        assert_eq!(parse_rfc3339(input), expect, "{input}");
    }

    #[test]
    fn rfc3339() {
        check("1970-01-01T00:00:00Z", Some(0));
        check("1970-01-01T00:00:01.5Z", Some(1_500_000_000));
        check("2000-02-29T00:00:00Z", Some(951_782_400_000_000_000));
        check("2000-02-29T01:00:00+01:00", Some(951_782_400_000_000_000));
        check("2000-02-28t23:00:00-01:00", Some(951_782_400_000_000_000));
        check("1970-01-01 00:00:00.123456789123Z", Some(123_456_789));
        check("1969-12-31T23:59:59Z", Some(-1_000_000_000));
        check("2001-02-29T00:00:00Z", None);
        check("2026-11-20T10:00:00", None);
        check("2026-11-20T10:00:00.Z", None);
        check("2026-11-20T24:00:00Z", None);
        check("2026-13-20T10:00:00Z", None);
        check("2026-11-20T10:00:00+1:00", None);
        check("x026-11-20T10:00:00Z", None);
        check("2026-11-20", None);
        check("", None);
        check("2026-11-20T10:00:00Zjunk", None);
        check("٢٠٢٦-11-20T10:00:00Z", None);
    }
}

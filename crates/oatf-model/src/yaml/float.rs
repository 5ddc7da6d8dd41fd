//! Decimal text to `f64`, correctly rounded (to nearest, ties to even): what `str::parse::<f64>`
//! gives for the plain scalars of the core schema, without the standard library's table of 651
//! 128-bit powers of five (its Eisel-Lemire step), 10 KB that does not compress and that the
//! validation module carried for the few floats a document holds (D-310). Small values with few
//! digits take one exact multiplication or division (as the standard library's fast path); the rest
//! are computed exactly on big integers. The unit tests compare it with `str::parse` on edge cases
//! and on many generated numbers.

/// Significant digits kept: the first 768 decide the rounding of any `f64` (the most digits a
/// float or a halfway point between two floats has is 767); later ones only say whether the value
/// is above what was kept. The standard library keeps as many.
const KEEP: usize = 800;

/// The finite `f64` nearest to `text`, a decimal number `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
/// (leading zeros allowed); `None` when it is out of range (infinite, as `str::parse` would give) or
/// not such a number. Linear in the length of `text`, bounded work past it.
pub(crate) fn parse_finite(text: &str) -> Option<f64> {
    few_digits(text).or_else(|| exact(text))
}

/// The sign and the rest of a number.
fn sign(bytes: &[u8]) -> (bool, &[u8]) {
    match bytes.first() {
        Some(b'-') => (true, &bytes[1..]),
        Some(b'+') => (false, &bytes[1..]),
        _ => (false, bytes),
    }
}

/// Reads the number after its sign: calls `digit(value, in_fraction)` for each digit of the
/// mantissa, in order (`false` stops the reading: not a number this reader takes), and answers the
/// written exponent (0 without one, saturated far past any float's range); `None` when `rest` is not
/// a number of the grammar of [`parse_finite`] or `digit` stopped.
fn scan(rest: &[u8], mut digit: impl FnMut(u8, bool) -> bool) -> Option<i64> {
    let mut seen_digit = false;
    let mut in_fraction = false;
    let mut at = 0;
    while let Some(&byte) = rest.get(at) {
        match byte {
            b'0'..=b'9' => {
                seen_digit = true;
                if !digit(byte - b'0', in_fraction) {
                    return None;
                }
            }
            b'.' if !in_fraction => in_fraction = true,
            b'e' | b'E' => break,
            _ => return None,
        }
        at += 1;
    }
    if !seen_digit {
        return None;
    }
    let Some(after) = rest.get(at + 1..) else {
        return Some(0);
    };
    let (minus, written) = sign(after);
    if written.is_empty() || !written.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = written.iter().fold(0i64, |value, &byte| {
        (value * 10 + i64::from(byte - b'0')).min(1 << 40)
    });
    Some(if minus { -value } else { value })
}

/// The common case without allocating: at most 15 significant digits and a power of ten of at most
/// 22 either way, both exact in an `f64`, so one multiplication or division rounds correctly (the
/// standard library's fast path). `None` for anything else, which [`exact`] reads.
fn few_digits(text: &str) -> Option<f64> {
    let (negative, rest) = sign(text.as_bytes());
    let mut mantissa = 0u64;
    let mut count = 0;
    let mut exponent = 0i64;
    let written = scan(rest, |digit, in_fraction| {
        if mantissa != 0 || digit != 0 {
            if count == 15 {
                return false;
            }
            mantissa = mantissa * 10 + u64::from(digit);
            count += 1;
        }
        exponent -= i64::from(in_fraction);
        true
    })?;
    exponent += written;
    let magnitude = if mantissa == 0 {
        0.0
    } else if exponent.abs() > 22 {
        return None;
    } else {
        let power = (0..exponent.abs()).fold(1.0f64, |p, _| p * 10.0);
        if exponent < 0 {
            mantissa as f64 / power
        } else {
            mantissa as f64 * power
        }
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// Any decimal number, computed exactly on big integers.
fn exact(text: &str) -> Option<f64> {
    let (negative, rest) = sign(text.as_bytes());
    // The value is `digits × 10^exponent` (plus something below the last digit kept when
    // `truncated`).
    let mut digits: Vec<u8> = Vec::new();
    let mut exponent: i64 = 0;
    let mut truncated = false;
    let written = scan(rest, |digit, in_fraction| {
        if digits.len() < KEEP && (digit != 0 || !digits.is_empty()) {
            digits.push(digit);
            exponent -= i64::from(in_fraction);
        } else if digits.is_empty() {
            // A leading zero.
            exponent -= i64::from(in_fraction);
        } else {
            truncated |= digit != 0;
            exponent += i64::from(!in_fraction);
        }
        true
    })?;
    exponent += written;
    while digits.last() == Some(&0) {
        digits.pop();
        exponent += 1;
    }
    let signed = |magnitude: f64| if negative { -magnitude } else { magnitude };
    let count = digits.len() as i64;
    if count == 0 || count + exponent < -324 {
        // Zero, or below 10^-325: less than half the smallest subnormal.
        return Some(signed(0.0));
    }
    if count + exponent > 309 {
        // At least 10^309: past `f64::MAX`.
        return None;
    }
    let mut number = Big::default();
    for chunk in digits.chunks(9) {
        let (scale, value) = chunk.iter().fold((1u32, 0u32), |(scale, value), &d| {
            (scale * 10, value * 10 + u32::from(d))
        });
        number.mul_add(scale, value);
    }
    let (bits, binary_exponent, inexact) = if exponent >= 0 {
        number.mul_pow10(exponent.unsigned_abs());
        number.top_bits()
    } else {
        let mut divisor = Big(vec![1]);
        divisor.mul_pow10(exponent.unsigned_abs());
        // `number × 2^shift / divisor` has 65 or 66 bits.
        let shift = 65 + divisor.bit_len() - number.bit_len();
        let (mut dividend, divisor) = if shift >= 0 {
            (number.shl(shift.unsigned_abs()), divisor)
        } else {
            (number, divisor.shl(shift.unsigned_abs()))
        };
        // Long division, one bit of the quotient at a time (it has at most 66).
        let mut part = divisor.shl(66);
        let mut quotient = 0u128;
        for bit in (0..67u64).rev() {
            if dividend.at_least(&part) {
                dividend.subtract(&part);
                quotient |= 1 << bit;
            }
            part.halve();
        }
        (quotient, -shift, !dividend.is_zero())
    };
    round(bits, binary_exponent, inexact || truncated).map(signed)
}

/// The `f64` nearest to `(bits + ε) × 2^exponent`, where `0 < ε < 1` when `inexact` and `ε = 0`
/// otherwise; `None` past `f64::MAX`.
fn round(bits: u128, exponent: i64, inexact: bool) -> Option<f64> {
    let length = i64::from(128 - bits.leading_zeros());
    // Bits to drop: at most 53 stay, and the last kept is worth at least 2^-1074.
    let drop = (length - 53).max(-1074 - exponent);
    let (mantissa, exponent) = if drop <= 0 {
        (bits << drop.unsigned_abs(), exponent + drop)
    } else if drop > length {
        return Some(0.0);
    } else {
        let kept = bits >> drop;
        let rest = bits & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        let up = rest > half || (rest == half && (inexact || kept & 1 == 1));
        (kept + u128::from(up), exponent + drop)
    };
    let (mantissa, exponent) = if mantissa == 1 << 53 {
        (mantissa >> 1, exponent + 1)
    } else {
        (mantissa, exponent)
    };
    let mantissa = u64::try_from(mantissa).ok()?;
    if mantissa < 1 << 52 {
        // Subnormal (or zero): the exponent is the smallest.
        return Some(f64::from_bits(mantissa));
    }
    let biased = u64::try_from(exponent + 52 + 1023).ok()?;
    if biased >= 2047 {
        return None;
    }
    Some(f64::from_bits(
        (biased << 52) | (mantissa & ((1 << 52) - 1)),
    ))
}

/// An unsigned big integer, 32-bit limbs, least significant first, no zero limb on top.
#[derive(Default, Clone)]
struct Big(Vec<u32>);

impl Big {
    /// `self × scale + add`.
    fn mul_add(&mut self, scale: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let value = u64::from(*limb) * u64::from(scale) + carry;
            *limb = value as u32;
            carry = value >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// `self × 10^power`.
    fn mul_pow10(&mut self, mut power: u64) {
        while power >= 9 {
            self.mul_add(1_000_000_000, 0);
            power -= 9;
        }
        let scale = (0..power).fold(1u32, |s, _| s * 10);
        self.mul_add(scale, 0);
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn bit_len(&self) -> i64 {
        self.0.last().map_or(0, |top| {
            (self.0.len() as i64 - 1) * 32 + i64::from(32 - top.leading_zeros())
        })
    }

    /// `self × 2^bits`.
    fn shl(&self, bits: u64) -> Big {
        let limbs = (bits / 32) as usize;
        let bits = (bits % 32) as u32;
        let mut out = vec![0u32; limbs];
        let mut carry = 0u32;
        for &limb in &self.0 {
            out.push((limb << bits) | carry);
            carry = if bits == 0 { 0 } else { limb >> (32 - bits) };
        }
        if carry > 0 {
            out.push(carry);
        }
        Big(out)
    }

    /// `self / 2`, rounded down.
    fn halve(&mut self) {
        let mut carry = 0u32;
        for limb in self.0.iter_mut().rev() {
            let low = *limb & 1;
            *limb = (*limb >> 1) | (carry << 31);
            carry = low;
        }
        if self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn at_least(&self, other: &Big) -> bool {
        if self.0.len() != other.0.len() {
            return self.0.len() > other.0.len();
        }
        for (a, b) in self.0.iter().rev().zip(other.0.iter().rev()) {
            if a != b {
                return a > b;
            }
        }
        true
    }

    /// `self − other`, where `self ≥ other`.
    fn subtract(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (at, limb) in self.0.iter_mut().enumerate() {
            let value =
                i64::from(*limb) - i64::from(other.0.get(at).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(value < 0);
            *limb = (value + (borrow << 32)) as u32;
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// The top 66 bits (all of them when fewer), the exponent of their last bit, and whether a
    /// bit below them is set.
    fn top_bits(&self) -> (u128, i64, bool) {
        let drop = (self.bit_len() - 66).max(0);
        let mut bits = 0u128;
        let mut inexact = false;
        for (at, &limb) in self.0.iter().enumerate() {
            let low = at as i64 * 32;
            for bit in 0..32 {
                if limb >> bit & 1 == 1 {
                    let position = low + bit;
                    if position >= drop {
                        bits |= 1 << (position - drop);
                    } else {
                        inexact = true;
                    }
                }
            }
        }
        (bits, drop, inexact)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_finite;

    /// A fixed xorshift sequence from `seed`: the same numbers on every run.
    fn random(seed: u64) -> impl Iterator<Item = u64> {
        let mut state = seed;
        std::iter::from_fn(move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            Some(state)
        })
    }

    fn std_parse(text: &str) -> Option<f64> {
        text.parse::<f64>().ok().filter(|f| f.is_finite())
    }

    fn check(text: &str) {
        let ours = parse_finite(text).map(f64::to_bits);
        let theirs = std_parse(text).map(f64::to_bits);
        assert_eq!(ours, theirs, "{text}");
    }

    #[test]
    fn edges_as_the_standard_library() {
        let long_half = format!(
            "1.00000000000000011102230246251565404236316680908203125{}",
            "0".repeat(900)
        );
        let above_half = format!("{long_half}1");
        let below_half =
            "1.000000000000000111022302462515654042363166809082031249999999".to_owned();
        let tiny = format!("0.{}1", "0".repeat(2000));
        let huge = format!("1{}", "0".repeat(400));
        let many = "7".repeat(1000);
        for text in [
            "0",
            "0.0",
            "-0.0",
            "+0",
            ".0",
            "0.",
            "1",
            "-1",
            "1.5",
            ".5",
            "1.",
            "+.25",
            "0001.2500",
            "1e0",
            "1E5",
            "1e-5",
            "1e+5",
            "1e00005",
            "0e99999",
            "-0e-99999",
            "12345e-00022",
            "3.14159",
            "0.1",
            "0.2",
            "0.3",
            "123456789012345678901234567890",
            "9007199254740992",
            "9007199254740993",
            "9007199254740994",
            "9007199254740995",
            "18446744073709551616",
            "-9223372036854775809",
            "1e22",
            "1e23",
            "8.98846567431158e307",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e308",
            "1e309",
            "-1e309",
            "2.2250738585072014e-308",
            "2.2250738585072011e-308",
            "2.2250738585072012e-308",
            "4.9e-324",
            "5e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "1e-323",
            "1e-400",
            "-1e-400",
            "1e-324",
            "3e-324",
            "4.4501477170144023e-308",
            "1e99999999999999999999",
            "1e-99999999999999999999",
            "0.000000000000000000000000000000001",
            "123.456e-7",
            "9.999999999999999e22",
            &long_half,
            &above_half,
            &below_half,
            &tiny,
            &huge,
            &many,
            "",
            ".",
            "-",
            "e5",
            "1e",
            "1e+",
            "1x",
            "1.2.3",
            "--1",
            "1e5.5",
        ] {
            check(text);
        }
    }

    #[test]
    fn generated_numbers_as_the_standard_library() {
        let mut numbers = random(0x9e37_79b9_7f4a_7c15);
        let mut next = move || numbers.next().unwrap_or_default();
        for _ in 0..30_000 {
            let count = match next() % 10 {
                0 => 790 + next() % 30,
                1..=3 => 16 + next() % 30,
                _ => 1 + next() % 20,
            };
            let mut text = String::new();
            if next() % 4 == 0 {
                text.push('-');
            }
            let dot = next() % (count + 1);
            for at in 0..count {
                if at == dot {
                    text.push('.');
                }
                // Runs of 0 and 9 reach halfway points and carries.
                let digit = match next() % 8 {
                    0 => 0,
                    1 => 9,
                    _ => next() % 10,
                };
                text.push(char::from(b'0' + digit as u8));
            }
            if next() % 2 == 0 {
                let exponent = (next() % 700) as i64 - 350;
                text.push_str(&format!("e{exponent}"));
            }
            check(&text);
        }
    }

    #[test]
    fn every_float_written_shortest_and_long_reads_back() {
        for state in random(0x2545_f491_4f6c_dd1d).take(20_000) {
            let value = f64::from_bits(state >> 1);
            if !value.is_finite() {
                continue;
            }
            check(&format!("{value:e}"));
            check(&format!("{value:.30e}"));
            // Its exact value, every digit.
            check(&format!("{value:.800e}"));
        }
    }

    /// `factor × 5^power` in decimal digits, most significant first (schoolbook, for the tests).
    fn times_power_of_five(factor: u64, power: u32) -> String {
        let mut digits: Vec<u32> = factor
            .to_string()
            .bytes()
            .rev()
            .map(|b| u32::from(b - b'0'))
            .collect();
        for _ in 0..power {
            let mut carry = 0;
            for digit in &mut digits {
                let value = *digit * 5 + carry;
                *digit = value % 10;
                carry = value / 10;
            }
            while carry > 0 {
                digits.push(carry % 10);
                carry /= 10;
            }
        }
        digits
            .iter()
            .rev()
            .map(|d| char::from_digit(*d, 10).unwrap_or('?'))
            .collect()
    }

    #[test]
    fn subnormal_halfway_points_need_every_digit() {
        // `(2m + 1) × 2^-1075`, halfway between two subnormals (or the smallest normals): up to 767
        // significant digits, all of which decide the rounding.
        for m in [
            0u64,
            1,
            2,
            3,
            12345,
            (1 << 52) - 2,
            (1 << 52) - 1,
            1 << 52,
            (1 << 53) - 1,
        ] {
            let digits = times_power_of_five(2 * m + 1, 1075);
            let last = digits.len() - 1;
            let mut below = digits.clone().into_bytes();
            // The last digit of 5^n (times an odd number) is 5: one less is 4.
            below[last] -= 1;
            let below = String::from_utf8(below).unwrap_or_default();
            for text in [
                format!("{digits}e-1075"),
                format!("{digits}1e-1076"),
                format!("{below}e-1075"),
                format!("{below}9999999999e-1085"),
            ] {
                check(&text);
            }
        }
    }

    #[test]
    fn halfway_points_round_to_even() {
        // `(2m + 1) × 2^e`, the point halfway between two floats with 53-bit mantissas, written
        // exactly (u128 holds it for these exponents), and one unit of its last digit either side.
        for state in random(0x1234_5678_9abc_def1).take(20_000) {
            let odd = u128::from((1u64 << 53) | (state & ((1 << 53) - 1))) * 2 + 1;
            let exponent = (state >> 53) as i64 % 60 - 20;
            let (digits, power) = if exponent >= 0 {
                (odd << exponent, 0)
            } else {
                (odd * 5u128.pow(exponent.unsigned_abs() as u32), exponent)
            };
            for text in [
                format!("{digits}e{power}"),
                format!("{}e{power}", digits + 1),
                format!("{}e{power}", digits - 1),
                format!("{digits}0000000000000000000001e{}", power - 22),
            ] {
                check(&text);
            }
        }
    }
}

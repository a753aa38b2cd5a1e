//! Kubernetes resource quantities as the scheduler reads them (`k8s.io/apimachinery`
//! `pkg/api/resource/quantity.go`: `ParseQuantity`, `Quantity.Value`, `Quantity.MilliValue`):
//! CPU in millicores, memory and bytes in units, both rounded up.
//!
//! Grammar (quantity.go's doc comment and its scanner `parseQuantityString`):
//! `[+-] digits [. digits] suffix`, where the suffix is a decimal SI one (`n u m "" k M G T P
//! E`), a binary SI one (`Ki Mi Gi Ti Pi Ei`) or a decimal exponent (`e3`, `E-2`, `e+6`). Like
//! the Go scanner, "1.", ".5", "+", "-" and "." are accepted (the last three are 0), "1e" and
//! "1K" are not. Values are exact: 19 significant digits at most (placer's limit; a canonical
//! quantity, as the API server stores it, has at most 19), exponents within ±2³¹.
//!
//! Rounding is Go's: `Value()` and `MilliValue()` round the magnitude up (away from zero), so
//! `0.1m` of CPU is 1 millicore and `1.5` bytes are 2. A result beyond `i64::MAX` saturates
//! there (Go caps a quantity at 2⁶³ − 1 base units).

/// A parsed quantity: ±`significand` × 10^`exp10` × 2^`exp2`, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantity {
    negative: bool,
    significand: u64,
    exp10: i64,
    exp2: u32,
}

/// Most significant digits kept exactly (10¹⁹ − 1 < 2⁶⁴).
const MAX_DIGITS: usize = 19;

impl Quantity {
    /// Parses `text` as quantity.go's `ParseQuantity` does.
    ///
    /// # Complexity
    /// O(len(text)).
    ///
    /// # Errors
    /// A message when `text` is empty, does not match the grammar, has an unknown suffix,
    /// more than 19 significant digits or an exponent beyond ±2³¹.
    ///
    /// # Examples
    /// `500m` is 500 millicores, `1Gi` is 2³⁰ bytes, `1e3` and `1k` are 1000 (see the tests).
    pub fn parse(text: &str) -> Result<Quantity, String> {
        if text.is_empty() {
            return Err("an empty string is not a quantity".to_owned());
        }
        let bytes = text.as_bytes();
        let mut pos = 0;
        let negative = match bytes.first() {
            Some(b'-') => {
                pos += 1;
                true
            }
            Some(b'+') => {
                pos += 1;
                false
            }
            _ => false,
        };
        let digits_end = |from: usize| {
            bytes[from..].iter().position(|b| !b.is_ascii_digit()).map_or(bytes.len(), |k| from + k)
        };
        let int_end = digits_end(pos);
        let int_digits = &text[pos..int_end];
        pos = int_end;
        let mut frac_digits = "";
        if bytes.get(pos) == Some(&b'.') {
            let frac_end = digits_end(pos + 1);
            frac_digits = &text[pos + 1..frac_end];
            pos = frac_end;
        }
        let suffix = &text[pos..];
        check_suffix_shape(suffix, text)?;
        let (suffix_exp10, exp2) = interpret_suffix(suffix)
            .ok_or_else(|| format!("unknown suffix {suffix:?} in quantity {text:?}"))?;

        // The digits as one integer, scaled by 10^(−fraction digits), without leading or
        // trailing zeros.
        let mut exp10 = i64::from(suffix_exp10) - frac_digits.len() as i64;
        let all: Vec<u8> = int_digits.bytes().chain(frac_digits.bytes()).collect();
        let first = all.iter().position(|&d| d != b'0').unwrap_or(all.len());
        let mut significant = &all[first..];
        while let Some((&b'0', rest)) = significant.split_last() {
            significant = rest;
            exp10 += 1;
        }
        if significant.len() > MAX_DIGITS {
            return Err(format!("quantity {text:?} has more than {MAX_DIGITS} significant digits"));
        }
        let significand = significant.iter().fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0'));
        if significand == 0 {
            return Ok(Quantity { negative: false, significand: 0, exp10: 0, exp2: 0 });
        }
        Ok(Quantity { negative, significand, exp10, exp2 })
    }

    /// The value in base units (bytes, cores), rounded away from zero, saturating at
    /// `i64::MAX` / `-i64::MAX` (Go's `Quantity.Value`).
    ///
    /// # Complexity
    /// O(1).
    pub fn value(&self) -> i64 {
        self.scaled(0)
    }

    /// The value in thousandths (millicores), rounded away from zero, saturating (Go's
    /// `Quantity.MilliValue`).
    ///
    /// # Complexity
    /// O(1).
    pub fn milli_value(&self) -> i64 {
        self.scaled(3)
    }

    /// Whether the quantity is below zero.
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// ⌈|q| × 10^`s`⌉ with q's sign, saturating at ±`i64::MAX`.
    fn scaled(&self, s: i64) -> i64 {
        let magnitude = self.magnitude(s);
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }

    fn magnitude(&self, s: i64) -> i64 {
        if self.significand == 0 {
            return 0;
        }
        // significand < 2⁶⁴ and exp2 ≤ 60, so the product fits in u128 (< 2¹²⁴ < 10³⁸).
        let n = u128::from(self.significand) << self.exp2;
        let k = self.exp10 + s;
        let exact = if k >= 0 {
            u32::try_from(k).ok().and_then(|k| 10u128.checked_pow(k)).and_then(|p| n.checked_mul(p))
        } else if -k >= 38 {
            Some(1) // 0 < n / 10^-k < 1: rounds up to 1
        } else {
            let p = 10u128.pow((-k) as u32);
            Some(n / p + u128::from(!n.is_multiple_of(p)))
        };
        exact.and_then(|v| i64::try_from(v).ok()).unwrap_or(i64::MAX)
    }
}

/// The scanner's shape check of the suffix: letters of `eEinumkKMGTP`, then an optional sign,
/// then digits to the end (quantity.go `parseQuantityString`).
fn check_suffix_shape(suffix: &str, text: &str) -> Result<(), String> {
    let letters = suffix.bytes().take_while(|b| b"eEinumkKMGTP".contains(b)).count();
    let mut rest = &suffix.as_bytes()[letters..];
    if let Some((b'+' | b'-', tail)) = rest.split_first() {
        rest = tail;
    }
    if rest.iter().all(u8::is_ascii_digit) {
        Ok(())
    } else {
        Err(format!("{text:?} is not a quantity (expected e.g. 500m, 2, 1.5Gi, 1e3)"))
    }
}

/// (power of ten, power of two) of a suffix (quantity.go `suffixHandler.interpret`: decimal
/// SI, then binary SI, then `e`/`E` and a base-10 integer).
fn interpret_suffix(suffix: &str) -> Option<(i32, u32)> {
    let decimal = match suffix {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(e) = decimal {
        return Some((e, 0));
    }
    let binary = match suffix {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(p) = binary {
        return Some((0, p));
    }
    let exponent = suffix.strip_prefix(['e', 'E']).filter(|e| !e.is_empty())?;
    // Go's strconv.ParseInt: an optional sign, then decimal digits.
    let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    exponent.parse::<i32>().ok().map(|e| (e, 0))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn milli(text: &str) -> i64 {
        Quantity::parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).milli_value()
    }

    fn value(text: &str) -> i64 {
        Quantity::parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).value()
    }

    /// The forms of the Kubernetes docs ("Resource units in Kubernetes": 0.1 = 100m CPU;
    /// memory as 128974848, 129e6, 129M, 128974848000m, 123Mi).
    #[test]
    fn kubernetes_docs_examples() {
        assert_eq!(milli("0.1"), 100);
        assert_eq!(milli("100m"), 100);
        assert_eq!(milli("1"), 1000);
        assert_eq!(milli("2"), 2000);
        assert_eq!(milli("500m"), 500);
        assert_eq!(value("128974848"), 128_974_848);
        assert_eq!(value("129e6"), 129_000_000);
        assert_eq!(value("129M"), 129_000_000);
        assert_eq!(value("128974848000m"), 128_974_848);
        assert_eq!(value("123Mi"), 123 * 1024 * 1024);
        assert_eq!(value("400m"), 1); // 0.4 byte rounds up
    }

    #[test]
    fn every_suffix() {
        let decimal = [
            ("1n", 1e-9),
            ("1u", 1e-6),
            ("1m", 1e-3),
            ("1", 1.0),
            ("1k", 1e3),
            ("1M", 1e6),
            ("1G", 1e9),
            ("1T", 1e12),
            ("1P", 1e15),
        ];
        for (text, v) in decimal {
            assert_eq!(milli(text), (v * 1000.0_f64).ceil() as i64, "{text}");
        }
        assert_eq!(value("1E"), 1_000_000_000_000_000_000);
        assert_eq!(milli("1E"), i64::MAX); // 10²¹ saturates
        for (k, text) in ["1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"].iter().enumerate() {
            assert_eq!(value(text), 1i64 << (10 * (k + 1)), "{text}");
        }
        assert_eq!(value("7Ei"), 7 << 60);
        assert_eq!(value("8Ei"), i64::MAX); // 2⁶³ saturates
    }

    #[test]
    fn decimal_exponents() {
        assert_eq!(value("1e3"), 1000);
        assert_eq!(value("1E3"), 1000);
        assert_eq!(value("1e+3"), 1000);
        assert_eq!(value("1E+3"), 1000);
        assert_eq!(milli("1e-3"), 1);
        assert_eq!(value("1e-3"), 1); // rounds up
        assert_eq!(value("2.5e3"), 2500);
        assert_eq!(value("1e0"), 1);
        assert_eq!(value("1e18"), 1_000_000_000_000_000_000);
        assert_eq!(value("1e19"), i64::MAX);
        assert_eq!(value("1e2147483647"), i64::MAX);
        assert_eq!(value("1e-2147483648"), 1);
    }

    #[test]
    fn fractions_round_up() {
        assert_eq!(milli("0.0001"), 1); // 0.1m → 1m (quantity.go's own example)
        assert_eq!(milli("1.0005"), 1001);
        assert_eq!(milli("1.5"), 1500);
        assert_eq!(value("1.5Gi"), 3 << 29);
        assert_eq!(value("0.5Ki"), 512);
        assert_eq!(value("1.1"), 2);
        assert_eq!(value("1.000000001"), 2);
        assert_eq!(milli("250m"), 250);
        assert_eq!(value("250m"), 1);
        assert_eq!(milli("1n"), 1);
        assert_eq!(value("0.000000000000000000000000000000000000001"), 1);
    }

    /// The Go scanner's permissive corners: a bare sign or dot is 0, "1." and ".5" are numbers,
    /// leading and trailing zeros are free.
    #[test]
    fn go_scanner_corners() {
        assert_eq!(value("0"), 0);
        assert_eq!(value("+"), 0);
        assert_eq!(value("-"), 0);
        assert_eq!(value("."), 0);
        assert_eq!(value("-0"), 0);
        assert_eq!(value("1."), 1);
        assert_eq!(milli(".5"), 500);
        assert_eq!(value("1.G"), 1_000_000_000);
        assert_eq!(value("+5"), 5);
        assert_eq!(value("000000000000000000000000000001"), 1);
        assert_eq!(value("1.000000000000000000000000000000"), 1);
        assert_eq!(value("10000000000000000000000000000000m"), i64::MAX);
        assert_eq!(value("9223372036854775807"), i64::MAX);
        assert_eq!(value("9223372036854775806"), i64::MAX - 1);
    }

    #[test]
    fn negatives_keep_their_sign() {
        let q = Quantity::parse("-1.5").unwrap();
        assert!(q.is_negative());
        assert_eq!((q.value(), q.milli_value()), (-2, -1500));
        assert!(!Quantity::parse("-0").unwrap().is_negative());
    }

    #[test]
    fn malformed_quantities_are_refused() {
        for bad in [
            "",
            "1e",
            "1E+",
            "1K",
            "1ki",
            "1KI",
            "1Gb",
            "1 Gi",
            " 1",
            "1 ",
            "1.5.5",
            "abc",
            "1Mi3",
            "1e3m",
            "1mm",
            "1e1.5",
            "1e--3",
            "--1",
            "1,5",
            "0x10",
            "1_000",
            "1i",
            "1e99999999999",
            "12345678901234567891",
            "1.2345678901234567891",
        ] {
            assert!(Quantity::parse(bad).is_err(), "{bad:?} parsed");
        }
        assert!(Quantity::parse("1234567890123456789").is_ok()); // 19 digits
        assert!(Quantity::parse("12345678901234567890000").is_ok()); // trailing zeros are free
    }
}

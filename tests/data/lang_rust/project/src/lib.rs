//! Sums that skip nothing.
#![deny(warnings)]

/// The sum of `values`.
pub fn total(values: &[i64]) -> i64 {
    values.iter().filter(|v| **v > 0).sum()
}

#[cfg(test)]
mod tests {
    use super::total;

    #[test]
    fn total_of_positives() {
        assert_eq!(total(&[1, 2, 3]), 6);
    }
}

//! The ad-hoc case filter (`OATF_CONFORMANCE=DUR-,-DUR-004`).

/// The environment variable read by [`Filter::from_env`].
pub const FILTER_ENV: &str = "OATF_CONFORMANCE";

/// Which cases to run: comma-separated terms; a term selects the cases whose id or file contains it,
/// a term starting with `-` excludes them. With no selecting term, every case not excluded runs.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    include: Vec<String>,
    exclude: Vec<String>,
}

impl Filter {
    /// Parses a filter specification.
    pub fn parse(spec: &str) -> Self {
        let mut filter = Filter::default();
        for term in spec.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            match term.strip_prefix('-') {
                Some(excluded) if !excluded.is_empty() => filter.exclude.push(excluded.to_owned()),
                Some(_) => {}
                None => filter.include.push(term.to_owned()),
            }
        }
        filter
    }

    /// The filter in [`FILTER_ENV`], or none.
    pub fn from_env() -> Self {
        std::env::var(FILTER_ENV)
            .map(|s| Filter::parse(&s))
            .unwrap_or_default()
    }

    /// Whether the filter selects nothing away (every case runs).
    pub fn is_empty(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty()
    }

    /// Whether a case with this id and file runs.
    pub fn selects(&self, id: &str, file: &str) -> bool {
        let hit = |term: &String| id.contains(term.as_str()) || file.contains(term.as_str());
        (self.include.is_empty() || self.include.iter().any(hit)) && !self.exclude.iter().any(hit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_and_exclude_terms() {
        let filter = Filter::parse("DUR-, -DUR-004,");
        assert!(filter.selects("DUR-001", "primitives/parse-duration.yaml"));
        assert!(!filter.selects("DUR-004", "primitives/parse-duration.yaml"));
        assert!(!filter.selects("COND-001", "primitives/evaluate-condition.yaml"));
        let only_exclude = Filter::parse("-validate/");
        assert!(only_exclude.selects("COND-001", "primitives/evaluate-condition.yaml"));
        assert!(!only_exclude.selects("VAL-001a", "validate/suite.yaml"));
    }
}

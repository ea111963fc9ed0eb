//! Scenario errors: every one names the field and the offending value.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioError {
    /// The file is not valid TOML or a value has the wrong type; the message
    /// from the TOML parser names the key and line.
    Parse(String),
    Invalid { field: String, value: String, reason: String },
}

impl ScenarioError {
    pub fn invalid(field: impl Into<String>, value: impl fmt::Display, reason: impl Into<String>) -> Self {
        ScenarioError::Invalid { field: field.into(), value: value.to_string(), reason: reason.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::Parse(m) => write!(f, "scenario is not valid: {}", m.trim_end()),
            ScenarioError::Invalid { field, value, reason } => write!(f, "{field} = {value}: {reason}"),
        }
    }
}

impl std::error::Error for ScenarioError {}

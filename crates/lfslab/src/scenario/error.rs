//! Scenario errors: every one names the field and the offending value.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioError {
    /// The file is not valid TOML or a value has the wrong type; the message
    /// from the TOML parser names the key and line.
    Parse(String),
    Invalid {
        field: String,
        value: String,
        reason: String,
    },
}

impl ScenarioError {
    pub fn invalid(field: impl Into<String>, value: impl fmt::Display, reason: impl Into<String>) -> Self {
        ScenarioError::Invalid { field: field.into(), value: value.to_string(), reason: reason.into() }
    }

    /// Say which `--set` override a bad value came from, so the user does
    /// not look for it in the file (`job[0].bs` is set by `job.0.bs=...`).
    pub fn with_overrides(self, overrides: &[String]) -> Self {
        match self {
            ScenarioError::Invalid { field, value, reason } => {
                let dotted = field.replace('[', ".").replace(']', "");
                let from = overrides.iter().find(|o| o.split_once('=').is_some_and(|(k, _)| k.trim() == dotted));
                let reason = match from {
                    Some(o) => format!("{reason} (set by --set {o})"),
                    None => reason,
                };
                ScenarioError::Invalid { field, value, reason }
            }
            ScenarioError::Parse(m) if !overrides.is_empty() => ScenarioError::Parse(format!(
                "{} (after the --set overrides {}; line numbers refer to the scenario with them applied)",
                m.trim_end(),
                overrides.join(", ")
            )),
            e => e,
        }
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

//! LLM generation for `synthesize` blocks (SDK §6.3, §7.3a): the extension point a tool that plays the
//! attacker implements, and its error. The SDK ships no provider.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An LLM content generator for `synthesize` blocks (SDK §6.3). The SDK ships none.
pub trait GenerationProvider: Send + Sync {
    /// Generates protocol-conformant content for `protocol` (`mcp`, `a2a`, `ag_ui`, …) from an
    /// already interpolated `prompt`; `response_context` is tool-defined shaping metadata.
    fn generate(
        &self,
        prompt: &str,
        protocol: &str,
        response_context: &Value,
    ) -> Result<Value, GenerationError>;
}

/// An LLM generation failure (SDK §7.3a), returned by a [`GenerationProvider`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationError {
    kind: GenerationErrorKind,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    phase_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prompt_preview: Option<String>,
}

/// The kind of a [`GenerationError`] (SDK §2.20 `GenerationErrorKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum GenerationErrorKind {
    /// No provider is configured but a `synthesize` block was met.
    ProviderUnavailable,
    /// The model failed.
    ModelError,
    /// The output does not conform to the protocol binding.
    ValidationFailure,
    /// The provider timed out.
    Timeout,
    /// The provider refused the content.
    ContentPolicy,
}

impl GenerationErrorKind {
    /// The canonical string of the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            GenerationErrorKind::ProviderUnavailable => "provider_unavailable",
            GenerationErrorKind::ModelError => "model_error",
            GenerationErrorKind::ValidationFailure => "validation_failure",
            GenerationErrorKind::Timeout => "timeout",
            GenerationErrorKind::ContentPolicy => "content_policy",
        }
    }
}

impl fmt::Display for GenerationErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The longest prompt preview kept in a [`GenerationError`], in characters (SDK §7.3a).
const PROMPT_PREVIEW_CHARS: usize = 200;

impl GenerationError {
    /// An error of `kind` described by `message`.
    pub fn new(kind: GenerationErrorKind, message: impl Into<String>) -> Self {
        GenerationError {
            kind,
            message: message.into(),
            phase_name: None,
            prompt_preview: None,
        }
    }

    /// The same error with the phase it happened in (set by the SDK, not the provider).
    pub fn with_phase_name(mut self, phase_name: impl Into<String>) -> Self {
        self.phase_name = Some(phase_name.into());
        self
    }

    /// The same error with the first 200 characters of `prompt` as its preview.
    pub fn with_prompt(mut self, prompt: &str) -> Self {
        self.prompt_preview = Some(prompt.chars().take(PROMPT_PREVIEW_CHARS).collect());
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> GenerationErrorKind {
        self.kind
    }

    /// A human-readable description.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The phase during which generation was attempted.
    pub fn phase_name(&self) -> Option<&str> {
        self.phase_name.as_deref()
    }

    /// The first 200 characters of the resolved prompt.
    pub fn prompt_preview(&self) -> Option<&str> {
        self.prompt_preview.as_deref()
    }
}

impl fmt::Display for GenerationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl std::error::Error for GenerationError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A provider that echoes the prompt as MCP tool-call content, or fails on an empty prompt.
    struct Echo;

    impl GenerationProvider for Echo {
        fn generate(
            &self,
            prompt: &str,
            protocol: &str,
            _response_context: &Value,
        ) -> Result<Value, GenerationError> {
            if prompt.is_empty() {
                return Err(GenerationError::new(
                    GenerationErrorKind::ModelError,
                    "empty prompt",
                ));
            }
            Ok(json!({"protocol": protocol, "content": [{"type": "text", "text": prompt}]}))
        }
    }

    #[test]
    fn a_provider_is_an_object_safe_shareable_extension_point() {
        let provider: std::sync::Arc<dyn GenerationProvider> = std::sync::Arc::new(Echo);
        let generated = provider
            .generate("say hi", "mcp", &json!({}))
            .expect("generated");
        assert_eq!(generated["content"][0]["text"], "say hi");
        assert_eq!(generated["protocol"], "mcp");
        let error = provider
            .generate("", "mcp", &json!({}))
            .expect_err("an empty prompt fails");
        assert_eq!(error.kind(), GenerationErrorKind::ModelError);
        assert_eq!(error.to_string(), "model_error: empty prompt");
    }

    #[test]
    fn the_error_keeps_phase_and_a_200_character_preview() {
        let long = "é".repeat(300);
        let error = GenerationError::new(GenerationErrorKind::Timeout, "slow")
            .with_phase_name("exploit")
            .with_prompt(&long);
        assert_eq!(error.phase_name(), Some("exploit"));
        assert_eq!(error.prompt_preview().map(|p| p.chars().count()), Some(200));
        let value = serde_json::to_value(&error).expect("serializes");
        assert_eq!(value["kind"], "timeout");
    }
}

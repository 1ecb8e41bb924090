//! The prompt overrides of `--system` and `--section`: each value is the
//! text itself or `@FILE` (`@@` for text that starts with `@`), read and
//! checked once, so a bad one is a one-line usage error before anything
//! starts. They shape the transport a command builds.

use std::path::Path;
use std::sync::Arc;

use agent_core::Transport;
use agent_native::{AnswerMode, NativeTransport};
use agent_text::{PromptBuilder, Section, TextTransport};

use crate::cli::{PromptOverrideArgs, TransportKind};
use crate::exit::CliError;

/// Largest prompt file read, in bytes.
const MAX_PROMPT_FILE_BYTES: u64 = 1024 * 1024;

/// The sections `--section` names, as a user writes them.
const SECTION_NAMES: &[(&str, Section)] = &[
    ("role", Section::Role),
    ("tools", Section::Tools),
    ("format", Section::Format),
    ("endings", Section::Endings),
    ("rules", Section::Rules),
    ("intro", Section::Intro),
];

/// The prompt overrides of a command, read and checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct PromptOverrides {
    system: Option<String>,
    sections: Vec<(Section, String)>,
    answer_mode: Option<AnswerMode>,
}

impl PromptOverrides {
    /// Reads `--system` and `--section`: files are read now, names checked.
    pub(crate) fn read(args: &PromptOverrideArgs) -> Result<Self, CliError> {
        let system = args
            .system
            .as_deref()
            .map(|value| text_or_file(value, "--system"))
            .transpose()?;
        let mut sections: Vec<(Section, String)> = Vec::new();
        for entry in &args.section {
            let Some((name, value)) = entry.split_once('=') else {
                return Err(CliError::Usage(format!(
                    "--section takes NAME=TEXT or NAME=@FILE (got `{entry}`); names: {}",
                    section_names()
                )));
            };
            let section = section(name.trim())?;
            if sections.iter().any(|(s, _)| *s == section) {
                return Err(CliError::Usage(format!(
                    "--section {} is given twice",
                    name.trim()
                )));
            }
            if section == Section::Role && system.is_some() {
                return Err(CliError::Usage(
                    "--system and --section role=… both replace the role section: give one".into(),
                ));
            }
            sections.push((section, text_or_file(value, "--section")?));
        }
        Ok(Self {
            system,
            sections,
            answer_mode: args.answer_mode.map(AnswerMode::from),
        })
    }

    /// The transport of `kind` with these overrides, for runs with the
    /// answer turn on or off. Sections belong to the text transport's
    /// prompt: the native one has only `--system`.
    pub(crate) fn transport(
        &self,
        kind: TransportKind,
        answer_turn: bool,
    ) -> Result<Arc<dyn Transport>, CliError> {
        match kind {
            TransportKind::Text => {
                if self.answer_mode.is_some() {
                    return Err(CliError::Usage(
                        "--answer-mode is for the native transport; the text transport answers with `Final Answer:`".into(),
                    ));
                }
                let mut prompt = PromptBuilder::default();
                if let Some(system) = &self.system {
                    prompt = prompt.with_section(Section::Role, system.clone());
                }
                for (section, text) in &self.sections {
                    prompt = prompt.with_section(*section, text.clone());
                }
                Ok(Arc::new(TextTransport::new().with_prompt(prompt)))
            }
            TransportKind::Native => {
                if !self.sections.is_empty() {
                    return Err(CliError::Usage(
                        "--section replaces parts of the text transport's prompt; the native transport's whole system prompt is --system".into(),
                    ));
                }
                // Answers after calls come on the answer turn: without it
                // the model answers in words.
                let mode = match (self.answer_mode, answer_turn) {
                    (Some(AnswerMode::AfterCalls), false) => {
                        return Err(CliError::Usage(
                            "--answer-mode calls needs the answer turn: drop --no-answer-turn, or choose tool or words".into(),
                        ));
                    }
                    (Some(mode), _) => mode,
                    (None, true) => AnswerMode::AfterCalls,
                    (None, false) => AnswerMode::Words,
                };
                let mut transport = NativeTransport::new().with_answer_mode(mode);
                if let Some(system) = &self.system {
                    transport = transport.with_system_prompt(system.clone());
                }
                Ok(Arc::new(transport))
            }
        }
    }
}

/// A section by the name a user gives it.
fn section(name: &str) -> Result<Section, CliError> {
    SECTION_NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, s)| *s)
        .ok_or_else(|| {
            CliError::Usage(format!(
                "unknown prompt section `{name}` (sections: {})",
                section_names()
            ))
        })
}

fn section_names() -> String {
    SECTION_NAMES
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The value itself, or the contents of the file after `@`.
fn text_or_file(value: &str, flag: &str) -> Result<String, CliError> {
    if let Some(literal) = value.strip_prefix("@@") {
        return Ok(format!("@{literal}"));
    }
    let Some(path) = value.strip_prefix('@') else {
        return Ok(value.to_string());
    };
    let path = Path::new(path);
    let error = |reason: String| {
        CliError::Usage(format!(
            "cannot read the {flag} file {}: {reason}",
            path.display()
        ))
    };
    let size = std::fs::metadata(path)
        .map_err(|e| error(e.to_string()))?
        .len();
    if size > MAX_PROMPT_FILE_BYTES {
        return Err(error(format!(
            "it is {size} bytes; a prompt file is at most {MAX_PROMPT_FILE_BYTES}"
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| error(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| error("it is not UTF-8 text".into()))?;
    // A file's final newline is not part of the section.
    Ok(text.strip_suffix('\n').unwrap_or(&text).to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn args(system: Option<&str>, sections: &[&str]) -> PromptOverrideArgs {
        PromptOverrideArgs {
            answer_mode: None,
            system: system.map(String::from),
            section: sections.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn values_are_text_or_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("role.txt");
        std::fs::write(&file, "From a file.\n").unwrap();
        let read = PromptOverrides::read(&args(
            Some(&format!("@{}", file.display())),
            &["rules=", "Intro=@@home"],
        ))
        .unwrap();
        assert_eq!(read.system.as_deref(), Some("From a file."));
        assert_eq!(
            read.sections,
            [
                (Section::Rules, String::new()),
                (Section::Intro, "@home".into())
            ]
        );
    }

    #[test]
    fn bad_values_are_usage_errors() {
        let cases: &[(Option<&str>, &[&str], &str)] = &[
            (None, &["nope=x"], "unknown prompt section `nope`"),
            (None, &["rules"], "NAME=TEXT"),
            (None, &["rules=a", "rules=b"], "given twice"),
            (Some("x"), &["role=y"], "give one"),
            (Some("@/no/such/file"), &[], "cannot read the --system file"),
        ];
        for (system, sections, expected) in cases {
            let err = PromptOverrides::read(&args(*system, sections)).unwrap_err();
            assert!(err.to_string().contains(expected), "{err}");
        }
        let sections = PromptOverrides::read(&args(None, &["rules=x"])).unwrap();
        let err = sections.transport(TransportKind::Native, true).unwrap_err();
        assert!(err.to_string().contains("--system"), "{err}");
    }

    #[test]
    fn the_answer_mode_is_the_native_transports_and_needs_its_answer_turn() {
        let mut with_mode = args(None, &[]);
        with_mode.answer_mode = Some(crate::cli::AnswerModeArg::Calls);
        let overrides = PromptOverrides::read(&with_mode).unwrap();
        let err = overrides.transport(TransportKind::Text, true).unwrap_err();
        assert!(err.to_string().contains("native transport"), "{err}");
        let err = overrides
            .transport(TransportKind::Native, false)
            .unwrap_err();
        assert!(err.to_string().contains("--no-answer-turn"), "{err}");
        assert!(overrides.transport(TransportKind::Native, true).is_ok());
        // Without the flag, no answer turn means answers in words.
        let plain = PromptOverrides::read(&args(None, &[])).unwrap();
        assert!(plain.transport(TransportKind::Native, false).is_ok());
    }
}

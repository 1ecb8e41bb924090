//! The one-string form of a stdio server (`--mcp 'COMMAND ARGS'`): shell-like
//! word splitting with quotes, leading `NAME=VALUE` environment assignments,
//! and a server name derived from the command. Nothing runs through a shell:
//! no expansion of variables, `~` or globs.

use super::config::{McpServerConfig, McpTransport};
use super::config_file::McpConfigError;

/// Splits `line` into words the way a POSIX shell would, without expanding
/// anything: whitespace separates words; `'…'` is literal; inside `"…"` a
/// backslash escapes `"`, `\`, `$` and `` ` ``; elsewhere a backslash
/// escapes the next character.
///
/// ```
/// use agent_tools::mcp::split_command_line;
///
/// let words = split_command_line(r#"server --root "My Files" 'a b' c\ d"#).unwrap();
/// assert_eq!(words, ["server", "--root", "My Files", "a b", "c d"]);
/// ```
pub fn split_command_line(line: &str) -> Result<Vec<String>, McpConfigError> {
    let error = |reason: &str| McpConfigError::CommandLine {
        line: line.to_string(),
        reason: reason.to_string(),
    };
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(error("a single quote is not closed")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(error("a double quote is not closed")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(error("a double quote is not closed")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => word.push(c),
                    None => return Err(error("the line ends with a lone backslash")),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

impl McpServerConfig {
    /// A stdio server from one command line, as the CLI's `--mcp` takes it:
    /// `[NAME=VALUE …] COMMAND [ARGS …]`. The server is named after what it
    /// runs (the package for `npx`/`uvx`/`bunx`/`pnpx`, the script for
    /// `node`/`python`/`deno`/`bun`, else the command); rename it with
    /// [`with_name`](Self::with_name).
    ///
    /// ```
    /// use agent_tools::mcp::{McpServerConfig, McpTransport};
    ///
    /// let server = McpServerConfig::from_command_line(
    ///     "LOG_LEVEL=debug npx -y @modelcontextprotocol/server-filesystem '/srv/my data'",
    /// )
    /// .unwrap();
    /// assert_eq!(server.name, "server-filesystem");
    /// let McpTransport::Stdio { command, args, env, .. } = &server.transport else { panic!() };
    /// assert_eq!(command, "npx");
    /// assert_eq!(args, &["-y", "@modelcontextprotocol/server-filesystem", "/srv/my data"]);
    /// assert_eq!(env["LOG_LEVEL"], "debug");
    /// ```
    pub fn from_command_line(line: &str) -> Result<Self, McpConfigError> {
        let mut words = split_command_line(line)?.into_iter().peekable();
        let mut env = std::collections::BTreeMap::new();
        while let Some((key, value)) = words.peek().and_then(|w| env_assignment(w)) {
            env.insert(key, value);
            words.next();
        }
        let Some(command) = words.next() else {
            return Err(McpConfigError::CommandLine {
                line: line.to_string(),
                reason: "no command to run".to_string(),
            });
        };
        let args: Vec<String> = words.collect();
        let name = derive_name(&command, &args);
        Ok(Self::new(
            name,
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd: None,
            },
        ))
    }
}

/// `NAME=VALUE` with a shell variable name, split.
fn env_assignment(word: &str) -> Option<(String, String)> {
    let (key, value) = word.split_once('=')?;
    let mut chars = key.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (key.to_string(), value.to_string()))
}

/// A server name for `command args`: see [`McpServerConfig::from_command_line`].
fn derive_name(command: &str, args: &[String]) -> String {
    let program = file_stem(file_name(command));
    let first_operand = |skip: &[&str]| {
        args.iter()
            .map(String::as_str)
            .find(|a| !a.starts_with('-') && !skip.contains(a))
    };
    let base = match program {
        "npx" | "uvx" | "bunx" | "pnpx" => first_operand(&[]).map(package_name),
        "node" | "python" | "python3" | "bun" | "deno" => {
            first_operand(&["run"]).map(|script| file_stem(file_name(script)))
        }
        _ => None,
    }
    .unwrap_or(program);
    server_name_from(base, "mcp")
}

/// A valid server name made from `text`: characters other than letters,
/// digits, `_` and `-` become `-`, at most 64 of them, no `-` at either
/// end; `fallback` when nothing is left.
pub fn server_name_from(text: &str, fallback: &str) -> String {
    let name: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    let name = name.trim_matches('-');
    if name.is_empty() {
        fallback.to_string()
    } else {
        name.to_string()
    }
}

/// `@scope/name@1.2` → `name`; `name==1.2` → `name`.
fn package_name(spec: &str) -> &str {
    let unscoped = match spec.strip_prefix('@') {
        Some(rest) => rest.split_once('/').map_or(rest, |(_, name)| name),
        None => spec,
    };
    let unversioned = unscoped.split('@').next().unwrap_or(unscoped);
    unversioned
        .split(['=', '<', '>', '~', '['])
        .next()
        .unwrap_or(unversioned)
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// `name` without a script or executable extension.
fn file_stem(name: &str) -> &str {
    const EXTENSIONS: [&str; 9] = ["js", "mjs", "cjs", "ts", "py", "exe", "sh", "cmd", "bat"];
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && EXTENSIONS.contains(&ext) => stem,
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use super::*;

    #[test]
    fn splitting_follows_shell_quoting() {
        let words = split_command_line(r#"  a  "b \"c\" \$d \n" 'e "f" \g'  h\ i "" '' "#).unwrap();
        assert_eq!(words, ["a", r#"b "c" $d \n"#, r#"e "f" \g"#, "h i", "", ""]);
        assert_eq!(split_command_line("  ").unwrap(), Vec::<String>::new());
        assert_eq!(split_command_line("a\"b c\"d").unwrap(), ["ab cd"]);
        assert_eq!(split_command_line("ünï 'cöde'").unwrap(), ["ünï", "cöde"]);
    }

    #[test]
    fn unbalanced_quotes_are_errors_that_quote_the_line() {
        for line in ["a 'b", "a \"b", "a \"b\\\"", "a\\"] {
            let err = split_command_line(line).unwrap_err();
            assert!(err.to_string().contains(line), "{err}");
        }
    }

    #[test]
    fn names_come_from_what_the_command_runs() {
        let name = |line: &str| McpServerConfig::from_command_line(line).unwrap().name;
        assert_eq!(
            name("npx -y @modelcontextprotocol/server-everything@2026.8.31"),
            "server-everything"
        );
        assert_eq!(name("uvx mcp-server-fetch==1.0"), "mcp-server-fetch");
        assert_eq!(name("node ./build/index.js --port 1"), "index");
        assert_eq!(name("deno run -A main.ts"), "main");
        assert_eq!(
            name(".ci/mcp-servers/node_modules/.bin/mcp-server-filesystem /tmp"),
            "mcp-server-filesystem"
        );
        // Backslashes escape, as in a shell; quote a Windows path.
        assert_eq!(name(r"'C:\tools\my.server.exe'"), "my-server");
        assert_eq!(name("npx"), "npx");
    }

    #[test]
    fn leading_assignments_are_environment_and_a_command_is_required() {
        let server = McpServerConfig::from_command_line("A=1 _B='two words' cmd C=3").unwrap();
        let McpTransport::Stdio {
            command, args, env, ..
        } = &server.transport
        else {
            panic!("not stdio");
        };
        assert_eq!(command, "cmd");
        assert_eq!(args, &["C=3"]);
        assert_eq!(env.len(), 2);
        assert_eq!(env["_B"], "two words");
        assert!(McpServerConfig::from_command_line("A=1").is_err());
        assert!(McpServerConfig::from_command_line("   ").is_err());
    }
}

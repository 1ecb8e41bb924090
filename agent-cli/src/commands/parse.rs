//! `agent parse`: a raw model output on stdin → the parser's decision as
//! one line of JSON (the stable form).

use std::io::Read;

use agent_text::{ParseOptions, parse_with};

use crate::cli::ParseArgs;
use crate::exit::{CliError, OK};

/// Parses stdin.
pub(crate) fn parse(args: &ParseArgs) -> Result<u8, CliError> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| CliError::Failure(format!("cannot read stdin: {e}")))?;
    let options = ParseOptions {
        implicit_final_answer: args.implicit_final_answer,
    };
    println!("{}", parse_with(&text, options).to_json());
    Ok(OK)
}

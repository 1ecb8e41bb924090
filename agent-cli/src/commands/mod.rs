//! One module per subcommand.

pub(crate) mod chat;
pub(crate) mod demo;
pub(crate) mod parse;
pub(crate) mod prompt;
pub(crate) mod replay;
pub(crate) mod run;
pub(crate) mod tools;

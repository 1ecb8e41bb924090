//! One module per subcommand.

pub mod chat;
pub mod demo;
pub mod parse;
pub mod replay;
pub mod run;
pub mod tools;

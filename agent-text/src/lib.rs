//! The text ReAct transport: a sectioned prompt builder and a tolerant parser of Thought/Action/Action Input/Final Answer.
//!
//! This crate is being built; see the project's issues.

//! Panic capture: a quiet panic hook for the duration of a fuzz run (so a
//! million caught panics do not flood the terminal) and [`catch`], which
//! runs one input under `catch_unwind` and returns the panic's message and
//! location, and [`rethrow`], which raises a panic caught on a worker
//! thread again on the fuzzer's own.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};

type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

thread_local! {
    static LAST: RefCell<Option<Panicked>> = const { RefCell::new(None) };
}

/// A caught panic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Panicked {
    /// The panic message.
    pub(crate) message: String,
    /// `file:line:column` of the panic, when known.
    pub(crate) location: Option<String>,
}

/// While alive, panics are recorded instead of printed; dropping it puts
/// the previous hook back.
pub(crate) struct QuietPanics {
    previous: Option<Hook>,
}

impl QuietPanics {
    /// Installs the quiet hook.
    pub(crate) fn install() -> Self {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(|info| {
            let note = Panicked {
                message: message(info.payload()),
                location: info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column())),
            };
            LAST.with(|last| *last.borrow_mut() = Some(note));
        }));
        Self {
            previous: Some(previous),
        }
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            let _quiet = panic::take_hook();
            panic::set_hook(previous);
        }
    }
}

/// Runs `f`, turning a panic into [`Panicked`].
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, Panicked> {
    LAST.with(|last| last.borrow_mut().take());
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        LAST.with(|last| last.borrow_mut().take())
            .unwrap_or_else(|| Panicked {
                message: message(payload.as_ref()),
                location: None,
            })
    })
}

/// Raises `panicked`, caught on another thread (a fuzz worker), again on
/// this one: [`catch`] here returns it as it was, location included.
pub(crate) fn rethrow(panicked: Panicked) -> ! {
    let payload = panicked.message.clone();
    LAST.with(|last| *last.borrow_mut() = Some(panicked));
    // No hook runs on a resumed panic: `LAST` keeps what was caught.
    panic::resume_unwind(Box::new(payload))
}

fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic with a non-string payload)".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_caught_with_its_message_and_location() {
        let _quiet = QuietPanics::install();
        let caught = catch(|| {
            let text = "é";
            text.get(..1)
                .map_or_else(|| panic!("boom {}", 42), str::len)
        });
        let Err(p) = caught else {
            panic!("expected a panic")
        };
        assert_eq!(p.message, "boom 42");
        assert!(p.location.as_ref().is_some_and(|l| l.contains("hook.rs")));
        assert_eq!(catch(|| 7), Ok(7));
        let moved = catch(|| -> u8 { rethrow(p.clone()) });
        assert_eq!(moved, Err(p));
    }
}

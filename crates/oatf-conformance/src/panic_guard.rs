//! Catching a panic of one case and keeping its message, without printing it and without disturbing
//! other threads (tests run in parallel, and the panic hook is process-global).

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// `Some` while this thread runs a case: the hook stores the panic message there instead of printing.
    static CAPTURE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs, once per process, a hook that captures panics of threads inside [`catch`] and forwards every
/// other panic to the hook that was there before.
pub(crate) fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let capturing = CAPTURE.with(|c| c.borrow().is_some());
            if !capturing {
                previous(info);
                return;
            }
            let payload = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let location = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            CAPTURE.with(|c| *c.borrow_mut() = Some(format!("{payload}{location}")));
        }));
    });
}

/// Runs `f`, turning a panic into `Err(message)`.
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    CAPTURE.with(|c| *c.borrow_mut() = Some(String::new()));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    let message = CAPTURE.with(|c| c.borrow_mut().take()).unwrap_or_default();
    result.map_err(|_| message)
}

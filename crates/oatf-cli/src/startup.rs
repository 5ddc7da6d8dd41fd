//! What the process was given before the Rust runtime started: whether standard output was closed.
//!
//! The runtime replaces a closed standard stream with `/dev/null` before `main`, after which a closed
//! stdout (`oatf … >&-`) cannot be told from a `/dev/null` the parent passed on purpose. On Linux a
//! function in `.init_array` runs before the runtime's own start-up and records whether descriptor 1
//! was open (one `fcntl(1, F_GETFD)`). This is the crate's only unsafe code: the attribute that puts
//! the function in `.init_array`, and the `fcntl` call, which takes no pointer. Elsewhere the probe
//! does not exist and a closed stdout behaves like `/dev/null` (documented in D-61).
//!
//! The flag is the crate's one `static`, and it is start-up state, not command state: it is written
//! once, before `main`, and only read afterwards ([`crate::output::Output::stdout`]). It records a fact
//! about how the process was started that cannot be learnt later (the runtime has replaced the closed
//! descriptor by then), so it cannot be a value `main` computes and passes on. What a command writes,
//! and whether a write failed, is held by the `Output` the command is given (D-79).

#[cfg(target_os = "linux")]
mod probe {
    #![allow(
        unsafe_code,
        reason = "a pre-main probe of descriptor 1; see the module documentation"
    )]

    use std::sync::atomic::{AtomicBool, Ordering};

    pub(super) static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

    extern "C" fn probe_stdout() {
        // SAFETY: fcntl(F_GETFD) on a descriptor number reads its flags; it takes no pointer and
        // changes nothing, whether or not the descriptor is open.
        let flags = unsafe { libc::fcntl(1, libc::F_GETFD) };
        if flags == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF) {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
    }

    // Runs before `main`, and so before the Rust runtime opens `/dev/null` on closed standard streams.
    #[used]
    #[unsafe(link_section = ".init_array")]
    static PROBE: extern "C" fn() = probe_stdout;
}

/// Whether descriptor 1 was closed when the process started (always `false` where it cannot be told).
pub(crate) fn stdout_was_closed() -> bool {
    #[cfg(target_os = "linux")]
    {
        probe::STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

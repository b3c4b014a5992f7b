//! Signals fleet receives (Ctrl-C, SIGTERM, SIGHUP) and the child groups they reach.
//!
//! A child in its own group does not get the terminal's SIGINT, so fleet keeps a fixed
//! table of live group ids and a watcher thread terminates them before fleet itself
//! dies. The handler only writes the signal number into a self-pipe; everything else
//! happens on the watcher thread. Two modes change what a signal does: forwarding
//! (`fleet run` waiting for its command: the signal goes to the command and fleet stays)
//! and deferral ([`Deferred`]: fleet ends only once the guarded work has undone itself).

use std::io::{self, Read};
use std::os::fd::{BorrowedFd, IntoRawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, Once};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::DEFAULT_GRACE;
use super::group::{group_alive, signal_group};

const SLOTS: usize = 128;
static LIVE_GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
static INSTALL_HANDLERS: Once = Once::new();

/// The write end of the self-pipe the signal handler reports to.
static SIGNAL_PIPE: AtomicI32 = AtomicI32::new(-1);
/// While set (`fleet run` waiting for its command), a signal is forwarded to the child
/// groups and recorded in [`PENDING_SIGNAL`] instead of ending fleet.
static FORWARD: AtomicBool = AtomicBool::new(false);
static PENDING_SIGNAL: AtomicI32 = AtomicI32::new(0);
/// How many [`Deferred`] guards are alive: while any is, a signal stops the children
/// but fleet ends only when the last guard is dropped.
static DEFERRING: AtomicI32 = AtomicI32::new(0);

/// While set (a drainer), a signal only asks fleet to stop: no group is signalled and
/// fleet does not end; the drainer counts the requests ([`stop_requests`]) and stops its
/// agents itself, on its own schedule.
static STOP_ONLY: AtomicBool = AtomicBool::new(false);
static STOP_REQUESTS: AtomicU32 = AtomicU32::new(0);

/// From now on a Ctrl-C, SIGTERM or SIGHUP is a request to stop, counted and left to
/// the caller (`fleet drain`): it neither kills the child groups nor ends fleet.
pub fn stop_on_signal() {
    install_handlers();
    STOP_ONLY.store(true, Ordering::SeqCst);
}

/// How many stop requests came since [`stop_on_signal`].
pub fn stop_requests() -> u32 {
    STOP_REQUESTS.load(Ordering::SeqCst)
}

/// Held while a group is signalled or its leader reaped, so a signal never reaches a
/// group whose leader was just reaped (and whose id could be reused).
static REAP_LOCK: Mutex<()> = Mutex::new(());

pub(super) fn reap_lock() -> MutexGuard<'static, ()> {
    REAP_LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

pub(super) fn register(pgid: i32) {
    for slot in &LIVE_GROUPS {
        if slot
            .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

pub(super) fn unregister(pgid: i32) {
    for slot in &LIVE_GROUPS {
        if slot
            .compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// A signal arrived while work is deferred: no new command may start.
pub(super) fn spawning_refused() -> bool {
    DEFERRING.load(Ordering::SeqCst) > 0 && PENDING_SIGNAL.load(Ordering::SeqCst) != 0
}

/// Run `wait` with signals forwarded to the child groups instead of ending fleet;
/// hands back its result and the last signal forwarded meanwhile.
pub(super) fn forwarding<T>(wait: impl FnOnce() -> T) -> (T, Option<i32>) {
    install_handlers();
    PENDING_SIGNAL.store(0, Ordering::SeqCst);
    FORWARD.store(true, Ordering::SeqCst);
    let result = wait();
    let forwarded = pending();
    FORWARD.store(false, Ordering::SeqCst);
    (result, forwarded)
}

/// The signal received and not yet acted on (forwarded, or deferred).
pub(super) fn pending() -> Option<i32> {
    match PENDING_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Held around work whose undo must not be cut short (`worktree new` creating and, on
/// failure, rolling back; `worktree rm` moving worktrees aside). A Ctrl-C, SIGTERM or
/// SIGHUP meanwhile terminates every child group, as always, and makes any further
/// spawn fail, so the work fails and undoes itself; fleet then ends with that signal
/// when the guard is dropped.
pub struct Deferred(());

pub fn defer_signals() -> Deferred {
    install_handlers();
    if DEFERRING.fetch_add(1, Ordering::SeqCst) == 0 {
        PENDING_SIGNAL.store(0, Ordering::SeqCst);
    }
    Deferred(())
}

impl Drop for Deferred {
    fn drop(&mut self) {
        if DEFERRING.fetch_sub(1, Ordering::SeqCst) != 1 {
            return;
        }
        let signal = PENDING_SIGNAL.swap(0, Ordering::SeqCst);
        if signal != 0 {
            end_with(signal);
        }
    }
}

/// End fleet the conventional way for `signal`.
fn end_with(signal: i32) {
    // SAFETY: restoring the default action and re-raising makes fleet exit with the
    // conventional status for this signal. (rustix has no stable call for either.)
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Async-signal-safe: hand the signal number to the watcher thread.
extern "C" fn on_signal(signal: libc::c_int) {
    let fd = SIGNAL_PIPE.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: the pipe's write end is stored once and never closed.
        let pipe = unsafe { BorrowedFd::borrow_raw(fd) };
        // rustix's write is the bare system call: no allocation, and errno untouched.
        let _ = rustix::io::write(pipe, &[signal as u8]);
    }
}

fn signal_live_groups(signal: Signal) {
    let _guard = reap_lock();
    for slot in &LIVE_GROUPS {
        // Registered groups have unreaped leaders: reaping unregisters under this lock.
        signal_group(slot.load(Ordering::SeqCst), signal);
    }
}

fn live_groups_remain() -> bool {
    LIVE_GROUPS.iter().any(|slot| {
        let pgid = slot.load(Ordering::SeqCst);
        pgid > 1 && group_alive(pgid)
    })
}

/// The watcher thread: on Ctrl-C, SIGTERM or SIGHUP either forward the signal (during
/// `fleet run`) or end fleet, after terminating every child group (SIGTERM, then SIGKILL
/// after the default grace) so nothing outlives it.
fn watch_signals(mut pipe: std::fs::File) {
    loop {
        let mut byte = [0u8];
        match pipe.read(&mut byte) {
            Ok(1) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            _ => return,
        }
        let signal = i32::from(byte[0]);
        if STOP_ONLY.load(Ordering::SeqCst) {
            STOP_REQUESTS.fetch_add(1, Ordering::SeqCst);
            continue;
        }
        if FORWARD.load(Ordering::SeqCst) {
            if let Some(forward) = Signal::from_named_raw(signal) {
                signal_live_groups(forward);
            }
            PENDING_SIGNAL.store(signal, Ordering::SeqCst);
            continue;
        }
        let deferring = DEFERRING.load(Ordering::SeqCst) > 0;
        if deferring {
            // Recorded before the children die, so the failure they cause is seen as
            // an interruption and nothing new is started.
            PENDING_SIGNAL.store(signal, Ordering::SeqCst);
        }
        signal_live_groups(Signal::TERM);
        let deadline = Instant::now() + DEFAULT_GRACE;
        while live_groups_remain() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        signal_live_groups(Signal::KILL);
        if deferring && DEFERRING.load(Ordering::SeqCst) > 0 {
            // The guard's drop ends fleet once the work has undone itself. (A guard
            // dropped during the grace above has already seen the pending signal.)
            continue;
        }
        end_with(signal);
    }
}

pub(super) fn install_handlers() {
    INSTALL_HANDLERS.call_once(|| {
        let Ok((read, write)) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC) else {
            return;
        };
        SIGNAL_PIPE.store(write.into_raw_fd(), Ordering::SeqCst);
        let read = std::fs::File::from(read);
        if thread::Builder::new()
            .name("fleet-signals".into())
            .spawn(move || watch_signals(read))
            .is_err()
        {
            return;
        }
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the handler only makes the write(2) system call, which is
            // async-signal-safe.
            unsafe {
                libc::signal(
                    signal,
                    on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
                );
            }
        }
    });
}

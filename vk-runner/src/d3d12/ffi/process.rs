//! The process calls of crash isolation (`fork`, `pipe2`, `poll`, `kill`, `waitpid`) behind
//! safe functions, so that no unsafe code leaves the FFI module.

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// A process ID.
pub type Pid = libc::pid_t;

/// How many threads this process runs.
pub fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(1, |d| d.count())
}

/// A pipe: (read end, write end), both close-on-exec.
pub fn pipe() -> Result<(File, File), String> {
    let mut fds = [0i32; 2];
    // SAFETY: pipe2(2) into a two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    // SAFETY: both descriptors were just opened, and nothing else owns them.
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((File::from(r), File::from(w)))
}

/// Runs `child` in a forked copy of this process, which then exits with status 0 (through
/// `exit`, so atexit handlers run); returns the child's ID. Refused unless the process is
/// single-threaded, the only state in which the child may run arbitrary code.
pub fn fork(child: impl FnOnce()) -> Result<Pid, String> {
    let threads = thread_count();
    if threads > 1 {
        return Err(format!(
            "vk-runner has {threads} threads; forking is only sound with one"
        ));
    }
    // SAFETY: the process is single-threaded (checked above), so no lock is held by a thread
    // the child lacks; the child leaves only through `exit`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    if pid == 0 {
        child();
        std::process::exit(0);
    }
    Ok(pid)
}

/// Whether `f` has data (or its end) within `ms` milliseconds.
pub fn readable(f: &File, ms: i32) -> std::io::Result<bool> {
    let mut pfd = libc::pollfd {
        fd: f.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll(2) on one open descriptor.
    let n = unsafe { libc::poll(&mut pfd, 1, ms) };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(n > 0)
}

/// Sends SIGKILL to a child this process started and has not reaped.
pub fn kill(pid: Pid) {
    // SAFETY: kill(2) with a signal number; the caller names its own unreaped child.
    unsafe { libc::kill(pid, libc::SIGKILL) };
}

/// Waits for a child and returns its wait status.
pub fn wait(pid: Pid) -> i32 {
    let mut status = 0;
    loop {
        // SAFETY: waitpid(2) with a pointer to a local.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return status;
        }
    }
}

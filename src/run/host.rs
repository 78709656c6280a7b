//! The machine a run happens on, for the results.

use crate::results::HostInfo;

fn read_proc(p: &str) -> String {
    std::fs::read_to_string(p)
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// Host name, kernel release (from /proc) and the CPUs available to this process.
pub fn host_info() -> HostInfo {
    HostInfo {
        hostname: read_proc("/proc/sys/kernel/hostname"),
        kernel: read_proc("/proc/sys/kernel/osrelease"),
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
    }
}

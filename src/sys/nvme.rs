//! NVMe admin commands through the Linux passthrough ioctl (`<linux/nvme_ioctl.h>`): namespace id, Identify
//! Namespace (sizes, LBA formats), Format NVM with Secure Erase Settings = user data erase (NVMe Base Specification 2.0,
//! Format NVM command, CDW10 fields LBAFL/MSET/PI/PIL/SES/LBAFU), and the Volatile Write Cache feature (Identify
//! Controller VWC; Get Features and Set Features, feature 06h, Dword 0 / Dword 11 bit 0 WCE).

use std::io;
use std::os::fd::AsRawFd;

/// `_IO('N', 0x40)`: the namespace id of an NVMe namespace block device.
const NVME_IOCTL_ID: libc::c_ulong = 0x4e40;
/// `_IOWR('N', 0x41, struct nvme_passthru_cmd)` (72 bytes).
const NVME_IOCTL_ADMIN_CMD: libc::c_ulong = 0xc048_4e41;

/// Admin opcode: Identify.
pub const OPC_IDENTIFY: u8 = 0x06;
/// Admin opcode: Format NVM.
pub const OPC_FORMAT_NVM: u8 = 0x80;
/// Admin opcode: Set Features.
pub const OPC_SET_FEATURES: u8 = 0x09;
/// Admin opcode: Get Features.
pub const OPC_GET_FEATURES: u8 = 0x0a;
/// Admin opcode: Get Log Page.
pub const OPC_GET_LOG_PAGE: u8 = 0x02;
/// Log page identifier: SMART / Health Information (512 bytes).
pub const LID_SMART: u8 = 0x02;
/// Log page identifier 0xC0: in the OCP Datacenter NVMe SSD specification, SMART / Health Information
/// Extended (512 bytes); other vendors use the identifier for pages of their own.
pub const LID_OCP_SMART_EXTENDED: u8 = 0xc0;
/// The namespace id that names the whole controller (log pages kept for all namespaces).
pub const NSID_ALL: u32 = 0xffff_ffff;
/// Feature identifier: Volatile Write Cache.
pub const FID_VOLATILE_WRITE_CACHE: u32 = 0x06;
/// Secure Erase Settings value 1: user data erase.
pub const SES_USER_DATA_ERASE: u32 = 1;

/// `struct nvme_passthru_cmd` / `nvme_admin_cmd` (72 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AdminCmd {
    /// Command opcode.
    pub opcode: u8,
    /// Flags.
    pub flags: u8,
    rsvd1: u16,
    /// Namespace id.
    pub nsid: u32,
    /// Command dword 2.
    pub cdw2: u32,
    /// Command dword 3.
    pub cdw3: u32,
    /// Metadata buffer address.
    pub metadata: u64,
    /// Data buffer address.
    pub addr: u64,
    /// Metadata length, bytes.
    pub metadata_len: u32,
    /// Data length, bytes.
    pub data_len: u32,
    /// Command dwords 10 to 15.
    pub cdw10: u32,
    /// Command dword 11.
    pub cdw11: u32,
    /// Command dword 12.
    pub cdw12: u32,
    /// Command dword 13.
    pub cdw13: u32,
    /// Command dword 14.
    pub cdw14: u32,
    /// Command dword 15.
    pub cdw15: u32,
    /// Timeout, ms (0: the driver's default).
    pub timeout_ms: u32,
    /// Completion dword 0, filled in by the driver.
    pub result: u32,
}

/// The parts of Identify Namespace that Format NVM must preserve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NsFormat {
    /// Index of the LBA format in use (FLBAS bits 3:0, and bits 6:5 as the upper bits).
    pub lbaf: u8,
    /// Metadata settings (FLBAS bit 4): 1 = extended LBA.
    pub mset: u8,
    /// Protection information type in use (DPS bits 2:0).
    pub pi: u8,
    /// Protection information location (DPS bit 3).
    pub pil: u8,
}

/// Reads the format in use from a 4096-byte Identify Namespace data structure (FLBAS at byte 26, DPS at 29).
pub fn ns_format(identify: &[u8; 4096]) -> NsFormat {
    let flbas = identify[26];
    let dps = identify[29];
    NsFormat {
        lbaf: (flbas & 0x0f) | ((flbas >> 5) & 0x03) << 4,
        mset: (flbas >> 4) & 1,
        pi: dps & 0x07,
        pil: (dps >> 3) & 1,
    }
}

/// One LBA format of a namespace (Identify Namespace bytes 128 + 4 × index: MS 15:0, LBADS 23:16, RP 25:24).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LbaFormat {
    /// Data bytes per logical block (2^LBADS).
    pub data_bytes: u32,
    /// Metadata bytes per logical block (MS).
    pub metadata_bytes: u16,
    /// Relative performance (RP): 0 best, 3 degraded.
    pub relative_performance: u8,
}

/// What Identify Namespace says of a namespace's size and formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NsIdentity {
    /// Namespace size, logical blocks (NSZE, bytes 0-7).
    pub size_blocks: u64,
    /// Namespace capacity, logical blocks (NCAP, bytes 8-15).
    pub capacity_blocks: u64,
    /// Namespace utilization, logical blocks (NUSE, bytes 16-23).
    pub utilization_blocks: u64,
    /// The format in use (FLBAS).
    pub format: NsFormat,
    /// The LBA formats the namespace supports (NLBAF + 1 of them, at most 16), in index order.
    pub lba_formats: Vec<LbaFormat>,
}

fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

/// Reads sizes and LBA formats from a 4096-byte Identify Namespace data structure (NLBAF at byte 25).
pub fn ns_identity(identify: &[u8; 4096]) -> NsIdentity {
    let count = (identify[25] as usize + 1).min(16);
    let lba_formats = (0..count)
        .map(|i| {
            let at = 128 + 4 * i;
            let d = u32::from_le_bytes([
                identify[at],
                identify[at + 1],
                identify[at + 2],
                identify[at + 3],
            ]);
            LbaFormat {
                data_bytes: 1u32.checked_shl((d >> 16) & 0xff).unwrap_or(0),
                metadata_bytes: (d & 0xffff) as u16,
                relative_performance: ((d >> 24) & 0x03) as u8,
            }
        })
        .collect();
    NsIdentity {
        size_blocks: le_u64(&identify[0..]),
        capacity_blocks: le_u64(&identify[8..]),
        utilization_blocks: le_u64(&identify[16..]),
        format: ns_format(identify),
        lba_formats,
    }
}

/// The Identify Namespace command (CNS 0) for `nsid`, reading 4096 bytes into `addr`.
pub fn identify_ns_cmd(nsid: u32, addr: u64) -> AdminCmd {
    AdminCmd {
        opcode: OPC_IDENTIFY,
        nsid,
        addr,
        data_len: 4096,
        cdw10: 0,
        ..AdminCmd::default()
    }
}

/// The Identify Controller command (CNS 1), reading 4096 bytes into `addr`.
pub fn identify_ctrl_cmd(addr: u64) -> AdminCmd {
    AdminCmd {
        opcode: OPC_IDENTIFY,
        addr,
        data_len: 4096,
        cdw10: 1,
        ..AdminCmd::default()
    }
}

/// Whether a 4096-byte Identify Controller data structure says the controller has a volatile write cache
/// (VWC, byte 525, bit 0).
pub fn vwc_present(identify: &[u8; 4096]) -> bool {
    identify[525] & 1 == 1
}

/// Get Features, Volatile Write Cache, current value (SEL 0): the state is bit 0 (WCE) of the completion's
/// Dword 0.
pub fn get_vwc_cmd() -> AdminCmd {
    AdminCmd {
        opcode: OPC_GET_FEATURES,
        cdw10: FID_VOLATILE_WRITE_CACHE,
        ..AdminCmd::default()
    }
}

/// Set Features, Volatile Write Cache, not saved (SV 0: the setting lasts until the controller is reset or
/// powered off): WCE in bit 0 of Dword 11.
pub fn set_vwc_cmd(enabled: bool) -> AdminCmd {
    AdminCmd {
        opcode: OPC_SET_FEATURES,
        cdw10: FID_VOLATILE_WRITE_CACHE,
        cdw11: u32::from(enabled),
        ..AdminCmd::default()
    }
}

/// The Format NVM command for `nsid` keeping format `f`, with Secure Erase Settings `ses`:
/// `CDW10 = LBAFL[3:0] | MSET[4] | PI[7:5] | PIL[8] | SES[11:9] | LBAFU[13:12]`.
pub fn format_cmd(nsid: u32, f: NsFormat, ses: u32, timeout_ms: u32) -> AdminCmd {
    let cdw10 = (f.lbaf as u32 & 0x0f)
        | ((f.mset as u32 & 1) << 4)
        | ((f.pi as u32 & 0x07) << 5)
        | ((f.pil as u32 & 1) << 8)
        | ((ses & 0x07) << 9)
        | (((f.lbaf as u32 >> 4) & 0x03) << 12);
    AdminCmd {
        opcode: OPC_FORMAT_NVM,
        nsid,
        cdw10,
        timeout_ms,
        ..AdminCmd::default()
    }
}

/// Get Log Page `lid` for `nsid`, `len` bytes (a multiple of 4, at least 4) into `addr`, from offset 0:
/// `CDW10 = LID[7:0] | NUMDL[31:16]`, `CDW11 = NUMDU[15:0]`, NUMD the number of dwords less one.
pub fn get_log_cmd(lid: u8, nsid: u32, addr: u64, len: u32) -> AdminCmd {
    let numd = (len / 4).saturating_sub(1);
    AdminCmd {
        opcode: OPC_GET_LOG_PAGE,
        nsid,
        addr,
        data_len: len,
        cdw10: u32::from(lid) | ((numd & 0xffff) << 16),
        cdw11: numd >> 16,
        ..AdminCmd::default()
    }
}

/// The namespace id of an NVMe namespace block device; an error (ENOTTY) for anything else.
pub fn namespace_id(f: &impl AsRawFd) -> io::Result<u32> {
    // SAFETY: NVME_IOCTL_ID takes no argument and returns the namespace id or -1.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), NVME_IOCTL_ID as _) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as u32)
    }
}

fn admin(f: &impl AsRawFd, cmd: &mut AdminCmd) -> io::Result<u32> {
    // SAFETY: `cmd` is a live, correctly laid out nvme_passthru_cmd; any data buffer it names is owned by the
    // caller and outlives this synchronous call.
    let r = unsafe {
        libc::ioctl(
            f.as_raw_fd(),
            NVME_IOCTL_ADMIN_CMD as _,
            cmd as *mut AdminCmd,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else if r > 0 {
        Err(io::Error::other(format!("NVMe status 0x{r:x}")))
    } else {
        Ok(cmd.result)
    }
}

/// The Identify Namespace data of the namespace open as `f` (needs CAP_SYS_ADMIN on most kernels).
///
/// # Errors
/// ENOTTY when `f` is not an NVMe namespace; the OS error or NVMe status otherwise.
pub fn identify_namespace(f: &impl AsRawFd) -> io::Result<NsIdentity> {
    let nsid = namespace_id(f)?;
    let mut data = Box::new([0u8; 4096]);
    let mut id = identify_ns_cmd(nsid, data.as_mut_ptr() as u64);
    admin(f, &mut id)?;
    Ok(ns_identity(&data))
}

/// Whether the controller of the namespace open as `f` has a volatile write cache (Identify Controller VWC).
///
/// # Errors
/// ENOTTY when `f` is not an NVMe namespace (or controller); the OS error or NVMe status otherwise.
pub fn volatile_write_cache_present(f: &impl AsRawFd) -> io::Result<bool> {
    let mut data = Box::new([0u8; 4096]);
    let mut id = identify_ctrl_cmd(data.as_mut_ptr() as u64);
    admin(f, &mut id)?;
    Ok(vwc_present(&data))
}

/// Whether the volatile write cache of the controller of `f` is enabled (Get Features 06h, current value).
///
/// # Errors
/// The OS error or NVMe status (a controller without a volatile write cache refuses the feature).
pub fn volatile_write_cache(f: &impl AsRawFd) -> io::Result<bool> {
    let mut cmd = get_vwc_cmd();
    Ok(admin(f, &mut cmd)? & 1 == 1)
}

/// Enables or disables the volatile write cache of the controller of `f` (Set Features 06h, not saved).
///
/// # Errors
/// The OS error or NVMe status.
pub fn set_volatile_write_cache(f: &impl AsRawFd, enabled: bool) -> io::Result<()> {
    let mut cmd = set_vwc_cmd(enabled);
    admin(f, &mut cmd).map(|_| ())
}

/// Reads log page `lid` of the controller of the namespace open as `f`, for all namespaces
/// ([`NSID_ALL`]), into `page` (its length a multiple of 4; 512 for the SMART pages).
///
/// # Errors
/// ENOTTY when `f` is not an NVMe namespace; the OS error (EACCES, EPERM without CAP_SYS_ADMIN) or the
/// NVMe status (0x2109 or similar: a log page the controller does not have) otherwise.
pub fn log_page(f: &impl AsRawFd, lid: u8, page: &mut [u8]) -> io::Result<()> {
    let len =
        u32::try_from(page.len()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    if len == 0 || len % 4 != 0 {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    let mut cmd = get_log_cmd(lid, NSID_ALL, page.as_mut_ptr() as u64, len);
    admin(f, &mut cmd).map(|_| ())
}

/// Formats the namespace open as `f` with user data erase, keeping its LBA format and protection settings.
/// Erases the whole namespace. Can take minutes.
///
/// # Errors
/// ENOTTY when `f` is not an NVMe namespace; the OS error or NVMe status otherwise.
pub fn format_user_data_erase(f: &impl AsRawFd) -> io::Result<()> {
    let nsid = namespace_id(f)?;
    let mut data = Box::new([0u8; 4096]);
    let mut id = identify_ns_cmd(nsid, data.as_mut_ptr() as u64);
    admin(f, &mut id)?;
    let mut fmt = format_cmd(nsid, ns_format(&data), SES_USER_DATA_ERASE, 3_600_000);
    admin(f, &mut fmt).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_the_kernels() {
        assert_eq!(std::mem::size_of::<AdminCmd>(), 72);
    }

    #[test]
    fn get_log_page_encoding() {
        // 512 bytes = 128 dwords: NUMDL 127 in bits 31:16, NUMDU 0.
        let c = get_log_cmd(LID_SMART, NSID_ALL, 0x1000, 512);
        assert_eq!(c.opcode, 0x02);
        assert_eq!(c.cdw10, 0x007f_0002);
        assert_eq!(c.cdw11, 0);
        assert_eq!((c.nsid, c.addr, c.data_len), (0xffff_ffff, 0x1000, 512));
        // 512 KiB = 131072 dwords: NUMD 131071 = 0x1_ffff, split over NUMDL and NUMDU.
        let c = get_log_cmd(LID_OCP_SMART_EXTENDED, 1, 0, 512 << 10);
        assert_eq!(c.cdw10, 0xffff_00c0);
        assert_eq!(c.cdw11, 1);
    }

    #[test]
    fn format_command_encoding() {
        let f = NsFormat {
            lbaf: 1,
            mset: 0,
            pi: 0,
            pil: 0,
        };
        let c = format_cmd(1, f, SES_USER_DATA_ERASE, 0);
        assert_eq!((c.opcode, c.nsid), (0x80, 1));
        assert_eq!(c.cdw10, 0x0000_0201, "LBAF 1, SES 1 (bits 11:9)");
        let f = NsFormat {
            lbaf: 0x13,
            mset: 1,
            pi: 2,
            pil: 1,
        };
        let c = format_cmd(7, f, SES_USER_DATA_ERASE, 0);
        // LBAFL 3, MSET bit 4, PI 2 in 7:5, PIL bit 8, SES 1 in 11:9, LBAFU 1 in 13:12.
        assert_eq!(c.cdw10, 3 | 1 << 4 | 2 << 5 | 1 << 8 | 1 << 9 | 1 << 12);
    }

    #[test]
    fn identify_fields() {
        let mut id = [0u8; 4096];
        id[26] = 0b0101_0010; // FLBAS: LBAF low 2, MSET 1, LBAF high bits (6:5) = 0b10
        id[29] = 0b0000_1011; // DPS: PI type 3, PIL 1
        assert_eq!(
            ns_format(&id),
            NsFormat {
                lbaf: 0x22,
                mset: 1,
                pi: 3,
                pil: 1
            }
        );
        id[0..8].copy_from_slice(&16384u64.to_le_bytes());
        id[8..16].copy_from_slice(&16000u64.to_le_bytes());
        id[16..24].copy_from_slice(&100u64.to_le_bytes());
        id[25] = 1; // NLBAF: two formats
        id[128..132].copy_from_slice(&(9u32 << 16).to_le_bytes()); // 512 B, no metadata, RP 0
        id[132..136].copy_from_slice(&(2 << 24 | 12u32 << 16 | 8).to_le_bytes()); // 4096 B + 8, RP 2
        let n = ns_identity(&id);
        assert_eq!(
            (n.size_blocks, n.capacity_blocks, n.utilization_blocks),
            (16384, 16000, 100)
        );
        assert_eq!(
            n.lba_formats,
            vec![
                LbaFormat {
                    data_bytes: 512,
                    metadata_bytes: 0,
                    relative_performance: 0
                },
                LbaFormat {
                    data_bytes: 4096,
                    metadata_bytes: 8,
                    relative_performance: 2
                }
            ]
        );
        let c = identify_ns_cmd(5, 0x1000);
        assert_eq!((c.opcode, c.nsid, c.data_len, c.cdw10), (0x06, 5, 4096, 0));
    }

    #[test]
    fn volatile_write_cache_commands() {
        let c = identify_ctrl_cmd(0x2000);
        assert_eq!((c.opcode, c.nsid, c.data_len, c.cdw10), (0x06, 0, 4096, 1));
        let mut id = [0u8; 4096];
        assert!(!vwc_present(&id));
        id[525] = 0b0000_0111; // VWC present, flush-broadcast bits 2:1
        assert!(vwc_present(&id));
        let g = get_vwc_cmd();
        assert_eq!((g.opcode, g.cdw10, g.cdw11), (0x0a, 0x06, 0));
        let on = set_vwc_cmd(true);
        assert_eq!((on.opcode, on.cdw10, on.cdw11), (0x09, 0x06, 1));
        assert_eq!(set_vwc_cmd(false).cdw11, 0);
    }
}

//! Drive health from NVMe log pages, read through the admin passthrough (`sys::nvme::log_page`): the SMART /
//! Health Information page (log identifier 02h, NVMe Base Specification 2.0, "SMART / Health Information"),
//! and, where the drive has it, the OCP Datacenter NVMe SSD specification's SMART / Health Information
//! Extended page (log identifier C0h, recognised by its log page GUID), whose physical media units written
//! give the drive's write amplification. Both are read for the whole controller (namespace id FFFFFFFFh).
//! The parsers take the page's 512 bytes; the tests run them on pages captured from a drive.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Bytes in one NVMe data unit: 1000 units of 512 bytes (the SMART page's data units read and written count
/// these, rounded up).
pub const DATA_UNIT_BYTES: u64 = 512_000;

/// The length of both log pages.
pub const PAGE_LEN: usize = 512;

/// The OCP SMART / Health Information Extended page's GUID, as its bytes 511:496 hold it (little-endian):
/// AFD514C97C6F4F9CA4F2BFEA2810AFC5h.
pub const OCP_C0_GUID: [u8; 16] = [
    0xc5, 0xaf, 0x10, 0x28, 0xea, 0xbf, 0xf2, 0xa4, 0x9c, 0x4f, 0x6f, 0x7c, 0xc9, 0x14, 0xd5, 0xaf,
];

/// The SMART / Health Information log page (02h) of an NVMe controller. The 16-byte counters are kept as
/// 64-bit numbers (saturated: no drive reaches 2^64 of any of them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Smart {
    /// Critical Warning (byte 0): bit 0 spare below threshold, 1 temperature, 2 reliability degraded, 3
    /// read-only, 4 volatile memory backup failed, 5 persistent memory region read-only; 0 when all is well.
    pub critical_warning: u8,
    /// Composite Temperature (bytes 2:1, kelvins), in degrees Celsius.
    pub temperature_c: i32,
    /// Available Spare (byte 3), percent of the spare capacity left.
    pub available_spare_pct: u8,
    /// Available Spare Threshold (byte 4), percent: below it, critical warning bit 0 is set.
    pub available_spare_threshold_pct: u8,
    /// Percentage Used (byte 5): the vendor's estimate of the life used, percent (may pass 100).
    pub percentage_used_pct: u8,
    /// Data Units Read (bytes 47:32): thousands of 512-byte units the host read, rounded up.
    pub data_units_read: u64,
    /// Data Units Written (bytes 63:48): thousands of 512-byte units the host wrote, rounded up.
    pub data_units_written: u64,
    /// Host Read Commands (bytes 79:64) completed.
    pub host_read_commands: u64,
    /// Host Write Commands (bytes 95:80) completed.
    pub host_write_commands: u64,
    /// Controller Busy Time (bytes 111:96), minutes.
    pub controller_busy_minutes: u64,
    /// Power Cycles (bytes 127:112).
    pub power_cycles: u64,
    /// Power On Hours (bytes 143:128).
    pub power_on_hours: u64,
    /// Unsafe Shutdowns (bytes 159:144).
    pub unsafe_shutdowns: u64,
    /// Media and Data Integrity Errors (bytes 175:160): unrecovered data integrity errors.
    pub media_errors: u64,
    /// Number of Error Information Log Entries (bytes 191:176) over the controller's life.
    pub error_log_entries: u64,
    /// Warning Composite Temperature Time (bytes 195:192), minutes above the warning threshold.
    pub warning_temperature_minutes: u32,
    /// Critical Composite Temperature Time (bytes 199:196), minutes above the critical threshold.
    pub critical_temperature_minutes: u32,
}

/// The OCP SMART / Health Information Extended log page (C0h; OCP Datacenter NVMe SSD specification 2.0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OcpSmart {
    /// Physical Media Units Written (bytes 15:0): bytes written to the media (host data, garbage
    /// collection, the drive's own), saturated at 2^64 - 1.
    pub media_written_bytes: u64,
    /// Physical Media Units Read (bytes 31:16): bytes read from the media.
    pub media_read_bytes: u64,
    /// Bad User NAND Blocks, raw count (bytes 37:32).
    pub bad_user_nand_blocks: u64,
    /// Bad System NAND Blocks, raw count (bytes 45:40).
    pub bad_system_nand_blocks: u64,
    /// XOR Recovery Count (bytes 55:48).
    pub xor_recovery_count: u64,
    /// Uncorrectable Read Error Count (bytes 63:56).
    pub uncorrectable_read_errors: u64,
    /// Soft ECC Error Count (bytes 71:64).
    pub soft_ecc_errors: u64,
    /// System Data % Used (byte 80), percent.
    pub system_data_used_pct: u8,
    /// Incomplete Shutdowns (bytes 115:112).
    pub incomplete_shutdowns: u32,
    /// Log Page Version (bytes 495:494).
    pub log_page_version: u16,
}

/// The health of an NVMe drive at one moment: its SMART page, and the OCP page or why there is none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealthLog {
    /// The SMART / Health Information page (02h).
    pub smart: Smart,
    /// The OCP SMART / Health Information Extended page (C0h), where the drive has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocp: Option<OcpSmart>,
    /// Why there is no OCP page (the drive refused log page C0h, or its C0h page is another vendor's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocp_unavailable: Option<String>,
}

fn le(page: &[u8], at: usize, len: usize) -> u128 {
    page[at..at + len]
        .iter()
        .rev()
        .fold(0u128, |v, &b| (v << 8) | u128::from(b))
}

fn le64(page: &[u8], at: usize, len: usize) -> u64 {
    u64::try_from(le(page, at, len)).unwrap_or(u64::MAX)
}

/// The SMART / Health Information page in `page` (512 bytes as the controller returned them).
pub fn parse_smart(page: &[u8; PAGE_LEN]) -> Smart {
    Smart {
        critical_warning: page[0],
        temperature_c: i32::from(u16::from_le_bytes([page[1], page[2]])) - 273,
        available_spare_pct: page[3],
        available_spare_threshold_pct: page[4],
        percentage_used_pct: page[5],
        data_units_read: le64(page, 32, 16),
        data_units_written: le64(page, 48, 16),
        host_read_commands: le64(page, 64, 16),
        host_write_commands: le64(page, 80, 16),
        controller_busy_minutes: le64(page, 96, 16),
        power_cycles: le64(page, 112, 16),
        power_on_hours: le64(page, 128, 16),
        unsafe_shutdowns: le64(page, 144, 16),
        media_errors: le64(page, 160, 16),
        error_log_entries: le64(page, 176, 16),
        warning_temperature_minutes: le64(page, 192, 4) as u32,
        critical_temperature_minutes: le64(page, 196, 4) as u32,
    }
}

/// The OCP SMART / Health Information Extended page in `page`; `Err` (the reason) when its GUID is not the
/// OCP page's: log identifier C0h is vendor-specific outside the OCP specification.
pub fn parse_ocp(page: &[u8; PAGE_LEN]) -> Result<OcpSmart, String> {
    if page[496..512] != OCP_C0_GUID {
        let guid: String = page[496..512]
            .iter()
            .rev()
            .map(|b| format!("{b:02X}"))
            .collect();
        return Err(format!(
            "log page C0h has the GUID {guid}h, not the OCP SMART / Health Information Extended page's"
        ));
    }
    Ok(OcpSmart {
        media_written_bytes: le64(page, 0, 16),
        media_read_bytes: le64(page, 16, 16),
        bad_user_nand_blocks: le64(page, 32, 6),
        bad_system_nand_blocks: le64(page, 40, 6),
        xor_recovery_count: le64(page, 48, 8),
        uncorrectable_read_errors: le64(page, 56, 8),
        soft_ecc_errors: le64(page, 64, 8),
        system_data_used_pct: page[80],
        incomplete_shutdowns: le64(page, 112, 4) as u32,
        log_page_version: le64(page, 494, 2) as u16,
    })
}

/// The health of the NVMe drive whose namespace is open as `f`; `Err` (the reason, in words) when its SMART
/// page cannot be read (not an NVMe namespace, no CAP_SYS_ADMIN, the controller refused).
pub fn read(f: &std::fs::File) -> Result<HealthLog, String> {
    use crate::sys::nvme::{LID_OCP_SMART_EXTENDED, LID_SMART, log_page};
    let mut page = [0u8; PAGE_LEN];
    log_page(f, LID_SMART, &mut page).map_err(|e| {
        format!(
            "the SMART / health log page (02h) cannot be read: {}",
            crate::sys::os_text(&e)
        )
    })?;
    let smart = parse_smart(&page);
    let mut page = [0u8; PAGE_LEN];
    let (ocp, ocp_unavailable) = match log_page(f, LID_OCP_SMART_EXTENDED, &mut page) {
        Err(e) => (
            None,
            Some(format!(
                "the drive has no OCP SMART / Health Information Extended page (log page C0h: {})",
                crate::sys::os_text(&e)
            )),
        ),
        Ok(()) => match parse_ocp(&page) {
            Ok(o) => (Some(o), None),
            Err(why) => (None, Some(why)),
        },
    };
    Ok(HealthLog {
        smart,
        ocp,
        ocp_unavailable,
    })
}

/// What a phase did to the drive's counters, from its health before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealthDelta {
    /// SMART data units read during the phase (1 unit = 512,000 bytes; each reading rounds up, so the
    /// difference is within one unit of the bytes read / 512,000).
    pub data_units_read: u64,
    /// SMART data units written during the phase.
    pub data_units_written: u64,
    /// SMART host read commands completed during the phase (all hosts and namespaces of the controller).
    pub host_read_commands: u64,
    /// SMART host write commands completed during the phase.
    pub host_write_commands: u64,
    /// Media and data integrity errors during the phase.
    pub media_errors: u64,
    /// Composite temperature at the end, degrees Celsius.
    pub temperature_c: i32,
    /// OCP physical media bytes written during the phase (drives with the OCP page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_written_bytes: Option<u64>,
    /// Write amplification: media_written_bytes / (data_units_written × 512,000); absent without the OCP
    /// page or without host writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_amplification: Option<f64>,
}

impl HealthDelta {
    /// From the drive's health `before` and `after`.
    pub fn between(before: &HealthLog, after: &HealthLog) -> HealthDelta {
        let (b, a) = (&before.smart, &after.smart);
        let data_units_written = a.data_units_written.saturating_sub(b.data_units_written);
        let media_written_bytes = before
            .ocp
            .as_ref()
            .zip(after.ocp.as_ref())
            .map(|(b, a)| a.media_written_bytes.saturating_sub(b.media_written_bytes));
        let host_bytes = data_units_written.saturating_mul(DATA_UNIT_BYTES);
        HealthDelta {
            data_units_read: a.data_units_read.saturating_sub(b.data_units_read),
            data_units_written,
            host_read_commands: a.host_read_commands.saturating_sub(b.host_read_commands),
            host_write_commands: a.host_write_commands.saturating_sub(b.host_write_commands),
            media_errors: a.media_errors.saturating_sub(b.media_errors),
            temperature_c: a.temperature_c,
            media_written_bytes,
            write_amplification: media_written_bytes
                .filter(|_| host_bytes > 0)
                .map(|m| m as f64 / host_bytes as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An OCP C0h page made by hand after the specification's layout, with `media` physical media bytes
    /// written.
    fn ocp_page(media: u128) -> [u8; PAGE_LEN] {
        let mut p = [0u8; PAGE_LEN];
        p[0..16].copy_from_slice(&media.to_le_bytes());
        p[16..32].copy_from_slice(&(3u128 << 40).to_le_bytes());
        p[32..38].copy_from_slice(&7u64.to_le_bytes()[..6]);
        p[38..40].copy_from_slice(&100u16.to_le_bytes());
        p[40..46].copy_from_slice(&2u64.to_le_bytes()[..6]);
        p[48..56].copy_from_slice(&11u64.to_le_bytes());
        p[56..64].copy_from_slice(&13u64.to_le_bytes());
        p[64..72].copy_from_slice(&17u64.to_le_bytes());
        p[80] = 4;
        p[112..116].copy_from_slice(&5u32.to_le_bytes());
        p[494..496].copy_from_slice(&3u16.to_le_bytes());
        p[496..512].copy_from_slice(&OCP_C0_GUID);
        p
    }

    /// SMART pages captured from QEMU 7.2's emulated NVMe controller (`nvme smart-log /dev/nvme0 -o
    /// binary` in the VM suite's guest, case `nvme_health_counters`), before and after 500 writes of 4 KiB.
    const QEMU_BEFORE: &[u8; PAGE_LEN] =
        include_bytes!("../../tests/fixtures/nvme/qemu-smart-before.bin");
    const QEMU_AFTER: &[u8; PAGE_LEN] =
        include_bytes!("../../tests/fixtures/nvme/qemu-smart-after.bin");

    #[test]
    fn smart_pages_captured_from_qemu_parse_field_by_field() {
        let b = parse_smart(QEMU_BEFORE);
        // Bytes 2:1 = 0x0143 = 323 K; 47:32 = 0x409; 63:48 = 0x52; 79:64 = 0x196fb; 95:80 = 0x58.
        assert_eq!(
            b,
            Smart {
                critical_warning: 0,
                temperature_c: 50,
                available_spare_pct: 0,
                available_spare_threshold_pct: 0,
                percentage_used_pct: 0,
                data_units_read: 1033,
                data_units_written: 82,
                host_read_commands: 104_187,
                host_write_commands: 88,
                controller_busy_minutes: 0,
                power_cycles: 0,
                power_on_hours: 0,
                unsafe_shutdowns: 0,
                media_errors: 0,
                error_log_entries: 0,
                warning_temperature_minutes: 0,
                critical_temperature_minutes: 0,
            }
        );
        let a = parse_smart(QEMU_AFTER);
        assert_eq!((a.data_units_written, a.host_write_commands), (86, 588));
        let log = |smart| HealthLog {
            smart,
            ocp: None,
            ocp_unavailable: Some("QEMU has none".into()),
        };
        // 500 × 4096 B = 2,048,000 B = 4 data units exactly; no OCP page, so no write amplification.
        let d = HealthDelta::between(&log(b), &log(a));
        assert_eq!(
            (
                d.data_units_written,
                d.host_write_commands,
                d.data_units_read
            ),
            (4, 500, 0)
        );
        assert_eq!((d.media_written_bytes, d.write_amplification), (None, None));
    }

    #[test]
    fn an_ocp_page_built_after_the_specification_parses_field_by_field() {
        let o = parse_ocp(&ocp_page(123_456_789_012)).expect("the OCP GUID");
        assert_eq!(
            o,
            OcpSmart {
                media_written_bytes: 123_456_789_012,
                media_read_bytes: 3 << 40,
                bad_user_nand_blocks: 7,
                bad_system_nand_blocks: 2,
                xor_recovery_count: 11,
                uncorrectable_read_errors: 13,
                soft_ecc_errors: 17,
                system_data_used_pct: 4,
                incomplete_shutdowns: 5,
                log_page_version: 3,
            }
        );
        // Past 2^64 the count saturates.
        let big = parse_ocp(&ocp_page(1u128 << 70)).expect("the OCP GUID");
        assert_eq!(big.media_written_bytes, u64::MAX);
    }

    #[test]
    fn a_c0_page_of_another_vendor_is_refused_naming_its_guid() {
        let mut p = ocp_page(1);
        p[496] ^= 0xff;
        let e = parse_ocp(&p).expect_err("not the OCP GUID");
        assert!(e.contains("AFD514C97C6F4F9CA4F2BFEA2810AF3A"), "{e}");
    }

    #[test]
    fn write_amplification_is_media_bytes_over_host_data_units() {
        let smart = |dw: u64| Smart {
            critical_warning: 0,
            temperature_c: 40,
            available_spare_pct: 100,
            available_spare_threshold_pct: 10,
            percentage_used_pct: 0,
            data_units_read: 0,
            data_units_written: dw,
            host_read_commands: 0,
            host_write_commands: dw * 125,
            controller_busy_minutes: 0,
            power_cycles: 1,
            power_on_hours: 1,
            unsafe_shutdowns: 0,
            media_errors: 0,
            error_log_entries: 0,
            warning_temperature_minutes: 0,
            critical_temperature_minutes: 0,
        };
        let log = |dw: u64, media: u128| HealthLog {
            smart: smart(dw),
            ocp: parse_ocp(&ocp_page(media)).ok(),
            ocp_unavailable: None,
        };
        // 10 data units (5,120,000 B) written by the host, 12,800,000 B to the media: 2.5.
        let d = HealthDelta::between(&log(100, 1_000_000), &log(110, 13_800_000));
        assert_eq!(d.data_units_written, 10);
        assert_eq!(d.host_write_commands, 1250);
        assert_eq!(d.media_written_bytes, Some(12_800_000));
        assert_eq!(d.write_amplification, Some(2.5));
        // Without host writes there is no ratio; without the OCP page neither.
        assert_eq!(
            HealthDelta::between(&log(5, 0), &log(5, 4096)).write_amplification,
            None
        );
        let mut no_ocp = log(110, 0);
        no_ocp.ocp = None;
        let d = HealthDelta::between(&log(100, 0), &no_ocp);
        assert_eq!((d.media_written_bytes, d.write_amplification), (None, None));
    }
}

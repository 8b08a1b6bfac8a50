//! Settings that name devices, checked once the devices are known: `SPREAD_AUTO`'s list,
//! `SPREAD_CU_DEVICES`, `SPREAD_KIND_ALIAS`, and the per-host-device lists
//! `SPREAD_HOST_DEVICE_THREADS` and `SPREAD_HOST_DEVICE_CORES`. Reading the environment cannot
//! check them (discovery comes after), so the runtime calls [`Config::check_devices`] right
//! after discovery and prints what it returns, once per process.

use super::{format_list, Config, DeviceKind};

/// "4 devices: 0 to 3", "1 device: 0", "no devices".
fn devices_phrase(n: usize) -> String {
    match n {
        0 => "there are no devices".to_string(),
        1 => "1 device: 0".to_string(),
        n => format!("{n} devices: 0 to {}", n - 1),
    }
}

impl Config {
    /// The host devices of this process (not other ranks'): those `SPREAD_DEVICES` asks for.
    pub fn local_host_devices(&self) -> usize {
        self.devices
            .iter()
            .filter(|r| r.kind == DeviceKind::Host)
            .map(|r| r.count.unwrap_or(self.host_devices))
            .sum()
    }

    /// Checks the settings that name devices against the devices found (`kinds[d]` is device
    /// `d`'s kind), drops what names a device that does not exist (or is of the wrong kind), and
    /// returns one warning per variable corrected: the variable, its value, what is wrong and
    /// what is used instead.
    pub fn check_devices(&mut self, kinds: &[DeviceKind]) -> Vec<String> {
        let n = kinds.len();
        let mut out = Vec::new();
        let missing = |list: &[i32]| -> Vec<i32> {
            list.iter()
                .copied()
                .filter(|&d| usize::try_from(d).map_or(true, |d| d >= n))
                .collect()
        };
        if let Some(list) = self.auto.as_ref().filter(|l| !l.is_empty()) {
            let gone = missing(list);
            if !gone.is_empty() {
                let kept: Vec<i32> = list.iter().copied().filter(|d| !gone.contains(d)).collect();
                let instead = match kept.len() {
                    0 => "automatic spreading is off".to_string(),
                    1 => format!(
                        "using device {} only, so no kernel is spread (that takes two devices)",
                        kept[0]
                    ),
                    _ => format!("spreading over devices {}", format_list(&kept)),
                };
                out.push(format!(
                    "SPREAD_AUTO={:?}: {} ({}); {instead}",
                    self.raw("SPREAD_AUTO"),
                    not_there(&gone),
                    devices_phrase(n)
                ));
                self.auto = (!kept.is_empty()).then_some(kept);
            }
        }
        if let Some(list) = &self.cu_devices {
            let gone = missing(list);
            if !gone.is_empty() {
                out.push(format!(
                    "SPREAD_CU_DEVICES={:?}: {} ({}); using 0,1,2,...",
                    self.raw("SPREAD_CU_DEVICES"),
                    not_there(&gone),
                    devices_phrase(n)
                ));
                self.cu_devices = None;
            }
        }
        self.check_alias(kinds, &mut out);
        let hosts = self.local_host_devices();
        let threads = self.raw("SPREAD_HOST_DEVICE_THREADS").to_string();
        if hosts == 0 && !self.host_device_threads.is_empty() {
            out.push(format!(
                "SPREAD_HOST_DEVICE_THREADS={threads:?}: there are no host devices; ignoring it"
            ));
            self.host_device_threads.clear();
        } else if self.host_device_threads.len() > hosts {
            out.push(format!(
                "SPREAD_HOST_DEVICE_THREADS={threads:?} has {} entries for {}; the entries after the first {hosts} are ignored",
                self.host_device_threads.len(),
                host_phrase(hosts),
            ));
            self.host_device_threads.truncate(hosts);
        }
        if self.host_device_cores.len() > hosts {
            out.push(format!(
                "SPREAD_HOST_DEVICE_CORES={:?} has {} core lists for {}; the lists after the first {hosts} are ignored",
                self.raw("SPREAD_HOST_DEVICE_CORES"),
                self.host_device_cores.len(),
                host_phrase(hosts)
            ));
            self.host_device_cores.truncate(hosts);
        }
        out
    }

    /// `SPREAD_KIND_ALIAS`: each named device must exist and be a host device.
    fn check_alias(&mut self, kinds: &[DeviceKind], out: &mut Vec<String>) {
        let mut why = Vec::new();
        self.sharing.alias.retain(|&(d, _)| match kinds.get(d) {
            None => {
                why.push(format!("device {d} does not exist"));
                false
            }
            Some(DeviceKind::Host) => true,
            Some(k) => {
                why.push(format!("device {d} is not a host device ({})", k.as_str()));
                false
            }
        });
        if !why.is_empty() {
            out.push(format!(
                "SPREAD_KIND_ALIAS={:?}: {} ({}); ignoring {}",
                self.raw("SPREAD_KIND_ALIAS"),
                why.join(", "),
                devices_phrase(kinds.len()),
                if why.len() == 1 {
                    "that device"
                } else {
                    "those devices"
                }
            ));
        }
    }
}

fn not_there(gone: &[i32]) -> String {
    match gone {
        [d] => format!("device {d} does not exist"),
        _ => format!("devices {} do not exist", format_list(gone)),
    }
}

fn host_phrase(n: usize) -> String {
    match n {
        1 => "1 host device".to_string(),
        n => format!("{n} host devices"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::cfg;
    use super::*;

    const FOUR: [DeviceKind; 4] = [DeviceKind::Host; 4];

    #[test]
    fn good_settings_say_nothing() {
        let mut c = cfg(&[
            ("SPREAD_AUTO", "0,3"),
            ("SPREAD_CU_DEVICES", "1,2"),
            ("SPREAD_KIND_ALIAS", "nvidia:0,1"),
            ("SPREAD_HOST_DEVICE_THREADS", "1,2,1,2"),
            ("SPREAD_HOST_DEVICE_CORES", "0;1"),
        ]);
        let before = c.clone();
        assert!(c.check_devices(&FOUR).is_empty());
        assert_eq!(c, before);
        let mut c = cfg(&[]);
        assert!(c.check_devices(&[]).is_empty());
    }

    #[test]
    fn auto_list_naming_a_missing_device() {
        let mut c = cfg(&[("SPREAD_AUTO", "0,9")]);
        let w = c.check_devices(&FOUR);
        assert_eq!(
            w,
            vec!["SPREAD_AUTO=\"0,9\": device 9 does not exist (4 devices: 0 to 3); using device 0 only, so no kernel is spread (that takes two devices)"]
        );
        assert_eq!(c.auto, Some(vec![0]));
        let mut c = cfg(&[("SPREAD_AUTO", "0, 2,7,8")]);
        let w = c.check_devices(&FOUR);
        assert_eq!(
            w,
            vec!["SPREAD_AUTO=\"0, 2,7,8\": devices 7,8 do not exist (4 devices: 0 to 3); spreading over devices 0,2"]
        );
        assert_eq!(c.auto, Some(vec![0, 2]));
        let mut c = cfg(&[("SPREAD_AUTO", "5")]);
        let w = c.check_devices(&FOUR);
        assert!(w[0].ends_with("automatic spreading is off"), "{w:?}");
        assert_eq!(c.auto, None);
        // "every device" names none.
        let mut c = cfg(&[("SPREAD_AUTO", "1")]);
        assert!(c.check_devices(&[]).is_empty());
    }

    #[test]
    fn cu_devices_and_aliases_naming_missing_devices() {
        let mut c = cfg(&[("SPREAD_CU_DEVICES", "1,4")]);
        let w = c.check_devices(&FOUR);
        assert_eq!(
            w,
            vec!["SPREAD_CU_DEVICES=\"1,4\": device 4 does not exist (4 devices: 0 to 3); using 0,1,2,..."]
        );
        assert_eq!(c.cu_devices, None);
        let mut c = cfg(&[("SPREAD_KIND_ALIAS", "nvidia:0,9;cpu:1")]);
        let kinds = [DeviceKind::Host, DeviceKind::Cuda];
        let w = c.check_devices(&kinds);
        assert_eq!(
            w,
            vec!["SPREAD_KIND_ALIAS=\"nvidia:0,9;cpu:1\": device 9 does not exist, device 1 is not a host device (cuda) (2 devices: 0 to 1); ignoring those devices"]
        );
        assert_eq!(c.sharing.alias.len(), 1);
    }

    #[test]
    fn per_host_device_lists_longer_than_the_host_devices() {
        let mut c = cfg(&[
            ("SPREAD_HOST_DEVICES", "2"),
            ("SPREAD_HOST_DEVICE_THREADS", "1,2,3"),
            ("SPREAD_HOST_DEVICE_CORES", "0;1;0"),
        ]);
        let w = c.check_devices(&[DeviceKind::Host; 2]);
        assert_eq!(w.len(), 2, "{w:?}");
        assert_eq!(
            w[0],
            "SPREAD_HOST_DEVICE_THREADS=\"1,2,3\" has 3 entries for 2 host devices; the entries after the first 2 are ignored"
        );
        assert_eq!(
            w[1],
            "SPREAD_HOST_DEVICE_CORES=\"0;1;0\" has 3 core lists for 2 host devices; the lists after the first 2 are ignored"
        );
        assert_eq!(c.host_device_threads, vec![1, 2]);
        // SPREAD_DEVICES decides how many host devices there are.
        let mut c = cfg(&[
            ("SPREAD_DEVICES", "host:1"),
            ("SPREAD_HOST_DEVICE_THREADS", "1,2"),
        ]);
        assert_eq!(c.local_host_devices(), 1);
        assert_eq!(c.check_devices(&[DeviceKind::Host]).len(), 1);
        let mut c = cfg(&[
            ("SPREAD_HOST_DEVICES", "0"),
            ("SPREAD_HOST_DEVICE_THREADS", "2"),
        ]);
        let w = c.check_devices(&[]);
        assert!(w[0].contains("there are no host devices"), "{w:?}");
        assert!(c.host_device_threads.is_empty());
    }
}

use super::*;

fn event(
    device: usize,
    kind: u8,
    ts_us: f64,
    dur_us: f64,
    name: &str,
    label: Option<&str>,
) -> Event {
    Event {
        name: name.into(),
        cat: if kind == 0 { "kernel" } else { "transfer" },
        kind,
        bytes: if kind == 0 { 0 } else { 1 << 20 },
        device,
        ts_us,
        dur_us,
        label: label.map(str::to_string),
    }
}

/// The numbers of the page data's `"ev"` array, six per kept operation.
fn kept_ops(page: &str) -> Vec<f64> {
    let from = page.find("\"ev\":[").map(|i| i + 6).unwrap_or(0);
    let to = from + page[from..].find(']').unwrap_or(0);
    page[from..to]
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(f64::NAN))
        .collect()
}

#[test]
fn a_short_run_shows_every_operation() {
    let events = vec![
        event(
            2,
            1,
            0.0,
            4.0,
            "H2D 3200 B",
            Some("target spread a.c:3 chunk [0,4)"),
        ),
        event(
            2,
            0,
            4.5,
            2.0,
            "kernel \"k\" <x>",
            Some("target spread a.c:3 chunk [0,4)"),
        ),
        event(0, 2, 7.0, 1.0, "D2H 3200 B", None),
    ];
    let page = render(&events);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.trim_end().ends_with("</html>"));
    assert!(page.contains("Spread trace: 3 operations on 2 devices"));
    assert!(page.contains("Every operation is shown (3)."));
    let ops = kept_ops(&page);
    assert_eq!(ops.len(), 3 * 6, "{page}");
    // Rows, kinds and times in start order; labels by index.
    assert_eq!(&ops[..6], &[1.0, 1.0, 0.0, 4.0, 0.0, 0.0]);
    assert_eq!(&ops[6..12], &[1.0, 0.0, 4.5, 2.0, 1.0, 0.0]);
    assert_eq!(&ops[12..], &[0.0, 2.0, 7.0, 1.0, 2.0, -1.0]);
    assert!(page.contains("\"rows\":[\"device 0\",\"device 2\"]"));
    // Names are JSON strings that cannot close the script element.
    assert!(
        page.contains("\"kernel \\\"k\\\" \\u003cx\\u003e\""),
        "{page}"
    );
    assert!(!page.contains("\"agg\""));
    assert!(page.contains(
        "<tr><th>device 2</th><td>2</td><td>1</td><td>0.002</td><td>1</td><td>1.00</td>"
    ));
    // Nothing outside the page.
    assert!(!page.contains("src=") && !page.contains("href="));
}

#[test]
fn a_long_run_is_bounded_and_keeps_every_row_and_the_totals() {
    // 300,000 operations on four devices and the host share (device 5), 14 s, each with a
    // name and a label of its own, as long as they are kept: the worst case for the size.
    let n = 300_000;
    let rows = [0, 1, 2, 3, 5];
    let long = "x".repeat(300);
    let events: Vec<Event> = (0..n)
        .map(|i| {
            let name = format!("kernel {i} {long}");
            let label = format!("target spread f.c:{i} chunk [{i},{}) {long}", i + 1);
            let mut e = event(
                rows[i % 5],
                (i % 3) as u8,
                i as f64 * 46.0,
                30.0,
                &name,
                Some(&label),
            );
            e.bytes = 1000;
            e
        })
        .collect();
    let page = render(&events);
    assert!(page.len() < MAX_BYTES, "{} bytes", page.len());
    let ops = kept_ops(&page);
    assert!(
        ops.len() / 6 >= MAX_DETAIL && ops.len() / 6 <= MAX_DETAIL + 10,
        "{}",
        ops.len() / 6
    );
    assert!(page
        .contains("\"rows\":[\"device 0\",\"device 1\",\"device 2\",\"device 3\",\"device 5\"]"));
    assert!(page.contains("\"agg\":{\"slices\":16384,"), "slices");
    assert!(page.contains(&format!(
        "A long run: {} of its {n} operations",
        ops.len() / 6
    )));
    // The totals count every operation: 60,000 per device, a third of them kernels.
    for d in rows {
        let row = format!(
            "<tr><th>device {d}</th><td>60000</td><td>20000</td><td>600.000</td><td>20000</td>"
        );
        assert!(page.contains(&row), "{d}");
    }
    // Three windows, each with its button.
    assert_eq!(
        page.matches("shaded windows: the first operations").count(),
        1
    );
    assert!(page.contains("the middle of the run") && page.contains("the last operations"));
}

#[test]
fn windows_hold_every_operation_that_starts_in_them() {
    // Two devices, operations of varying length that overlap.
    let n = 100_000;
    let events: Vec<Event> = (0..n)
        .map(|i| {
            event(
                i % 2,
                0,
                (i / 2) as f64 * 10.0,
                5.0 + (i % 7) as f64 * 3.0,
                "k",
                None,
            )
        })
        .collect();
    let sorted: Vec<&Event> = events.iter().collect();
    let (kept, windows) = select(&sorted);
    assert_eq!(windows.len(), 3);
    for w in &windows {
        for (i, e) in sorted.iter().enumerate() {
            let inside = e.ts_us >= w.from && e.ts_us <= w.to;
            let running = e.ts_us < w.from && e.ts_us + e.dur_us > w.from;
            if inside || running {
                assert!(
                    kept.binary_search(&i).is_ok(),
                    "{} in {}..{}",
                    e.ts_us,
                    w.from,
                    w.to
                );
            }
        }
    }
    assert!(windows[0].from == 0.0 && windows[2].to == sorted[n - 1].ts_us);
}

#[test]
fn busy_fractions_per_slice_and_kind() {
    // Device 0 runs kernels all the time; device 1 copies to itself during the first half.
    let events = [
        event(0, 0, 0.0, 1000.0, "k", None),
        event(1, 1, 0.0, 500.0, "h", None),
    ];
    let sorted: Vec<&Event> = events.iter().collect();
    let (slices, bytes) = busy_fractions(&sorted, &[0, 1], 1000.0);
    assert_eq!(slices, MAX_SLICES);
    let at = |row: usize, s: usize, k: usize| bytes[(row * slices + s) * KINDS + k];
    assert!((0..slices).all(|s| at(0, s, 0) == 255 && at(0, s, 1) == 0));
    assert_eq!((at(1, 0, 1), at(1, slices / 2 - 1, 1)), (255, 255));
    assert_eq!((at(1, slices / 2, 1), at(1, slices - 1, 1)), (0, 0));
    // Up to 8 devices get every slice; more share them.
    let rows: Vec<usize> = (0..9).collect();
    assert_eq!(busy_fractions(&sorted, &rows[..8], 1000.0).0, MAX_SLICES);
    assert_eq!(busy_fractions(&sorted, &rows, 1000.0).0, MAX_SLICES / 2);
}

#[test]
fn base64_and_busy_time() {
    assert_eq!(base64(b""), "");
    assert_eq!(base64(b"f"), "Zg==");
    assert_eq!(base64(b"fo"), "Zm8=");
    assert_eq!(base64(b"foo"), "Zm9v");
    assert_eq!(base64(&[0xff, 0xfe, 0x00, 0x01]), "//4AAQ==");
    let mut spans = vec![(5.0, 8.0), (0.0, 2.0), (1.0, 3.0), (7.0, 9.0)];
    assert_eq!(union_length(&mut spans), 7.0);
}

#[test]
fn names_and_labels_are_cut() {
    let mut s = Strings::default();
    let long = "é".repeat(200);
    let i = s.index(&long, LABEL_MAX);
    assert_eq!(s.index(&long, LABEL_MAX), i);
    assert_eq!(s.list[i].chars().count(), LABEL_MAX + 3);
}

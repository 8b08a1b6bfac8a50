//! `SPREAD_TRACE=FILE.html`: the trace as one self-contained page (no external resources; it
//! opens offline in any browser) whose size does not grow with the run.
//!
//! The page draws one row per device on a canvas (`timeline.js`, embedded): kernels blue,
//! copies to a device green, from it orange, others grey; the wheel zooms, dragging pans, and
//! hovering names an operation (its construct and duration). Under it a table gives every
//! device's totals over the whole run, all operations counted.
//!
//! A run of up to [`MAX_DETAIL`] operations keeps every one of them, as boxes. A longer run (a
//! 14 s solver traced 307,304 operations, a 50 MB page before) keeps:
//!
//! - every operation of three *windows* of the run, [`MAX_DETAIL`] operations in all: its
//!   first operations, those around its middle, its last ones (an iterative program repeats
//!   its steps, so each window shows what a step does; the first also shows the start-up
//!   copies). The page shades them and zooms to each with a button;
//! - elsewhere, how busy each device was: per device and per slice of the run (up to
//!   16,384 slices per device), the fraction of the slice each kind of operation took,
//!   drawn as stacked bars, merged further when zoomed out.
//!
//! Names and labels are shortened to [`NAME_MAX`] and [`LABEL_MAX`] characters, so the page
//! stays under [`MAX_BYTES`] whatever the run's length.

use super::Event;
use std::fmt::Write as _;

/// Most operations a page keeps as boxes.
pub const MAX_DETAIL: usize = 15_000;

/// Bound on a page's size (checked by the tests with the longest names and labels).
pub const MAX_BYTES: usize = 4 << 20;

/// Longest operation name kept (`H2D 3200 B`, a kernel's name).
pub const NAME_MAX: usize = 48;

/// Longest label kept (`target spread f.c:17 chunk [0,400)`).
pub const LABEL_MAX: usize = 96;

/// The busy-fraction slices of all rows together (each slice: one byte per kind).
const AGGREGATE_CELLS: usize = 1 << 17;

/// Most slices per row.
const MAX_SLICES: usize = 1 << 14;

/// The kinds of operations, in the order of their colours on the page and their bytes in a
/// slice.
const KINDS: usize = 4;

/// The page's script: draws the rows, zooms, pans, shows the tooltips.
const SCRIPT: &str = include_str!("timeline.js");

/// The page for `events` (in any order).
pub fn render(events: &[Event]) -> String {
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by(|&a, &b| events[a].ts_us.total_cmp(&events[b].ts_us));
    let sorted: Vec<&Event> = order.iter().map(|&i| &events[i]).collect();
    let mut devices: Vec<usize> = events.iter().map(|e| e.device).collect();
    devices.sort_unstable();
    devices.dedup();
    let end_us = events
        .iter()
        .map(|e| e.ts_us + e.dur_us)
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let (kept, windows) = select(&sorted);
    let mut o = String::with_capacity(64 << 10);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Spread trace</title>\n<style>\
body{{font:13px sans-serif;margin:12px}}#wrap{{border:1px solid #ccc;position:relative}}\
canvas{{display:block;cursor:grab}}#tip{{position:fixed;display:none;background:#ffe;border:1px solid #999;\
padding:3px 6px;pointer-events:none;white-space:pre;font:12px monospace;z-index:2}}\
table{{border-collapse:collapse;margin-top:10px}}td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}\
th{{background:#f4f4f4}}button{{margin-right:4px}}.k{{color:#4a7fd0}}.h{{color:#3aa655}}.d{{color:#e08a2c}}.o{{color:#999}}\
</style>\n</head><body>\n<h3>Spread trace: {} operations on {} devices over {:.3} ms</h3>\n\
<p>Rows are devices; boxes are operations (<span class=\"k\">kernels</span>, \
<span class=\"h\">copies to the device</span>, <span class=\"d\">copies from it</span>, \
<span class=\"o\">other copies</span>); hover for the operation, its construct and duration. \
Gaps in a row are the device's idle time. Wheel or buttons: zoom; drag: pan.</p>\n",
        events.len(),
        devices.len(),
        end_us / 1000.0
    );
    o.push_str(&detail_note(events.len(), kept.len(), &windows));
    o.push_str(
        "<p id=\"bar\"></p>\n<div id=\"wrap\"><canvas id=\"tl\"></canvas></div><div id=\"tip\"></div>\n\
<noscript><p>The timeline needs JavaScript; the totals below do not.</p></noscript>\n",
    );
    o.push_str(&totals(events, &devices, end_us));
    o.push_str("<script type=\"application/json\" id=\"trace-data\">");
    data(&mut o, &sorted, &kept, &windows, &devices, end_us);
    o.push_str("</script>\n<script>\n");
    o.push_str(SCRIPT);
    o.push_str("</script>\n</body></html>\n");
    debug_assert!(o.len() < MAX_BYTES, "a trace page of {} bytes", o.len());
    o
}

/// A span of the run in which every operation is kept: `[from, to]` in microseconds.
struct Window {
    name: &'static str,
    from: f64,
    to: f64,
}

/// The operations kept as boxes (indices into `sorted`, which is in start order) and the
/// windows in which they are all there is.
fn select(sorted: &[&Event]) -> (Vec<usize>, Vec<Window>) {
    let n = sorted.len();
    if n <= MAX_DETAIL {
        let to = sorted
            .iter()
            .map(|e| e.ts_us + e.dur_us)
            .fold(0.0, f64::max);
        return (
            (0..n).collect(),
            vec![Window {
                name: "the whole run",
                from: 0.0,
                to,
            }],
        );
    }
    // Three runs of consecutive operations (in start order): the first, those around the
    // middle of the run's time, the last.
    let third = MAX_DETAIL / 3;
    let end = sorted
        .iter()
        .map(|e| e.ts_us + e.dur_us)
        .fold(0.0, f64::max);
    let middle = sorted.partition_point(|e| e.ts_us < end / 2.0);
    let middle = middle.saturating_sub(third / 2).min(n - third);
    let runs = [
        ("the first operations", 0, third),
        ("the middle of the run", middle, middle + third),
        ("the last operations", n - third, n),
    ];
    let mut keep = vec![false; n];
    let mut windows: Vec<Window> = Vec::new();
    for (name, lo, hi) in runs {
        // Operations starting at the same instant as the run's last are in it too.
        let last = sorted[hi - 1].ts_us;
        let hi = hi + sorted[hi..].iter().take_while(|e| e.ts_us <= last).count();
        let (from, to) = (sorted[lo].ts_us, last);
        keep[lo..hi].iter_mut().for_each(|k| *k = true);
        // Earlier operations still running when the window opens.
        for (i, e) in sorted[..lo].iter().enumerate() {
            if e.ts_us + e.dur_us > from {
                keep[i] = true;
            }
        }
        match windows.last_mut() {
            Some(w) if from <= w.to => w.to = w.to.max(to),
            _ => windows.push(Window { name, from, to }),
        }
    }
    let kept = (0..n).filter(|&i| keep[i]).collect();
    (kept, windows)
}

/// What the page shows of the run, in words.
fn detail_note(total: usize, kept: usize, windows: &[Window]) -> String {
    if kept == total {
        return format!("<p>Every operation is shown ({total}).</p>\n");
    }
    let spans: Vec<String> = windows
        .iter()
        .map(|w| {
            format!(
                "{} ({:.3} to {:.3} ms)",
                w.name,
                w.from / 1000.0,
                w.to / 1000.0
            )
        })
        .collect();
    format!(
        "<p>A long run: {kept} of its {total} operations are shown as boxes, all those of the \
shaded windows: {}. Elsewhere each row shows how busy the device was: the share of each \
pixel's time its kernels and copies took (stacked bars, in the same colours). The totals count \
every operation.</p>\n",
        spans.join(", ")
    )
}

/// The kind of an operation: 0 kernel, 1 copy to the device, 2 copy from it, 3 other copy.
fn kind(e: &Event) -> usize {
    usize::from(e.kind).min(KINDS - 1)
}

/// Per device, over the whole run: operations, kernels and their time, copies each way and
/// their bytes, and the time at least one operation ran.
fn totals(events: &[Event], devices: &[usize], end_us: f64) -> String {
    #[derive(Default)]
    struct Row {
        ops: u64,
        count: [u64; KINDS],
        bytes: [u64; KINDS],
        kernel_us: f64,
        spans: Vec<(f64, f64)>,
    }
    let mut rows: Vec<Row> = devices.iter().map(|_| Row::default()).collect();
    for e in events {
        let Ok(r) = devices.binary_search(&e.device) else {
            continue;
        };
        let row = &mut rows[r];
        let k = kind(e);
        row.ops += 1;
        row.count[k] += 1;
        row.bytes[k] += e.bytes;
        if k == 0 {
            row.kernel_us += e.dur_us;
        }
        row.spans.push((e.ts_us, e.ts_us + e.dur_us));
    }
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    let mut o = String::from(
        "<table id=\"totals\"><tr><th>device</th><th>operations</th><th>kernels</th><th>kernel ms</th>\
<th>copies to it</th><th>MiB to it</th><th>copies from it</th><th>MiB from it</th><th>other copies</th>\
<th>busy ms</th><th>busy</th></tr>\n",
    );
    for (d, row) in devices.iter().zip(&mut rows) {
        let busy = union_length(&mut row.spans);
        let _ = writeln!(
            o,
            "<tr><th>device {d}</th><td>{}</td><td>{}</td><td>{:.3}</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{:.3}</td><td>{:.1}%</td></tr>",
            row.ops,
            row.count[0],
            row.kernel_us / 1000.0,
            row.count[1],
            mib(row.bytes[1]),
            row.count[2],
            mib(row.bytes[2]),
            row.count[3],
            busy / 1000.0,
            100.0 * busy / end_us
        );
    }
    o.push_str("</table>\n");
    o
}

/// The time covered by at least one of `spans` (sorted in place).
fn union_length(spans: &mut [(f64, f64)]) -> f64 {
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut total = 0.0;
    let mut current: Option<(f64, f64)> = None;
    for &(a, b) in spans.iter() {
        current = match current {
            Some((lo, hi)) if a <= hi => Some((lo, hi.max(b))),
            Some((lo, hi)) => {
                total += hi - lo;
                Some((a, b))
            }
            None => Some((a, b)),
        };
    }
    total + current.map_or(0.0, |(lo, hi)| hi - lo)
}

/// The page's data, as JSON: the run's end, the rows, the kept operations (flat: row, kind,
/// start, duration, name, label; names and labels as indices into tables of distinct
/// strings), the windows, and the busy fractions when operations were left out.
fn data(
    o: &mut String,
    sorted: &[&Event],
    kept: &[usize],
    windows: &[Window],
    devices: &[usize],
    end_us: f64,
) {
    let mut names = Strings::default();
    let mut labels = Strings::default();
    let mut ev = String::with_capacity(kept.len() * 28);
    for &i in kept {
        let e = sorted[i];
        let row = devices.binary_search(&e.device).unwrap_or(0);
        let name = names.index(&e.name, NAME_MAX);
        let label = e
            .label
            .as_deref()
            .map_or(-1, |l| labels.index(l, LABEL_MAX) as i64);
        let _ = write!(
            ev,
            "{row},{},{:.1},{:.1},{name},{label},",
            kind(e),
            e.ts_us,
            e.dur_us
        );
    }
    ev.pop();
    let rows: Vec<String> = devices.iter().map(|d| format!("\"device {d}\"")).collect();
    let wins: Vec<String> = windows
        .iter()
        .map(|w| format!("[{:.1},{:.1},{}]", w.from, w.to, json_string(w.name)))
        .collect();
    let _ = write!(
        o,
        "{{\"end\":{end_us:.1},\"total\":{},\"rows\":[{}],\"names\":[{}],\"labels\":[{}],\"ev\":[{ev}],\"windows\":[{}]",
        sorted.len(),
        rows.join(","),
        names.json(),
        labels.json(),
        wins.join(",")
    );
    if kept.len() < sorted.len() {
        let (slices, bytes) = busy_fractions(sorted, devices, end_us);
        let _ = write!(
            o,
            ",\"agg\":{{\"slices\":{slices},\"data\":\"{}\"}}",
            base64(&bytes)
        );
    }
    o.push('}');
}

/// Distinct strings and their indices.
#[derive(Default)]
struct Strings {
    list: Vec<String>,
    index: std::collections::HashMap<String, usize>,
}

impl Strings {
    /// The index of `s` (cut to `max` characters).
    fn index(&mut self, s: &str, max: usize) -> usize {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let cut = match s.char_indices().nth(max) {
            Some((at, _)) => format!("{}...", &s[..at]),
            None => s.to_string(),
        };
        self.list.push(cut);
        self.index.insert(s.to_string(), self.list.len() - 1);
        self.list.len() - 1
    }

    fn json(&self) -> String {
        let parts: Vec<String> = self.list.iter().map(|s| json_string(s)).collect();
        parts.join(",")
    }
}

/// Per row and slice of the run, the fraction of the slice each kind of operation took
/// (0-255, a byte per kind, rows one after the other): the number of slices per row and the
/// bytes.
fn busy_fractions(sorted: &[&Event], devices: &[usize], end_us: f64) -> (usize, Vec<u8>) {
    let per_row = (AGGREGATE_CELLS / devices.len().max(1)).max(1);
    // The largest power of two that fits, so that zooming out merges whole slices.
    let slices = (1usize << per_row.ilog2()).clamp(256, MAX_SLICES);
    let width = end_us / slices as f64;
    let mut busy = vec![0f64; devices.len() * slices * KINDS];
    for e in sorted {
        let Ok(row) = devices.binary_search(&e.device) else {
            continue;
        };
        let (a, b) = (e.ts_us, e.ts_us + e.dur_us);
        let first = ((a / width) as usize).min(slices - 1);
        let last = ((b / width) as usize).min(slices - 1);
        for s in first..=last {
            let (lo, hi) = (s as f64 * width, (s + 1) as f64 * width);
            let overlap = b.min(hi) - a.max(lo);
            if overlap > 0.0 {
                busy[(row * slices + s) * KINDS + kind(e)] += overlap;
            }
        }
    }
    let bytes = busy
        .iter()
        .map(|&t| {
            let f = (t / width).clamp(0.0, 1.0);
            // Any work at all shows (at least 1/255).
            if t > 0.0 {
                ((f * 255.0).round() as u8).max(1)
            } else {
                0
            }
        })
        .collect();
    (slices, bytes)
}

/// `bytes` in base64 (RFC 4648, with padding).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> shift) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `s` as a JSON string that is also safe inside an HTML `<script>` element.
fn json_string(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '<' => o.push_str("\\u003c"),
            '>' => o.push_str("\\u003e"),
            '&' => o.push_str("\\u0026"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

#[cfg(test)]
mod tests;

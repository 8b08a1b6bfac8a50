//! A kernel's access descriptor (`__spread_kinfo_<kernel>`, written by the pass plugin's
//! `spread-auto` analysis, docs/pass.md) and what it allows: the section of each mapped
//! argument that a block `[lo, hi)` of the kernel's normalized iterations touches.
//!
//! Pure: no runtime state, so every decision is tested here. Addresses are host addresses; the
//! arithmetic is done in `i128` so that a bogus tripcount (clang does not guard it: an empty
//! loop at -O0 gives 2^32 - 1) makes a section fall outside its mapping instead of wrapping.

use std::fmt;

/// What an access does with the bytes it touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Reads them.
    Read,
    /// Writes them.
    Write,
    /// Reads and writes them (the same affine address).
    ReadWrite,
    /// Reads the argument at addresses the analysis could not follow (a gather): every block
    /// needs the whole mapped section.
    Whole,
    /// Is the variable of a `reduction` clause: `c0` is the operator and `c1` the type, as
    /// spread.h codes them (`__SPREAD_RED_*`, `__SPREAD_RTYPE_*`), `width` its size. Each block
    /// reduces into a partial of its own, combined into the variable on the host.
    Reduce,
    /// Is updated atomically element by element (`#pragma omp atomic` `h[x[i]] += 1`, a
    /// histogram) with the operator and element type of a [`Mode::Reduce`]: each block updates
    /// a whole copy of its own that starts from the identity, combined element by element into
    /// the mapped array on the host.
    ReduceElements,
}

impl Mode {
    fn writes(self) -> bool {
        matches!(self, Mode::Write | Mode::ReadWrite)
    }
}

/// The scalar kernel argument an access's address depends on (`y[n - 1 - i]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sym {
    /// Its kernel argument.
    pub param: u32,
    /// Its width in bits (32 or 64), in the low bits of the argument slot, sign-extended.
    pub bits: u32,
    /// Bytes per unit of its value.
    pub coeff: i64,
}

/// One access of the kernel: bytes `[off, off + width)` of kernel argument `param`, where
/// `off = c0 + c1 * i + sym.coeff * sym` for normalized iteration `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// The kernel argument (the index of its `TARGET_PARAM` map entry).
    pub param: u32,
    /// Read, written or both.
    pub mode: Mode,
    /// Constant byte offset.
    pub c0: i64,
    /// Bytes per iteration.
    pub c1: i64,
    /// Bytes accessed.
    pub width: i64,
    /// The symbolic part of the offset, if any.
    pub sym: Option<Sym>,
}

/// A kernel's descriptor: every access through its pointer arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelInfo {
    /// The accesses (a pointer argument without any is not touched).
    pub accesses: Vec<Access>,
}

const MAGIC: &[u8; 4] = b"SPRD";
const VERSION: u32 = 1;
const HEADER: usize = 16;
const RECORD: usize = 48;

fn u32_at(b: &[u8], off: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[off..off + 4]);
    u32::from_le_bytes(a)
}

fn i64_at(b: &[u8], off: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[off..off + 8]);
    i64::from_le_bytes(a)
}

impl KernelInfo {
    /// Reads a descriptor: `"SPRD"`, version 1, the record count, flags; then 48-byte records
    /// `{u32 param, u32 mode, i64 c0, i64 c1, i64 width, i32 sym_param, u32 sym_bits,
    /// i64 sym_coeff}`, little-endian.
    pub fn parse(b: &[u8]) -> Result<KernelInfo, String> {
        if b.len() < HEADER || &b[..4] != MAGIC {
            return Err("not a Spread kernel descriptor (no SPRD header)".into());
        }
        let version = u32_at(b, 4);
        if version != VERSION {
            return Err(format!(
                "descriptor version {version}, this runtime reads version {VERSION} (rebuild with this Spread's pass plugin)"
            ));
        }
        let n = u32_at(b, 8) as usize;
        let need = n
            .checked_mul(RECORD)
            .and_then(|r| r.checked_add(HEADER))
            .ok_or("descriptor record count overflows")?;
        if b.len() < need {
            return Err(format!(
                "descriptor of {} bytes is too short for {n} records",
                b.len()
            ));
        }
        let mut accesses = Vec::with_capacity(n);
        for k in 0..n {
            let r = HEADER + k * RECORD;
            let mode = match u32_at(b, r + 4) {
                1 => Mode::Read,
                2 => Mode::Write,
                3 => Mode::ReadWrite,
                4 => Mode::Whole,
                5 => Mode::Reduce,
                6 => Mode::ReduceElements,
                m => return Err(format!("record {k} has unknown mode {m}")),
            };
            let width = i64_at(b, r + 24);
            if width <= 0 {
                return Err(format!("record {k} has width {width}"));
            }
            let sym_param = u32_at(b, r + 32) as i32;
            let sym = match sym_param {
                -1 => None,
                p if p >= 0 => {
                    let bits = u32_at(b, r + 36);
                    if bits != 32 && bits != 64 {
                        return Err(format!("record {k} has a {bits}-bit symbolic argument"));
                    }
                    Some(Sym {
                        param: p as u32,
                        bits,
                        coeff: i64_at(b, r + 40),
                    })
                }
                p => return Err(format!("record {k} names argument {p}")),
            };
            accesses.push(Access {
                param: u32_at(b, r),
                mode,
                c0: i64_at(b, r + 8),
                c1: i64_at(b, r + 16),
                width,
                sym,
            });
        }
        Ok(KernelInfo { accesses })
    }

    /// Writes the descriptor [`parse`](Self::parse) reads (for tests and tools).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER + RECORD * self.accesses.len());
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&(self.accesses.len() as u32).to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        for a in &self.accesses {
            let mode: u32 = match a.mode {
                Mode::Read => 1,
                Mode::Write => 2,
                Mode::ReadWrite => 3,
                Mode::Whole => 4,
                Mode::Reduce => 5,
                Mode::ReduceElements => 6,
            };
            b.extend_from_slice(&a.param.to_le_bytes());
            b.extend_from_slice(&mode.to_le_bytes());
            b.extend_from_slice(&a.c0.to_le_bytes());
            b.extend_from_slice(&a.c1.to_le_bytes());
            b.extend_from_slice(&a.width.to_le_bytes());
            let (p, bits, coeff) = a
                .sym
                .map_or((-1i32, 0u32, 0i64), |s| (s.param as i32, s.bits, s.coeff));
            b.extend_from_slice(&p.to_le_bytes());
            b.extend_from_slice(&bits.to_le_bytes());
            b.extend_from_slice(&coeff.to_le_bytes());
        }
        b
    }
}

/// One map entry of the launch, as the plan sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// `ArgBasePtrs[i]` (for a by-value argument, its value).
    pub base: usize,
    /// `ArgPtrs[i]`.
    pub begin: usize,
    /// `ArgSizes[i]`.
    pub size: i64,
    /// `ArgTypes[i]`.
    pub types: i64,
}

/// Map-type bits the plan reads (libomptarget's `OMP_TGT_MAPTYPE_*`).
mod bits {
    pub const FROM: i64 = 0x2;
    pub const PTR_AND_OBJ: i64 = 0x10;
    pub const TARGET_PARAM: i64 = 0x20;
    pub const LITERAL: i64 = 0x100;
    pub const PRIVATE: i64 = 0x80;
    pub const MEMBER_OF: i64 = 0xffff_0000_0000_0000u64 as i64;
    pub const NON_CONTIG: i64 = 0x1000_0000_0000;
}

/// Why a launch is not spread (it then runs as the program wrote it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String, pub Option<Arg>);

/// The kernel argument a refusal is about: its number (as messages say it) and its map entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arg {
    /// The kernel argument's number (`argument {number}`).
    pub number: usize,
    /// Its map entry (where its name string is).
    pub entry: usize,
}

impl Refusal {
    /// The message with the argument named as the program wrote it, where `name` (the map
    /// entry's name, e.g. `'u' (declared at heat.c:12:10)`) gives one.
    pub fn named(self, name: impl FnOnce(usize) -> Option<String>) -> String {
        let Some(arg) = self.1 else {
            return self.0;
        };
        let Some(n) = name(arg.entry) else {
            return self.0;
        };
        let plain = format!("argument {}", arg.number);
        match self.0.strip_prefix(&plain) {
            Some(rest) => format!("{plain} ({n}){rest}"),
            None => self.0,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn refuse<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal(why.into(), None))
}

/// A refusal about kernel argument `number`, whose map entry is `entry`.
fn refuse_arg<T>(number: usize, entry: usize, why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal(why.into(), Some(Arg { number, entry })))
}

/// How one map entry is cut into blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cut {
    /// Passed as it is (a by-value argument, a private copy).
    Keep,
    /// The whole section on every device, not copied back (read-only or untouched).
    Replicate,
    /// The hull of these accesses per block, copied back when one of them writes.
    Affine {
        accesses: Vec<(i128, i128, i128)>,
        writes: bool,
    },
    /// A reduction variable: a partial per block (the caller's), combined on the host.
    Reduce { op: i32, ty: i32 },
}

/// A reduction variable of a spread launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reduction {
    /// Its map entry.
    pub entry: usize,
    /// spread.h's operator code.
    pub op: i32,
    /// spread.h's type code.
    pub ty: i32,
    /// The variable's host address.
    pub original: usize,
    /// Its size in bytes.
    pub size: usize,
}

/// A launch that can be spread: how each of its map entries is cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    entries: Vec<Entry>,
    cuts: Vec<Cut>,
    tripcount: u64,
}

/// The section of one entry for one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    /// First host byte.
    pub begin: usize,
    /// Bytes.
    pub size: i64,
    /// Map type (the entry's, without `FROM` where the block writes nothing back).
    pub types: i64,
    /// Whether the block writes into the section.
    pub writes: bool,
}

impl Plan {
    /// Decides, for the whole iteration space `[0, tripcount)`, how each entry is cut; refuses
    /// when a block's sections could leave the mapped ones or two blocks could write back
    /// overlapping bytes, whatever the blocks.
    pub fn new(info: &KernelInfo, entries: &[Entry], tripcount: u64) -> Result<Plan, Refusal> {
        if tripcount < 2 {
            return refuse(format!("{tripcount} iteration(s)"));
        }
        if tripcount > i64::MAX as u64 {
            return refuse(format!(
                "tripcount {tripcount} is not a loop's (an empty loop at -O0?)"
            ));
        }
        // Kernel argument k is the k-th TARGET_PARAM entry.
        let mut param_entry = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            if e.types & (bits::MEMBER_OF | bits::PTR_AND_OBJ) != 0 {
                return refuse(format!(
                    "map entry {i} is a struct member or pointer-and-object map"
                ));
            }
            if e.types & bits::NON_CONTIG != 0 {
                return refuse(format!("map entry {i} is non-contiguous"));
            }
            if e.types & bits::TARGET_PARAM != 0 {
                param_entry.push(i);
            }
        }
        let mut cuts: Vec<Cut> = entries.iter().map(|_| Cut::Keep).collect();
        for (k, &i) in param_entry.iter().enumerate() {
            let e = entries[i];
            let mine: Vec<&Access> = info
                .accesses
                .iter()
                .filter(|a| a.param as usize == k)
                .collect();
            if e.types & bits::LITERAL != 0 {
                if !mine.is_empty() {
                    return refuse_arg(
                        k,
                        i,
                        format!(
                        "argument {k} is a device pointer (is_device_ptr): valid on one device only"
                    ),
                    );
                }
                continue;
            }
            if e.types & bits::PRIVATE != 0 {
                continue;
            }
            if e.size <= 0 {
                return refuse_arg(
                    k,
                    i,
                    format!(
                    "argument {k} is a zero-length map (the data is not mapped by this construct)"
                ),
                );
            }
            let reduced = |a: &&&Access| matches!(a.mode, Mode::Reduce | Mode::ReduceElements);
            if let Some(r) = mine.iter().find(reduced) {
                let elements = r.mode == Mode::ReduceElements;
                if mine.len() != 1 {
                    let what = if elements {
                        "is updated atomically"
                    } else {
                        "is a reduction variable"
                    };
                    return refuse_arg(
                        k,
                        i,
                        format!("argument {k} {what} also accessed in the loop"),
                    );
                }
                let fits = if elements {
                    r.width > 0 && e.size % r.width == 0
                } else {
                    e.size == r.width
                };
                if !fits || e.base != e.begin {
                    let why = if elements {
                        format!(
                            "argument {k}: atomic updates of {}-byte elements of a {}-byte mapped section that does not start at the array",
                            r.width, e.size
                        )
                    } else {
                        format!(
                            "argument {k}: a reduction over {} bytes of a {}-byte variable (array reductions are not spread)",
                            e.size, r.width
                        )
                    };
                    return refuse_arg(k, i, why);
                }
                cuts[i] = Cut::Reduce {
                    op: r.c0 as i32,
                    ty: r.c1 as i32,
                };
                continue;
            }
            if mine.iter().any(|a| a.mode == Mode::Whole) {
                if mine.iter().any(|a| a.mode.writes()) {
                    return refuse_arg(
                        k,
                        i,
                        format!(
                        "argument {k} is written and read at addresses the analysis cannot follow"
                    ),
                    );
                }
                cuts[i] = Cut::Replicate;
                continue;
            }
            if mine.is_empty() {
                cuts[i] = Cut::Replicate;
                continue;
            }
            let mut accesses = Vec::new();
            for a in &mine {
                let mut c0 = i128::from(a.c0);
                if let Some(s) = a.sym {
                    let Some(&j) = param_entry.get(s.param as usize) else {
                        return refuse_arg(
                            k,
                            i,
                            format!("argument {k}'s offset names a missing argument"),
                        );
                    };
                    let raw = entries[j].base as u64;
                    let v = if s.bits == 32 {
                        i128::from(raw as u32 as i32)
                    } else {
                        i128::from(raw as i64)
                    };
                    c0 += v * i128::from(s.coeff);
                }
                accesses.push((c0, i128::from(a.c1), i128::from(a.width)));
            }
            let writes = mine.iter().any(|a| a.mode.writes());
            let cut = Cut::Affine { accesses, writes };
            // Whole range inside the mapping: every block's hull is then inside too.
            let (lo, hi) = hull(&cut, 0, tripcount as i128, e.base);
            let (mlo, mhi) = (e.begin as i128, e.begin as i128 + i128::from(e.size));
            if lo < mlo || hi > mhi {
                // Where only reads leave the section, the likeliest cause is a read under a
                // condition the analysis does not see (a halo read guarded at the edges,
                // `i > 0 ? u[i - 1] : 0`): the pass counts it for every iteration.
                let written: Vec<(i128, i128, i128)> = mine
                    .iter()
                    .zip(&accesses_of(&cut))
                    .filter(|(a, _)| a.mode.writes())
                    .map(|(_, &t)| t)
                    .collect();
                let (wlo, whi) = hull(
                    &Cut::Affine {
                        accesses: written.clone(),
                        writes: true,
                    },
                    0,
                    tripcount as i128,
                    e.base,
                );
                let reads_only = written.is_empty() || (wlo >= mlo && whi <= mhi);
                let cause = if reads_only {
                    "only reads leave it: a read under a condition the analysis cannot see, such as a guarded halo read `i > 0 ? u[i - 1] : 0`, counts for every iteration; map the halo too, or spread the loop by hand"
                } else {
                    "the tripcount does not match the loop, or the map is too small"
                };
                return refuse_arg(k, i, format!(
                    "argument {k}: the loop touches bytes [{}, {}) of a mapped section of {} bytes ({cause})",
                    lo - mlo,
                    hi - mlo,
                    e.size
                ));
            }
            if writes {
                if let Cut::Affine { accesses, .. } = &cut {
                    if !blocks_disjoint(accesses) {
                        return refuse_arg(k, i, format!(
                            "argument {k}: the bytes one iteration writes back may overlap another's (different strides or directions, or a span wider than the stride)"
                        ));
                    }
                }
            }
            cuts[i] = cut;
        }
        // Two mapped sections sharing host bytes would be one object on one device but two
        // copies on several: refuse.
        let mut ranges: Vec<(usize, usize, usize)> = entries
            .iter()
            .enumerate()
            .filter(|(i, _)| cuts[*i] != Cut::Keep)
            .map(|(i, e)| (e.begin, e.begin.saturating_add(e.size as usize), i))
            .collect();
        ranges.sort_unstable();
        for w in ranges.windows(2) {
            if w[1].0 < w[0].1 {
                return refuse(format!(
                    "map entries {} and {} overlap in host memory",
                    w[0].2, w[1].2
                ));
            }
        }
        Ok(Plan {
            entries: entries.to_vec(),
            cuts,
            tripcount,
        })
    }

    /// The launch's tripcount.
    pub fn tripcount(&self) -> u64 {
        self.tripcount
    }

    /// The reduction variables: each block's section of one is the caller's partial.
    pub fn reductions(&self) -> Vec<Reduction> {
        self.cuts
            .iter()
            .enumerate()
            .filter_map(|(i, c)| match *c {
                Cut::Reduce { op, ty } => Some(Reduction {
                    entry: i,
                    op,
                    ty,
                    original: self.entries[i].begin,
                    size: self.entries[i].size as usize,
                }),
                _ => None,
            })
            .collect()
    }

    /// The sections of block `[lo, hi)` (non-empty, inside `[0, tripcount)`), one per entry.
    pub fn block(&self, lo: u64, hi: u64) -> Vec<Section> {
        self.entries
            .iter()
            .zip(&self.cuts)
            .map(|(e, cut)| match cut {
                Cut::Keep | Cut::Reduce { .. } => Section {
                    begin: e.begin,
                    size: e.size,
                    types: e.types,
                    writes: false,
                },
                Cut::Replicate => Section {
                    begin: e.begin,
                    size: e.size,
                    types: e.types & !bits::FROM,
                    writes: false,
                },
                Cut::Affine { writes, .. } => {
                    let (a, b) = hull(cut, lo as i128, hi as i128, e.base);
                    Section {
                        begin: a as usize,
                        size: (b - a) as i64,
                        types: if *writes {
                            e.types
                        } else {
                            e.types & !bits::FROM
                        },
                        writes: *writes,
                    }
                }
            })
            .collect()
    }

    /// Bytes the block's sections hold (copied in or out, for `SPREAD_INFO=auto`).
    pub fn describe_block(&self, lo: u64, hi: u64) -> String {
        let mut out = String::new();
        for (i, (s, e)) in self.block(lo, hi).iter().zip(&self.entries).enumerate() {
            if matches!(self.cuts[i], Cut::Keep | Cut::Reduce { .. }) {
                continue;
            }
            let dir = match (s.types & 0x1 != 0, s.types & bits::FROM != 0) {
                (true, true) => "tofrom",
                (true, false) => "to",
                (false, true) => "from",
                (false, false) => "alloc",
            };
            out.push_str(&format!(
                " arg{i} +{}:{}B({dir})",
                s.begin as i128 - e.begin as i128,
                s.size
            ));
        }
        out
    }
}

/// Byte range `[lo, hi)` (host addresses) that iterations `[from, to)` touch through `cut`.
/// The affine accesses of `cut` (none for other cuts), in `Plan::new`'s order.
fn accesses_of(cut: &Cut) -> Vec<(i128, i128, i128)> {
    match cut {
        Cut::Affine { accesses, .. } => accesses.clone(),
        _ => Vec::new(),
    }
}

fn hull(cut: &Cut, from: i128, to: i128, base: usize) -> (i128, i128) {
    let Cut::Affine { accesses, .. } = cut else {
        return (0, 0);
    };
    let mut lo = i128::MAX;
    let mut hi = i128::MIN;
    for &(c0, c1, w) in accesses {
        let a = c0 + c1 * from;
        let b = c0 + c1 * (to - 1);
        lo = lo.min(a.min(b));
        hi = hi.max(a.max(b) + w);
    }
    (base as i128 + lo, base as i128 + hi)
}

/// Whether blocks of consecutive iterations always have disjoint hulls: every access moves by
/// the same stride per iteration, and what one iteration touches spans no more than the stride.
/// Then the hulls of `[a, b)` and `[b, c)` cannot meet, whatever the schedule cuts.
fn blocks_disjoint(accesses: &[(i128, i128, i128)]) -> bool {
    let c1 = accesses[0].1;
    if c1 == 0 || accesses.iter().any(|a| a.1 != c1) {
        return false;
    }
    let lo = accesses.iter().map(|a| a.0).min().unwrap_or(0);
    let hi = accesses.iter().map(|a| a.0 + a.2).max().unwrap_or(0);
    hi - lo <= c1.abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TO: i64 = 0x1;
    const TOFROM: i64 = 0x3;
    const PARAM: i64 = bits::TARGET_PARAM;
    const LIT: i64 = bits::TARGET_PARAM | bits::LITERAL | 0x200;

    fn acc(param: u32, mode: Mode, c0: i64, c1: i64, width: i64) -> Access {
        Access {
            param,
            mode,
            c0,
            c1,
            width,
            sym: None,
        }
    }

    fn arr(addr: usize, bytes: i64, types: i64) -> Entry {
        Entry {
            base: addr,
            begin: addr,
            size: bytes,
            types: types | PARAM,
        }
    }

    fn lit(v: u64) -> Entry {
        Entry {
            base: v as usize,
            begin: v as usize,
            size: 0,
            types: LIT,
        }
    }

    #[test]
    fn descriptors_round_trip_and_bad_ones_are_errors() {
        let info = KernelInfo {
            accesses: vec![
                acc(1, Mode::Read, 0, 4, 4),
                Access {
                    sym: Some(Sym {
                        param: 0,
                        bits: 32,
                        coeff: 4,
                    }),
                    ..acc(2, Mode::Write, -4, -4, 4)
                },
                acc(3, Mode::Whole, 0, 0, 8),
            ],
        };
        let b = info.to_bytes();
        assert_eq!(KernelInfo::parse(&b), Ok(info));
        assert!(KernelInfo::parse(&b[..20]).is_err());
        assert!(KernelInfo::parse(b"SPRX\x01\0\0\0\0\0\0\0\0\0\0\0").is_err());
        let mut v2 = b.clone();
        v2[4] = 2;
        assert!(KernelInfo::parse(&v2).unwrap_err().contains("version 2"));
        let mut m = b.clone();
        m[HEADER + 4] = 9;
        assert!(KernelInfo::parse(&m).unwrap_err().contains("mode 9"));
        let mut huge = b;
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(KernelInfo::parse(&huge).is_err());
    }

    #[test]
    fn saxpy_blocks_map_their_own_elements() {
        // y[i] = a * x[i] + y[i]: args (n, y, x, a) as clang orders captures.
        let info = KernelInfo {
            accesses: vec![
                acc(2, Mode::Read, 0, 4, 4),
                acc(1, Mode::ReadWrite, 0, 4, 4),
            ],
        };
        let n = 10u64;
        let e = [lit(n), arr(0x1000, 40, TOFROM), arr(0x2000, 40, TO), lit(0)];
        let p = Plan::new(&info, &e, n).expect("spreads");
        let s = p.block(3, 7);
        assert_eq!(s[1].begin, 0x1000 + 12);
        assert_eq!(s[1].size, 16);
        assert_eq!(s[1].types, TOFROM | PARAM);
        assert_eq!(s[2].begin, 0x2000 + 12);
        assert_eq!(s[2].types, TO | PARAM);
        assert_eq!(
            s[0],
            Section {
                begin: 10,
                size: 0,
                types: LIT,
                writes: false
            }
        );
        assert!(s[1].writes && !s[2].writes);
    }

    #[test]
    fn read_only_arguments_are_not_copied_back() {
        let info = KernelInfo {
            accesses: vec![acc(0, Mode::Read, 0, 8, 8), acc(1, Mode::Write, 0, 8, 8)],
        };
        let e = [arr(0x1000, 80, TOFROM), arr(0x2000, 80, TOFROM)];
        let p = Plan::new(&info, &e, 10).expect("spreads");
        assert_eq!(p.block(0, 5)[0].types, TO | PARAM);
        assert_eq!(p.block(0, 5)[1].types, TOFROM | PARAM);
    }

    #[test]
    fn a_guarded_halo_read_is_refused_as_such_and_named() {
        // for i in 0..n: u2[i] = (i > 0 ? u[i-1] : 0) + u[i]: the pass counts u[i-1] for i = 0.
        let info = KernelInfo {
            accesses: vec![
                acc(0, Mode::Write, 0, 4, 4),
                acc(1, Mode::Read, -4, 4, 4),
                acc(1, Mode::Read, 0, 4, 4),
            ],
        };
        let n = 100;
        let e = [arr(0x1000, 4 * n, 0x2), arr(0x8000, 4 * n, TO)];
        let r = Plan::new(&info, &e, n as u64).expect_err("u[-1] is outside the map");
        assert!(
            r.0.starts_with("argument 1: the loop touches bytes [-4, 400)"),
            "{}",
            r.0
        );
        assert!(r.0.contains("only reads leave it"), "{}", r.0);
        let named = r.named(|entry| (entry == 1).then(|| "'u' (declared at heat.c:3:10)".into()));
        assert!(
            named.starts_with("argument 1 ('u' (declared at heat.c:3:10)): the loop"),
            "{named}"
        );
        // A write outside the map keeps the tripcount's message, and without a name the text.
        let info = KernelInfo {
            accesses: vec![acc(0, Mode::Write, 0, 4, 8)],
        };
        let r = Plan::new(&info, &e, n as u64).expect_err("the last write ends past the map");
        assert!(
            r.0.contains("the tripcount does not match the loop"),
            "{}",
            r.0
        );
        let text = r.0.clone();
        assert_eq!(r.named(|_| None), text);
    }

    #[test]
    fn a_stencil_block_reads_its_halo() {
        // for i in 1..n-1: y[i] = x[i-1] + x[i] + x[i+1]; normalized j = i - 1, T = n - 2.
        let info = KernelInfo {
            accesses: vec![
                acc(0, Mode::Write, 4, 4, 4),
                acc(1, Mode::Read, 0, 4, 4),
                acc(1, Mode::Read, 4, 4, 4),
                acc(1, Mode::Read, 8, 4, 4),
            ],
        };
        let n = 100;
        let e = [arr(0x1000, 4 * n, 0x2), arr(0x8000, 4 * n, TO)];
        let p = Plan::new(&info, &e, (n - 2) as u64).expect("spreads");
        let s = p.block(49, 98);
        assert_eq!((s[0].begin - 0x1000, s[0].size), (4 * 50, 4 * 49));
        assert_eq!((s[1].begin - 0x8000, s[1].size), (4 * 49, 4 * 51));
    }

    #[test]
    fn a_symbolic_offset_uses_the_arguments_value() {
        // y[n - 1 - i] = x[i]: offset 4n - 4 - 4i.
        let info = KernelInfo {
            accesses: vec![
                Access {
                    sym: Some(Sym {
                        param: 0,
                        bits: 32,
                        coeff: 4,
                    }),
                    ..acc(1, Mode::Write, -4, -4, 4)
                },
                acc(2, Mode::Read, 0, 4, 4),
            ],
        };
        let n = 10u64;
        let e = [lit(n), arr(0x1000, 40, 0x2), arr(0x2000, 40, TO)];
        let p = Plan::new(&info, &e, n).expect("spreads");
        let s = p.block(0, 3);
        assert_eq!((s[1].begin - 0x1000, s[1].size), (28, 12));
        // A negative 32-bit value is sign-extended: the section falls outside, refused.
        let e = [lit(0xffff_fff0), arr(0x1000, 40, 0x2), arr(0x2000, 40, TO)];
        assert!(Plan::new(&info, &e, n).is_err());
    }

    #[test]
    fn refusals_say_why() {
        let w = KernelInfo {
            accesses: vec![acc(0, Mode::Write, 0, 4, 4)],
        };
        let why =
            |info: &KernelInfo, e: &[Entry], t: u64| Plan::new(info, e, t).expect_err("refused").0;
        assert!(why(&w, &[arr(0x1000, 40, 0x2)], 1).contains("1 iteration"));
        assert!(why(&w, &[arr(0x1000, 40, 0x2)], 4294967295).contains("touches bytes"));
        assert!(why(&w, &[arr(0x1000, 36, 0x2)], 10).contains("too small"));
        assert!(why(&w, &[lit(0x1000)], 10).contains("is_device_ptr"));
        assert!(why(&w, &[arr(0x1000, 0, 0x2)], 10).contains("zero-length"));
        let mut member = arr(0x1000, 40, 0x2);
        member.types |= 1 << 48;
        assert!(why(&w, &[member], 10).contains("struct member"));
        // Both ends: y[i] and y[n-1-i].
        let both = KernelInfo {
            accesses: vec![acc(0, Mode::Write, 0, 4, 4), acc(0, Mode::Write, 36, -4, 4)],
        };
        assert!(why(&both, &[arr(0x1000, 40, 0x2)], 10).contains("overlap"));
        // A write at one address for every iteration.
        let scalar = KernelInfo {
            accesses: vec![acc(0, Mode::Write, 0, 0, 4)],
        };
        assert!(why(&scalar, &[arr(0x1000, 40, 0x2)], 10).contains("overlap"));
        // Aliasing sections.
        let two = KernelInfo {
            accesses: vec![acc(0, Mode::Write, 0, 4, 4), acc(1, Mode::Read, 0, 4, 4)],
        };
        let e = [arr(0x1000, 40, 0x2), arr(0x1010, 40, TO)];
        assert!(why(&two, &e, 10).contains("overlap in host memory"));
        // A gather into a written argument.
        let g = KernelInfo {
            accesses: vec![acc(0, Mode::Whole, 0, 0, 4), acc(0, Mode::Write, 0, 4, 4)],
        };
        assert!(why(&g, &[arr(0x1000, 40, 0x3)], 10).contains("cannot follow"));
    }

    #[test]
    fn reduction_variables_are_listed_and_kept_whole() {
        // s += x[i]: args (s, n, x).
        let info = KernelInfo {
            accesses: vec![acc(0, Mode::Reduce, 1, 10, 8), acc(2, Mode::Read, 0, 8, 8)],
        };
        let e = [arr(0x100, 8, TOFROM), lit(10), arr(0x2000, 80, TO)];
        let p = Plan::new(&info, &e, 10).expect("spreads");
        assert_eq!(
            p.reductions(),
            vec![Reduction {
                entry: 0,
                op: 1,
                ty: 10,
                original: 0x100,
                size: 8
            }]
        );
        assert_eq!(p.block(0, 5)[0].begin, 0x100);
        let arrayred = [arr(0x100, 16, TOFROM), lit(10), arr(0x2000, 80, TO)];
        assert!(Plan::new(&info, &arrayred, 10)
            .expect_err("refused")
            .0
            .contains("array reductions"));
    }

    #[test]
    fn gathered_and_untouched_arguments_are_replicated_read_only() {
        let info = KernelInfo {
            accesses: vec![
                acc(0, Mode::Write, 0, 8, 8),
                acc(1, Mode::Whole, 0, 0, 8),
                acc(2, Mode::Read, 0, 4, 4),
            ],
        };
        let e = [
            arr(0x1000, 80, 0x2),
            arr(0x2000, 800, TOFROM),
            arr(0x3000, 40, TO),
            arr(0x4000, 16, TOFROM),
        ];
        let p = Plan::new(&info, &e, 10).expect("spreads");
        let s = p.block(5, 10);
        assert_eq!(
            s[1],
            Section {
                begin: 0x2000,
                size: 800,
                types: TO | PARAM,
                writes: false
            }
        );
        assert_eq!(
            s[3],
            Section {
                begin: 0x4000,
                size: 16,
                types: TO | PARAM,
                writes: false
            }
        );
        assert_eq!((s[2].begin, s[2].size), (0x3000 + 20, 20));
    }

    #[test]
    fn strided_and_negative_blocks_are_disjoint_hulls() {
        // y[2i] = x[2i+1] (stride 8 bytes, 4-byte elements); z[n-1-i] as c0 = 36, c1 = -4.
        let info = KernelInfo {
            accesses: vec![
                acc(0, Mode::Write, 0, 8, 4),
                acc(1, Mode::Read, 4, 8, 4),
                acc(2, Mode::Write, 36, -4, 4),
            ],
        };
        let e = [
            arr(0x1000, 80, 0x2),
            arr(0x2000, 80, TO),
            arr(0x3000, 40, 0x2),
        ];
        let p = Plan::new(&info, &e, 10).expect("spreads");
        let a = p.block(0, 5);
        let b = p.block(5, 10);
        assert!(a[0].begin as i64 + a[0].size <= b[0].begin as i64);
        assert!(b[2].begin as i64 + b[2].size <= a[2].begin as i64);
        assert_eq!((a[2].begin - 0x3000, a[2].size), (20, 20));
    }
}

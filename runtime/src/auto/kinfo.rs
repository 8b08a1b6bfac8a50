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
    /// Is written by a grid kernel's teams (indexed by their team number, no loop to cut): each
    /// block writes a whole copy of its own that starts from the current values, and the bytes
    /// a block changed are merged into the mapped array on the host. Teams cannot synchronise,
    /// so in a race-free kernel each byte is changed by one block at most.
    Merge,
}

impl Mode {
    fn writes(self) -> bool {
        matches!(self, Mode::Write | Mode::ReadWrite)
    }
}

/// The descriptor's codes of modes and guard variables (docs/pass.md), one table each way.
const MODE_CODES: [(u32, Mode); 7] = [
    (1, Mode::Read),
    (2, Mode::Write),
    (3, Mode::ReadWrite),
    (4, Mode::Whole),
    (5, Mode::Reduce),
    (6, Mode::ReduceElements),
    (7, Mode::Merge),
];
const VAR_CODES: [(u32, Var); 3] = [(1, Var::Q), (2, Var::R), (3, Var::Offset)];

fn from_code<T: Copy>(table: &[(u32, T)], code: u32) -> Option<T> {
    table.iter().find(|e| e.0 == code).map(|e| e.1)
}

fn code_of<T: Copy + PartialEq>(table: &[(u32, T)], v: T) -> u32 {
    table.iter().find(|e| e.1 == v).map_or(0, |e| e.0)
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

/// A value the launch knows: `c + sym.coeff * sym` (a by-value scalar argument), or `c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Expr {
    /// The constant part.
    pub c: i64,
    /// The scalar argument part, if any.
    pub sym: Option<Sym>,
}

impl Expr {
    /// A constant.
    pub fn constant(c: i64) -> Expr {
        Expr { c, sym: None }
    }
}

/// The loop variable a [`Guard`] bounds: a collapsed loop's normalized iteration `i` is
/// `q * m + r` (`m` the inner loops' iteration count), a 1-D loop's is `r` (`q` = 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// `i / m`: the outer loop's iteration.
    Q,
    /// `i % m` (`i` without a divisor): the inner loops' iteration.
    R,
    /// The access's own byte offset: a condition on a variable the offset moves with
    /// (`if (b * bs + t < n) y[b * bs + t] = ...`, `t` a nested loop's) bounds the offset.
    Offset,
}

/// A condition under which the access happens at all: `k * var + e >= 0` (a halo read
/// guarded at the edges, `i > 0 ? u[i - 1] : 0`). The pass emits one only where the condition
/// dominates the access in the same iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guard {
    /// The variable.
    pub var: Var,
    /// Its coefficient (non-zero).
    pub k: i64,
    /// The rest.
    pub e: Expr,
}

/// At most this many guards per access (descriptor version 2).
pub const MAX_GUARDS: usize = 4;

/// One access of the kernel: bytes `[off, off + width)` of kernel argument `param`, where
/// `off = c0 + sym.coeff * sym + q_coeff * q + (c1 + c1_sym.coeff * c1_sym) * r` for normalized
/// iteration `i`, with
/// `q = i / div`, `r = i % div` when the loop is collapsed (`div`, the inner loops' iteration
/// count, non-zero), else `q = 0`, `r = i`; and only for the iterations where every guard holds.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// The symbolic part of `c1`, if any (a row length: `a[i * n]`).
    pub c1_sym: Option<Sym>,
    /// Bytes per unit of `q` (zero without a divisor).
    pub q_coeff: Expr,
    /// The divisor `m` of a collapsed loop's iteration, zero for none.
    pub div: Expr,
    /// The conditions the access happens under (at most [`MAX_GUARDS`]).
    pub guards: Vec<Guard>,
}

impl Access {
    /// An access of descriptor version 1: affine in the iteration, no divisor, no guard.
    pub fn affine(
        param: u32,
        mode: Mode,
        c0: i64,
        c1: i64,
        width: i64,
        sym: Option<Sym>,
    ) -> Access {
        Access {
            param,
            mode,
            c0,
            c1,
            width,
            sym,
            c1_sym: None,
            q_coeff: Expr::default(),
            div: Expr::default(),
            guards: Vec::new(),
        }
    }

    fn extended(&self) -> bool {
        self.c1_sym.is_some()
            || self.q_coeff != Expr::default()
            || self.div != Expr::default()
            || !self.guards.is_empty()
    }
}

/// A kernel's descriptor: every access through its pointer arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelInfo {
    /// The accesses (a pointer argument without any is not touched).
    pub accesses: Vec<Access>,
    /// A grid kernel: the blocks are windows of the league of teams, not of a loop's iterations
    /// (its accesses are [`Mode::Whole`] reads and [`Mode::Merge`] writes).
    pub grid: bool,
}

/// The descriptor header's flag of a grid kernel.
const FLAG_GRID: u32 = 1;

const MAGIC: &[u8; 4] = b"SPRD";
/// Version 1: affine accesses; version 2 adds the divisor and guards (the pass writes it only
/// for kernels that need them, so version-1 images keep their bytes).
const VERSION: u32 = 2;
const HEADER: usize = 16;
const RECORD_V1: usize = 48;
const RECORD_V2: usize = 120 + 40 * MAX_GUARDS;

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

/// `{i32 param, u32 bits, i64 coeff}` at `off`: a scalar argument, or none (param -1).
fn sym_at(b: &[u8], off: usize, k: usize) -> Result<Option<Sym>, String> {
    match u32_at(b, off) as i32 {
        -1 => Ok(None),
        p if p >= 0 => {
            let bits = u32_at(b, off + 4);
            if bits != 32 && bits != 64 {
                return Err(format!("record {k} has a {bits}-bit symbolic argument"));
            }
            Ok(Some(Sym {
                param: p as u32,
                bits,
                coeff: i64_at(b, off + 8),
            }))
        }
        p => Err(format!("record {k} names argument {p}")),
    }
}

/// `{i64 c, sym}` at `off`.
fn expr_at(b: &[u8], off: usize, k: usize) -> Result<Expr, String> {
    Ok(Expr {
        c: i64_at(b, off),
        sym: sym_at(b, off + 8, k)?,
    })
}

fn put_sym(b: &mut Vec<u8>, sym: Option<Sym>) {
    let (p, bits, coeff) = sym.map_or((-1i32, 0u32, 0i64), |s| (s.param as i32, s.bits, s.coeff));
    b.extend_from_slice(&p.to_le_bytes());
    b.extend_from_slice(&bits.to_le_bytes());
    b.extend_from_slice(&coeff.to_le_bytes());
}

fn put_expr(b: &mut Vec<u8>, e: Expr) {
    b.extend_from_slice(&e.c.to_le_bytes());
    put_sym(b, e.sym);
}

impl KernelInfo {
    /// Whether an access's stride may span several elements (a symbolic or a wide one): then an
    /// iteration may handle a row, and a launch of few iterations may still be worth spreading.
    pub fn most_elements_per_iteration(&self) -> u64 {
        self.accesses
            .iter()
            .filter(|a| matches!(a.mode, Mode::Read | Mode::Write | Mode::ReadWrite))
            .map(|a| {
                if a.c1_sym.is_some() {
                    u64::MAX
                } else {
                    a.c1.unsigned_abs() / a.width.max(1) as u64
                }
            })
            .max()
            .unwrap_or(1)
    }

    /// Reads a descriptor: `"SPRD"`, the version (1 or 2), the record count, flags; then the
    /// records, little-endian. Version 1's are 48 bytes: `{u32 param, u32 mode, i64 c0, i64 c1,
    /// i64 width, sym}` with `sym = {i32 param, u32 bits, i64 coeff}`; version 2's add
    /// `{expr q_coeff, expr div, sym c1_sym, u32 guards, u32 0, 4 x {u32 var, u32 0, i64 k,
    /// expr e}}` with `expr = {i64 c, sym}` (280 bytes; docs/pass.md).
    pub fn parse(b: &[u8]) -> Result<KernelInfo, String> {
        if b.len() < HEADER || &b[..4] != MAGIC {
            return Err("not a Spread kernel descriptor (no SPRD header)".into());
        }
        let version = u32_at(b, 4);
        let record = match version {
            1 => RECORD_V1,
            2 => RECORD_V2,
            _ => {
                return Err(format!(
                    "descriptor version {version}, this runtime reads versions 1 to {VERSION} (rebuild with this Spread's pass plugin)"
                ))
            }
        };
        let n = u32_at(b, 8) as usize;
        let flags = u32_at(b, 12);
        if flags & !FLAG_GRID != 0 {
            return Err(format!(
                "descriptor flags {flags:#x} unknown to this runtime (rebuild with this Spread's pass plugin)"
            ));
        }
        let need = n
            .checked_mul(record)
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
            let r = HEADER + k * record;
            let m = u32_at(b, r + 4);
            let Some(mode) = from_code(&MODE_CODES, m) else {
                return Err(format!("record {k} has unknown mode {m}"));
            };
            let width = i64_at(b, r + 24);
            if width <= 0 {
                return Err(format!("record {k} has width {width}"));
            }
            let mut a = Access::affine(
                u32_at(b, r),
                mode,
                i64_at(b, r + 8),
                i64_at(b, r + 16),
                width,
                sym_at(b, r + 32, k)?,
            );
            if version >= 2 {
                a.q_coeff = expr_at(b, r + 48, k)?;
                a.div = expr_at(b, r + 72, k)?;
                a.c1_sym = sym_at(b, r + 96, k)?;
                let guards = u32_at(b, r + 112) as usize;
                if guards > MAX_GUARDS {
                    return Err(format!("record {k} has {guards} guards"));
                }
                for g in 0..guards {
                    let o = r + 120 + 40 * g;
                    let v = u32_at(b, o);
                    let Some(var) = from_code(&VAR_CODES, v) else {
                        return Err(format!("record {k} guards unknown variable {v}"));
                    };
                    let gk = i64_at(b, o + 8);
                    if gk == 0 {
                        return Err(format!("record {k} has a guard without its variable"));
                    }
                    a.guards.push(Guard {
                        var,
                        k: gk,
                        e: expr_at(b, o + 16, k)?,
                    });
                }
            }
            accesses.push(a);
        }
        let grid = flags & FLAG_GRID != 0;
        if grid
            && accesses
                .iter()
                .any(|a| !matches!(a.mode, Mode::Whole | Mode::Merge))
        {
            return Err("a grid kernel's descriptor with an affine or reduction record".into());
        }
        Ok(KernelInfo { accesses, grid })
    }

    /// Writes the descriptor [`parse`](Self::parse) reads (for tests and tools): version 1
    /// unless an access has a divisor or guards.
    pub fn to_bytes(&self) -> Vec<u8> {
        let v2 = self.accesses.iter().any(Access::extended);
        let mut b = Vec::new();
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&(if v2 { 2u32 } else { 1 }).to_le_bytes());
        b.extend_from_slice(&(self.accesses.len() as u32).to_le_bytes());
        b.extend_from_slice(&(if self.grid { FLAG_GRID } else { 0 }).to_le_bytes());
        for a in &self.accesses {
            let mode = code_of(&MODE_CODES, a.mode);
            b.extend_from_slice(&a.param.to_le_bytes());
            b.extend_from_slice(&mode.to_le_bytes());
            b.extend_from_slice(&a.c0.to_le_bytes());
            b.extend_from_slice(&a.c1.to_le_bytes());
            b.extend_from_slice(&a.width.to_le_bytes());
            put_sym(&mut b, a.sym);
            if !v2 {
                continue;
            }
            put_expr(&mut b, a.q_coeff);
            put_expr(&mut b, a.div);
            put_sym(&mut b, a.c1_sym);
            b.extend_from_slice(&(a.guards.len().min(MAX_GUARDS) as u32).to_le_bytes());
            b.extend_from_slice(&0u32.to_le_bytes());
            for g in 0..MAX_GUARDS {
                match a.guards.get(g) {
                    Some(g) => {
                        b.extend_from_slice(&code_of(&VAR_CODES, g.var).to_le_bytes());
                        b.extend_from_slice(&0u32.to_le_bytes());
                        b.extend_from_slice(&g.k.to_le_bytes());
                        put_expr(&mut b, g.e);
                    }
                    None => b.extend_from_slice(&[0u8; 40]),
                }
            }
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
    pub const TO: i64 = 0x1;
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
    Affine { forms: Vec<Form>, writes: bool },
    /// A reduction variable: a partial per block (the caller's), combined on the host.
    Reduce { op: i32, ty: i32 },
    /// Written by a grid kernel: a whole copy per block (the caller's), merged on the host.
    Merge,
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
    /// The groups of read-only entries that share host bytes (entry numbers, ascending).
    groups: Vec<Vec<usize>>,
    tripcount: u64,
    /// A grid kernel's: the tripcount is its league's teams.
    grid: bool,
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

/// The map entry of each kernel argument: kernel argument k is the k-th `TARGET_PARAM` entry.
/// Refuses the entry kinds a block cannot take a section of (struct members, pointers to
/// attach, strided maps) before any argument is looked at, wherever they are in the list.
fn param_entries(entries: &[Entry]) -> Result<Vec<usize>, Refusal> {
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
    Ok(param_entry)
}

/// How kernel argument `k` is cut, from what the descriptor says the kernel does with it:
/// kept as it is (a device pointer, a private copy), a reduction's partial, replicated
/// (untouched, or read where the analysis cannot follow), or cut into affine sections.
fn cut_argument(
    info: &KernelInfo,
    entries: &[Entry],
    param_entry: &[usize],
    k: usize,
    tripcount: u64,
) -> Result<Cut, Refusal> {
    let i = param_entry[k];
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
        return Ok(Cut::Keep);
    }
    if e.types & bits::PRIVATE != 0 {
        return Ok(Cut::Keep);
    }
    if e.size <= 0 {
        return refuse_arg(
            k,
            i,
            format!("argument {k} is a zero-length map (the data is not mapped by this construct)"),
        );
    }
    if mine.iter().any(|a| a.mode == Mode::Merge) {
        return Ok(Cut::Merge);
    }
    let reduced = |a: &&&Access| matches!(a.mode, Mode::Reduce | Mode::ReduceElements);
    if let Some(r) = mine.iter().find(reduced) {
        return reduction_cut(k, i, e, &mine, r);
    }
    if mine.iter().any(|a| a.mode == Mode::Whole) {
        if mine.iter().any(|a| a.mode.writes()) {
            return refuse_arg(
                k,
                i,
                format!("argument {k} is written and read at addresses the analysis cannot follow"),
            );
        }
        return Ok(Cut::Replicate);
    }
    if mine.is_empty() {
        return Ok(Cut::Replicate);
    }
    affine_cut(entries, param_entry, k, &mine, tripcount)
}

/// The cut of argument `k` (map entry `i`) whose access `r` is a reduction or atomic updates:
/// each block gets a partial of its own, so the argument must be that variable (or array)
/// whole and touched in no other way.
fn reduction_cut(
    k: usize,
    i: usize,
    e: Entry,
    mine: &[&Access],
    r: &Access,
) -> Result<Cut, Refusal> {
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
    Ok(Cut::Reduce {
        op: r.c0 as i32,
        ty: r.c1 as i32,
    })
}

/// The cut of argument `k` whose accesses `mine` are all affine: their forms, once every
/// block's hull is known to stay inside the mapped section (checked for the whole range,
/// which holds each block's) and, where the kernel writes, blocks cannot write back each
/// other's bytes.
fn affine_cut(
    entries: &[Entry],
    param_entry: &[usize],
    k: usize,
    mine: &[&Access],
    tripcount: u64,
) -> Result<Cut, Refusal> {
    let i = param_entry[k];
    let e = entries[i];
    // A by-value argument's value, as the descriptor's expressions name it.
    let value = |x: Expr| -> Option<i128> {
        let Some(s) = x.sym else {
            return Some(i128::from(x.c));
        };
        let raw = entries[*param_entry.get(s.param as usize)?].base as u64;
        let v = if s.bits == 32 {
            i128::from(raw as u32 as i32)
        } else {
            i128::from(raw as i64)
        };
        Some(i128::from(x.c).saturating_add(v.saturating_mul(i128::from(s.coeff))))
    };
    let mut forms = Vec::new();
    for a in mine {
        let Some(form) = Form::of(a, value) else {
            return refuse_arg(
                k,
                i,
                format!("argument {k}'s offset names a missing argument"),
            );
        };
        if form.m < 0 || (form.m == 0 && a.div != Expr::default()) {
            return refuse_arg(
                k,
                i,
                format!(
                    "argument {k}: the collapsed loop's inner iteration count is {}",
                    form.m
                ),
            );
        }
        forms.push(form);
    }
    let writes = mine.iter().any(|a| a.mode.writes());
    refuse_outside(k, i, e, mine, &forms, tripcount)?;
    if writes && !blocks_disjoint(&forms, tripcount as i128) {
        return refuse_arg(k, i, format!(
            "argument {k}: the bytes one iteration writes back may overlap another's (different strides or directions, or a span wider than the stride)"
        ));
    }
    Ok(Cut::Affine { forms, writes })
}

/// Refuses argument `k` when the loop's accesses (`forms`, one per access of `mine`) leave
/// its mapped section over the whole range, saying whether only reads leave it: that points
/// at a condition the analysis did not see rather than at a wrong map.
fn refuse_outside(
    k: usize,
    i: usize,
    e: Entry,
    mine: &[&Access],
    forms: &[Form],
    tripcount: u64,
) -> Result<(), Refusal> {
    // Whole range inside the mapping: every block's hull is then inside too.
    let (mlo, mhi) = (e.begin as i128, e.begin as i128 + i128::from(e.size));
    let whole = hull(forms, 0, tripcount as i128, e.base);
    let Some((lo, hi)) = whole.filter(|&(lo, hi)| lo < mlo || hi > mhi) else {
        return Ok(());
    };
    // Where only reads leave the section, the likeliest cause is a read under a
    // condition the analysis does not see (a halo read guarded at the edges,
    // `i > 0 ? u[i - 1] : 0`, in a form the pass does not follow).
    let written: Vec<Form> = mine
        .iter()
        .zip(forms)
        .filter(|(a, _)| a.mode.writes())
        .map(|(_, f)| *f)
        .collect();
    let reads_only = hull(&written, 0, tripcount as i128, e.base)
        .is_none_or(|(wlo, whi)| wlo >= mlo && whi <= mhi);
    let cause = if reads_only {
        "only reads leave it: a read under a condition the analysis cannot follow, such as a guarded halo read `i > 0 ? u[i - 1] : 0` whose condition is not a comparison of the loop's variables, counts for every iteration; map the halo too, or spread the loop by hand"
    } else {
        "the tripcount does not match the loop, or the map is too small"
    };
    refuse_arg(
        k,
        i,
        format!(
        "argument {k}: the loop touches bytes [{}, {}) of a mapped section of {} bytes ({cause})",
        lo - mlo,
        hi - mlo,
        e.size
    ),
    )
}

/// Whether entry `e`, cut as `cut`, is only read by the kernel and stands alone (not a struct
/// member or a pointer attached to its pointee): such entries may share host bytes.
fn shareable(e: &Entry, cut: &Cut) -> bool {
    let read_only = matches!(cut, Cut::Replicate | Cut::Affine { writes: false, .. });
    read_only && e.types & (bits::MEMBER_OF | bits::PTR_AND_OBJ) == 0
}

/// The host bytes entry `e`, cut as `cut`, stands for over the whole iteration space: an affine
/// argument's accesses (all blocks' sections lie in them), else its whole mapped section. Two
/// pointers into one object (resident data, where each stands for the whole object) share no
/// bytes when their accesses do not.
fn touched(e: &Entry, cut: &Cut, tripcount: u64) -> (usize, usize) {
    let whole = (e.begin, e.begin.saturating_add(e.size as usize));
    match cut {
        Cut::Affine { forms, .. } => match hull(forms, 0, i128::from(tripcount), e.base) {
            Some((a, b)) => (
                usize::try_from(a).unwrap_or(whole.0),
                usize::try_from(b).unwrap_or(whole.1),
            ),
            None => whole,
        },
        _ => whole,
    }
}

/// The groups of mapped sections that are cut or copied and share host bytes (entry numbers,
/// ascending; entries alone are in none). Read-only entries may share bytes (the same array passed twice, two
/// pointers into one input): each block maps one section covering the group's (see
/// [`Plan::block`]). Refuses a launch where a shared byte belongs to an entry that is written or
/// is not plain: one object on one device, it would be two copies on several.
fn shared_groups(
    entries: &[Entry],
    cuts: &[Cut],
    tripcount: u64,
) -> Result<Vec<Vec<usize>>, Refusal> {
    let mut ranges: Vec<(usize, usize, usize)> = entries
        .iter()
        .enumerate()
        .filter(|(i, _)| cuts[*i] != Cut::Keep)
        .map(|(i, e)| {
            let (lo, hi) = touched(e, &cuts[i], tripcount);
            (lo, hi, i)
        })
        .collect();
    ranges.sort_unstable();
    let mut groups = Vec::new();
    // Sweep: a run of ranges each starting before the run's end so far is one group.
    let mut k = 0;
    while k < ranges.len() {
        let (mut end, mut j) = (ranges[k].1, k + 1);
        while j < ranges.len() && ranges[j].0 < end {
            end = end.max(ranges[j].1);
            j += 1;
        }
        if j - k > 1 {
            let run = &ranges[k..j];
            if let Some(&(_, _, bad)) = run.iter().find(|r| !shareable(&entries[r.2], &cuts[r.2])) {
                let other = run.iter().map(|r| r.2).find(|&i| i != bad).unwrap_or(bad);
                let (a, b) = (bad.min(other), bad.max(other));
                return refuse(format!(
                    "map entries {a} and {b} overlap in host memory, and entry {bad} is written \
                     (or is a struct member or an attached pointer)"
                ));
            }
            let mut group: Vec<usize> = run.iter().map(|r| r.2).collect();
            group.sort_unstable();
            groups.push(group);
        }
        k = j;
    }
    Ok(groups)
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
        let param_entry = param_entries(entries)?;
        let mut cuts: Vec<Cut> = entries.iter().map(|_| Cut::Keep).collect();
        for (k, &i) in param_entry.iter().enumerate() {
            cuts[i] = cut_argument(info, entries, &param_entry, k, tripcount)?;
        }
        let groups = shared_groups(entries, &cuts, tripcount)?;
        Ok(Plan {
            entries: entries.to_vec(),
            cuts,
            groups,
            tripcount,
            grid: info.grid,
        })
    }

    /// The launch's tripcount.
    pub fn tripcount(&self) -> u64 {
        self.tripcount
    }

    /// Whether the blocks are windows of a grid kernel's league (its tripcount counts teams).
    pub fn grid(&self) -> bool {
        self.grid
    }

    /// Elements (of an access's width) one iteration handles at most, where an iteration
    /// handles a row (an inner loop, a nested parallel loop): the largest stride of an access
    /// in units of its width, at least 1.
    pub fn elements_per_iteration(&self) -> u64 {
        self.cuts
            .iter()
            .filter_map(|c| match c {
                Cut::Affine { forms, .. } => forms
                    .iter()
                    .filter(|f| f.w > 0)
                    .map(|f| f.b.abs() / f.w)
                    .max(),
                _ => None,
            })
            .max()
            .map_or(1, |e| u64::try_from(e.clamp(1, 1 << 20)).unwrap_or(1))
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

    /// The entries a grid kernel writes: each block's section of one is the caller's copy of
    /// the whole mapped section.
    pub fn merges(&self) -> Vec<usize> {
        (0..self.cuts.len())
            .filter(|&i| self.cuts[i] == Cut::Merge)
            .collect()
    }

    /// Entry `i`'s mapped section: its first host byte and size.
    pub fn section_of(&self, i: usize) -> (usize, usize) {
        let e = &self.entries[i];
        (e.begin, usize::try_from(e.size).unwrap_or(0))
    }

    /// The entries that share host bytes with another one (read-only, see [`shared_groups`]),
    /// as groups of entry numbers.
    pub fn shared(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// The sections of block `[lo, hi)` (non-empty, inside `[0, tripcount)`), one per entry.
    /// Entries of a group that share host bytes all get the group's hull: one section on the
    /// device, which each entry's pointer lies in (two partly overlapping sections could not
    /// both be mapped there).
    pub fn block(&self, lo: u64, hi: u64) -> Vec<Section> {
        let mut sections = self.cut_block(lo, hi);
        for group in &self.groups {
            let lo = group.iter().map(|&i| sections[i].begin).min();
            let hi = group
                .iter()
                .map(|&i| sections[i].begin + sections[i].size as usize)
                .max();
            if let (Some(lo), Some(hi)) = (lo, hi) {
                for &i in group {
                    sections[i].begin = lo;
                    sections[i].size = (hi - lo) as i64;
                }
            }
        }
        sections
    }

    /// Each entry's own section of block `[lo, hi)`.
    fn cut_block(&self, lo: u64, hi: u64) -> Vec<Section> {
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
                // The copy must start from the current values: bytes no team writes are
                // merged as unchanged.
                Cut::Merge => Section {
                    begin: e.begin,
                    size: e.size,
                    types: e.types | bits::TO | bits::FROM,
                    writes: true,
                },
                Cut::Replicate => Section {
                    begin: e.begin,
                    size: e.size,
                    types: e.types & !bits::FROM,
                    writes: false,
                },
                Cut::Affine { forms, writes } => {
                    match hull(forms, lo as i128, hi as i128, e.base) {
                        Some((a, b)) => Section {
                            begin: a as usize,
                            size: (b - a) as i64,
                            types: if *writes {
                                e.types
                            } else {
                                e.types & !bits::FROM
                            },
                            writes: *writes,
                        },
                        // The guards exclude every access of the block: a read-only element
                        // of the mapped section stands for the argument (copying back could
                        // overwrite another block's results), the first the loop touches, so
                        // that it stays clear of other entries' bytes (see `touched`).
                        None => {
                            let (first, end) = touched(e, cut, self.tripcount);
                            Section {
                                begin: first,
                                size: forms
                                    .iter()
                                    .map(|f| f.w)
                                    .min()
                                    .unwrap_or(1)
                                    .min(end.saturating_sub(first) as i128)
                                    .max(1) as i64,
                                types: e.types & !bits::FROM,
                                writes: false,
                            }
                        }
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
            // A section shared with an aliasing entry may start before this entry's own.
            out.push_str(&format!(
                " arg{i} {:+}:{}B({dir})",
                s.begin as i128 - e.begin as i128,
                s.size
            ));
        }
        out
    }
}

/// An access with the launch's values in: bytes `[off + a*q + b*r, ... + w)` of its argument
/// for the iterations whose `q` and `r` (by divisor `m`, none if 0) lie in the guards' box,
/// and only offsets in `o` (inclusive bounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Form {
    off: i128,
    a: i128,
    b: i128,
    m: i128,
    w: i128,
    q: (i128, i128),
    r: (i128, i128),
    o: (i128, i128),
}

/// Wider than any iteration, narrow enough that the arithmetic below cannot overflow.
const UNBOUNDED: (i128, i128) = (-(1 << 100), 1 << 100);

impl Form {
    /// The access with argument values from `value`; `None` if one is missing.
    fn of(a: &Access, value: impl Fn(Expr) -> Option<i128>) -> Option<Form> {
        let off = value(Expr {
            c: a.c0,
            sym: a.sym,
        })?;
        let (mut q, mut r, mut o) = (UNBOUNDED, UNBOUNDED, UNBOUNDED);
        for g in &a.guards {
            let e = value(g.e)?;
            let k = i128::from(g.k);
            let bound = match g.var {
                Var::Q => &mut q,
                Var::R => &mut r,
                Var::Offset => &mut o,
            };
            // k * var + e >= 0
            if k > 0 {
                bound.0 = bound.0.max(-e.div_euclid(k));
            } else {
                bound.1 = bound.1.min(e.div_euclid(-k));
            }
        }
        Some(Form {
            off,
            a: value(a.q_coeff)?,
            b: value(Expr {
                c: a.c1,
                sym: a.c1_sym,
            })?,
            m: value(a.div)?,
            w: i128::from(a.width),
            q,
            r,
            o,
        })
    }

    /// Offsets `[lo, hi)` that iterations `[from, to)` touch; `None` if the guards exclude them
    /// all. Over a rectangle of (q, r) an affine offset is extreme at a corner, and a block of
    /// iterations is at most three rectangles: the rest of its first row, whole rows, the start
    /// of its last row.
    fn range(&self, from: i128, to: i128) -> Option<(i128, i128)> {
        let mut rects = Vec::with_capacity(3);
        if self.m <= 0 {
            rects.push((0, 0, from, to - 1));
        } else {
            let m = self.m;
            let (q0, r0) = (from.div_euclid(m), from.rem_euclid(m));
            let (q1, r1) = ((to - 1).div_euclid(m), (to - 1).rem_euclid(m));
            if q0 == q1 {
                rects.push((q0, q0, r0, r1));
            } else {
                rects.push((q0, q0, r0, m - 1));
                if q1 - q0 > 1 {
                    rects.push((q0 + 1, q1 - 1, 0, m - 1));
                }
                rects.push((q1, q1, 0, r1));
            }
        }
        let mut out = None;
        for (qa, qb, ra, rb) in rects {
            let (qa, qb) = (qa.max(self.q.0), qb.min(self.q.1));
            let (ra, rb) = (ra.max(self.r.0), rb.min(self.r.1));
            if qa > qb || ra > rb {
                continue;
            }
            for q in [qa, qb] {
                for r in [ra, rb] {
                    let v = self
                        .off
                        .saturating_add(self.a.saturating_mul(q))
                        .saturating_add(self.b.saturating_mul(r));
                    out = Some(widen(out, (v, v.saturating_add(self.w))));
                }
            }
        }
        out
    }
}

/// `[lo, hi)` grown to cover `r` too (`r` itself where there is nothing yet).
fn widen(acc: Option<(i128, i128)>, r: (i128, i128)) -> (i128, i128) {
    acc.map_or(r, |(lo, hi)| (lo.min(r.0), hi.max(r.1)))
}

/// Byte range `[lo, hi)` (host addresses) that iterations `[from, to)` touch through `forms`;
/// `None` if their guards exclude every access.
///
/// The forms of an access in an inner loop are its first and last addresses there, and only
/// their hull holds what it touches in between: bounds on the offset (`o`) cut that hull, not
/// each form. Forms with the same bounds are cut together (for forms of different accesses
/// that gives more bytes, never fewer).
fn hull(forms: &[Form], from: i128, to: i128, base: usize) -> Option<(i128, i128)> {
    // (o, widest width, range) per distinct o.
    type Range = (i128, i128);
    let mut groups: Vec<(Range, i128, Range)> = Vec::new();
    for f in forms {
        let Some(r) = f.range(from, to) else {
            continue;
        };
        match groups.iter_mut().find(|g| g.0 == f.o) {
            Some(g) => {
                g.1 = g.1.max(f.w);
                g.2 = widen(Some(g.2), r);
            }
            None => groups.push((f.o, f.w, r)),
        }
    }
    let mut out = None;
    for ((olo, ohi), w, (lo, hi)) in groups {
        // Offsets outside o are never accessed.
        let (lo, hi) = (lo.max(olo), hi.min(ohi.saturating_add(w)));
        if lo < hi {
            out = Some(widen(out, (lo, hi)));
        }
    }
    out.map(|(lo, hi)| (base as i128 + lo, base as i128 + hi))
}

/// Whether blocks of consecutive iterations always have disjoint hulls: every access moves by
/// the same steps, the offset only grows (or only shrinks) from one iteration to the next,
/// within a row (`b`) and from a row's last iteration to the next row's first
/// (`a - b * (m - 1)`), and by at least the span of what one iteration touches. Then the hulls
/// of `[x, y)` and `[y, z)` cannot meet, whatever the schedule cuts. Guards only take
/// iterations away.
fn blocks_disjoint(forms: &[Form], tripcount: i128) -> bool {
    let Some(f) = forms.first() else {
        return true;
    };
    if f.b == 0 || forms.iter().any(|g| (g.a, g.b, g.m) != (f.a, f.b, f.m)) {
        return rows_disjoint(forms, tripcount);
    }
    let lo = forms.iter().map(|g| g.off).min().unwrap_or(0);
    let hi = forms.iter().map(|g| g.off + g.w).max().unwrap_or(0);
    let span = hi - lo;
    let sign = f.b.signum();
    if f.b * sign < span {
        return false;
    }
    f.m <= 0 || (f.a - f.b * (f.m - 1)) * sign >= span
}

/// The same for forms with different steps and no divisor (the ends of a triangular inner
/// loop, `y[i*n + j]` for `j <= i`: `4n*i` and `(4n+4)*i`), all moving one way: what
/// iteration `t` touches at most lies below what `t + 1` touches at least (mirrored for
/// forms moving down). The gap between the two is a minimum of affine functions of `t` less a
/// maximum of such, concave, so it is smallest at `t = 0` or `t = tripcount - 2`.
fn rows_disjoint(forms: &[Form], tripcount: i128) -> bool {
    let up = forms.iter().all(|g| g.b > 0);
    if forms.iter().any(|g| g.m > 0) || !(up || forms.iter().all(|g| g.b < 0)) {
        return false;
    }
    let at = |g: &Form, t: i128| g.off + g.b * t;
    [0, (tripcount - 2).max(0)].into_iter().all(|t| {
        if up {
            let top = forms.iter().map(|g| at(g, t) + g.w).max().unwrap_or(0);
            let next = forms.iter().map(|g| at(g, t + 1)).min().unwrap_or(0);
            top <= next
        } else {
            let bottom = forms.iter().map(|g| at(g, t)).min().unwrap_or(0);
            let next = forms.iter().map(|g| at(g, t + 1) + g.w).max().unwrap_or(0);
            next <= bottom
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TO: i64 = 0x1;
    const TOFROM: i64 = 0x3;
    const PARAM: i64 = bits::TARGET_PARAM;
    const LIT: i64 = bits::TARGET_PARAM | bits::LITERAL | 0x200;

    fn acc(param: u32, mode: Mode, c0: i64, c1: i64, width: i64) -> Access {
        Access::affine(param, mode, c0, c1, width, None)
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
            grid: false,
        };
        let b = info.to_bytes();
        assert_eq!(KernelInfo::parse(&b), Ok(info.clone()));
        assert!(KernelInfo::parse(&b[..20]).is_err());
        assert!(KernelInfo::parse(b"SPRX\x01\0\0\0\0\0\0\0\0\0\0\0").is_err());
        let mut v3 = b.clone();
        v3[4] = 3;
        assert!(KernelInfo::parse(&v3).unwrap_err().contains("version 3"));
        // Version 2: a divisor and guards; a version-1 reader's record is its prefix.
        let mut x = info.clone();
        x.accesses[0].div = Expr::constant(510);
        x.accesses[1].c1_sym = Some(Sym {
            param: 0,
            bits: 32,
            coeff: 4,
        });
        x.accesses[0].q_coeff = Expr {
            c: 16,
            sym: Some(Sym {
                param: 0,
                bits: 64,
                coeff: 8,
            }),
        };
        x.accesses[0].guards = vec![
            Guard {
                var: Var::Q,
                k: 1,
                e: Expr::constant(-1),
            },
            Guard {
                var: Var::R,
                k: -1,
                e: Expr {
                    c: -2,
                    sym: Some(Sym {
                        param: 0,
                        bits: 32,
                        coeff: 1,
                    }),
                },
            },
        ];
        let xb = x.to_bytes();
        assert_eq!(xb[4], 2);
        assert_eq!(xb.len(), HEADER + 3 * RECORD_V2);
        assert_eq!(KernelInfo::parse(&xb), Ok(x));
        assert_eq!(
            &xb[HEADER..HEADER + RECORD_V1],
            &b[HEADER..HEADER + RECORD_V1]
        );
        let mut bad = xb.clone();
        bad[HEADER + 120] = 7;
        assert!(KernelInfo::parse(&bad)
            .unwrap_err()
            .contains("unknown variable 7"));
        let mut many = xb;
        many[HEADER + 112] = 5;
        assert!(KernelInfo::parse(&many).unwrap_err().contains("5 guards"));
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
            grid: false,
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
            grid: false,
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
            grid: false,
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
            grid: false,
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
            grid: false,
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
            grid: false,
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
            grid: false,
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
            grid: false,
        };
        assert!(why(&both, &[arr(0x1000, 40, 0x2)], 10).contains("overlap"));
        // A write at one address for every iteration.
        let scalar = KernelInfo {
            accesses: vec![acc(0, Mode::Write, 0, 0, 4)],
            grid: false,
        };
        assert!(why(&scalar, &[arr(0x1000, 40, 0x2)], 10).contains("overlap"));
        // Aliasing sections.
        let two = KernelInfo {
            accesses: vec![acc(0, Mode::Write, 0, 4, 4), acc(1, Mode::Read, 0, 4, 4)],
            grid: false,
        };
        let e = [arr(0x1000, 40, 0x2), arr(0x1010, 40, TO)];
        assert!(why(&two, &e, 10).contains("overlap in host memory"));
        // A gather into a written argument.
        let g = KernelInfo {
            accesses: vec![acc(0, Mode::Whole, 0, 0, 4), acc(0, Mode::Write, 0, 4, 4)],
            grid: false,
        };
        assert!(why(&g, &[arr(0x1000, 40, 0x3)], 10).contains("cannot follow"));
    }

    #[test]
    fn reduction_variables_are_listed_and_kept_whole() {
        // s += x[i]: args (s, n, x).
        let info = KernelInfo {
            accesses: vec![acc(0, Mode::Reduce, 1, 10, 8), acc(2, Mode::Read, 0, 8, 8)],
            grid: false,
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
            grid: false,
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
            grid: false,
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

    /// `f[i*512 + j]` over `collapse(2)` of `i, j` in `1..511`: iteration `it` is row
    /// `q = it / 510`, column `r = it % 510`; offset `8 * (513 + 512 q + r)`.
    fn jacobi(mode: Mode, dq: i64, dr: i64) -> Access {
        Access {
            q_coeff: Expr::constant(8 * 512),
            div: Expr::constant(510),
            ..acc(0, mode, 8 * (513 + 512 * dq + dr), 8, 8)
        }
    }

    #[test]
    fn collapsed_rows_cut_mid_row_give_exact_hulls() {
        let info = KernelInfo {
            accesses: vec![
                Access {
                    param: 1,
                    ..jacobi(Mode::Write, 0, 0)
                },
                jacobi(Mode::Read, -1, 0),
                jacobi(Mode::Read, 1, 0),
                jacobi(Mode::Read, 0, -1),
                jacobi(Mode::Read, 0, 1),
            ],
            grid: false,
        };
        let n = 510 * 510;
        let e = [
            arr(0x10_0000, 8 * 512 * 512, TO),
            arr(0x80_0000, 8 * 512 * 512, 0x2),
        ];
        let p = Plan::new(&info, &e, n).expect("spreads");
        // Rows 2 (from column 100) to 4 (through column 9).
        let (lo, hi) = (2 * 510 + 100, 4 * 510 + 10);
        let s = p.block(lo, hi);
        let elem = |s: &Section, base: usize| ((s.begin - base) / 8, s.size / 8);
        // Written: element (3, 101) .. (5, 10) inclusive, as 1 + row, 1 + column.
        assert_eq!(elem(&s[1], 0x80_0000), (3 * 512 + 101, 2 * 512 - 101 + 11));
        // Read: from the row above the first's column 101, to the row below the last's.
        assert_eq!(elem(&s[0], 0x10_0000).0, 2 * 512 + 101);
        let (b, n0) = elem(&s[0], 0x10_0000);
        assert_eq!(b + n0 as usize, 6 * 512 + 11);
        // The next block's written hull starts where this one's ends.
        let t = p.block(hi, hi + 700);
        assert_eq!(t[1].begin, s[1].begin + s[1].size as usize);
    }

    #[test]
    fn a_transposed_write_over_collapsed_loops_is_refused_and_reads_are_not() {
        // b[j*m + i] = a[i*m + j], m = 64: b's offset jumps back at each row.
        let m = 64;
        let tr = Access {
            q_coeff: Expr::constant(8),
            div: Expr::constant(m),
            ..acc(1, Mode::Write, 0, 8 * m, 8)
        };
        let rd = Access {
            q_coeff: Expr::constant(8 * m),
            div: Expr::constant(m),
            ..acc(0, Mode::Read, 0, 8, 8)
        };
        let e = [arr(0x1000, 8 * m * m, TO), arr(0x10_0000, 8 * m * m, 0x2)];
        let n = (m * m) as u64;
        let r = Plan::new(
            &KernelInfo {
                accesses: vec![rd.clone(), tr.clone()],
                grid: false,
            },
            &e,
            n,
        );
        assert!(r.unwrap_err().0.contains("may overlap"));
        // Transposed reads are fine: rows 1..2 of b read columns 1..2 of every row.
        let rt = Access {
            mode: Mode::Read,
            param: 0,
            ..tr
        };
        let wr = Access {
            mode: Mode::Write,
            param: 1,
            ..rd
        };
        let p = Plan::new(
            &KernelInfo {
                accesses: vec![rt, wr],
                grid: false,
            },
            &e,
            n,
        )
        .expect("spreads");
        let s = p.block(64, 192);
        assert_eq!((s[0].begin - 0x1000, s[0].size), (8, 8 * (63 * 64 + 2)));
        assert_eq!((s[1].begin - 0x10_0000, s[1].size), (8 * 64, 8 * 128));
    }

    #[test]
    fn guards_keep_halo_reads_inside_the_section() {
        // v[i] = (i > 0 ? u[i-1] : 0) + (i < n-1 ? u[i+1] : 0), n = 100 (argument 2).
        let n = 100u64;
        let guarded = |c0: i64, g: Guard| Access {
            guards: vec![g],
            ..acc(1, Mode::Read, c0, 8, 8)
        };
        let info = KernelInfo {
            accesses: vec![
                acc(0, Mode::Write, 0, 8, 8),
                guarded(
                    -8,
                    Guard {
                        var: Var::R,
                        k: 1,
                        e: Expr::constant(-1),
                    },
                ),
                guarded(
                    8,
                    Guard {
                        var: Var::R,
                        k: -1,
                        e: Expr {
                            c: -2,
                            sym: Some(Sym {
                                param: 2,
                                bits: 32,
                                coeff: 1,
                            }),
                        },
                    },
                ),
            ],
            grid: false,
        };
        let e = [arr(0x1000, 800, 0x2), arr(0x2000, 800, TO), lit(n)];
        let p = Plan::new(&info, &e, n).expect("spreads");
        let at = |lo, hi| {
            let s = p.block(lo, hi)[1];
            ((s.begin - 0x2000) / 8, s.size / 8)
        };
        assert_eq!(at(0, 50), (0, 51));
        assert_eq!(at(50, 100), (49, 51));
        assert_eq!(at(0, 100), (0, 100));
        // A block whose every access is guarded away keeps one element, read-only.
        let one = KernelInfo {
            accesses: vec![
                acc(0, Mode::Write, 0, 8, 8),
                guarded(
                    8,
                    Guard {
                        var: Var::R,
                        k: -1,
                        e: Expr::constant(10),
                    },
                ),
            ],
            grid: false,
        };
        let p = Plan::new(&one, &e, n).expect("spreads");
        assert_eq!(p.block(50, 60)[1].size, 8);
        assert_eq!(p.block(50, 60)[1].types & 0x2, 0);
        // Without the guards the same kernel reads outside its section: refused.
        let mut bare = info.clone();
        for a in &mut bare.accesses {
            a.guards.clear();
        }
        assert!(Plan::new(&bare, &e, n)
            .unwrap_err()
            .0
            .contains("only reads leave it"));
    }

    #[test]
    fn row_guards_of_a_collapsed_heat_step() {
        // collapse(2) over i, j in 0..n (n = 32, argument 2): u[(i-1)*n + j] under i > 0 and
        // u[i*n + j - 1] under j > 0. The loops cover whole rows: offsets are linear in the
        // iteration, the divisor only places the guards.
        let n = 32i64;
        let nsym = |coeff| {
            Some(Sym {
                param: 2,
                bits: 32,
                coeff,
            })
        };
        let row = Access {
            div: Expr { c: 0, sym: nsym(1) },
            q_coeff: Expr { c: 0, sym: nsym(8) },
            ..acc(1, Mode::Read, 0, 8, 8)
        };
        let up = Access {
            sym: nsym(-8),
            guards: vec![Guard {
                var: Var::Q,
                k: 1,
                e: Expr::constant(-1),
            }],
            ..row.clone()
        };
        let left = Access {
            c0: -8,
            guards: vec![Guard {
                var: Var::R,
                k: 1,
                e: Expr::constant(-1),
            }],
            ..row.clone()
        };
        let w = Access {
            param: 0,
            mode: Mode::Write,
            ..row.clone()
        };
        let info = KernelInfo {
            accesses: vec![w, row, up, left],
            grid: false,
        };
        let bytes = 8 * n * n;
        let e = [
            arr(0x10_0000, bytes, 0x2),
            arr(0x20_0000, bytes, TO),
            lit(n as u64),
        ];
        let p = Plan::new(&info, &e, (n * n) as u64).expect("spreads");
        let s = p.block(0, 64)[1];
        assert_eq!((s.begin, s.size), (0x20_0000, 8 * 64));
        let s = p.block(64, 96)[1];
        assert_eq!((s.begin - 0x20_0000, s.size), (8 * 32, 8 * 64));
        let s = p.block(70, 96)[1];
        assert_eq!((s.begin - 0x20_0000, s.size), (8 * 38, 8 * 58));
    }

    #[test]
    fn an_offset_bound_cuts_the_sweep_of_an_inner_loop_not_its_ends() {
        // for b: for t in 0..128: if (b*128 + t < n) y[b*128 + t] = ...: the access's first and
        // last addresses per b, both bounded by offset <= 4n - 4 (n = 1000, argument 0).
        let bound = Guard {
            var: Var::Offset,
            k: -1,
            e: Expr {
                c: -4,
                sym: Some(Sym {
                    param: 0,
                    bits: 32,
                    coeff: 4,
                }),
            },
        };
        let end = |c0| Access {
            guards: vec![bound],
            ..acc(1, Mode::Write, c0, 512, 4)
        };
        let info = KernelInfo {
            accesses: vec![end(0), end(508)],
            grid: false,
        };
        let e = [lit(1000), arr(0x1000, 4000, 0x2)];
        let p = Plan::new(&info, &e, 8).expect("spreads");
        // The last block's first row starts at element 896: it holds 104 elements.
        let s = p.block(7, 8)[1];
        assert_eq!((s.begin - 0x1000, s.size), (4 * 896, 4 * 104));
        let s = p.block(0, 7)[1];
        assert_eq!((s.begin - 0x1000, s.size), (0, 4 * 896));
        // An iteration handles a block of 128 elements: launches are weighed by that.
        assert_eq!(p.elements_per_iteration(), 128);
        assert_eq!(info.most_elements_per_iteration(), 128);
    }

    #[test]
    fn a_triangular_inner_loop_writes_disjoint_rows() {
        // y[i*n + j] for j <= i, n = 10: per row [4n*i, (4n+4)*i + 4).
        let n = 10i64;
        let info = KernelInfo {
            accesses: vec![
                acc(0, Mode::Write, 0, 4 * n, 4),
                acc(0, Mode::Write, 0, 4 * n + 4, 4),
            ],
            grid: false,
        };
        let e = [arr(0x1000, 4 * n * n, 0x2)];
        let p = Plan::new(&info, &e, n as u64).expect("spreads");
        let (a, b) = (p.block(0, 5)[0], p.block(5, 10)[0]);
        assert!(a.begin as i64 + a.size <= b.begin as i64);
        assert_eq!((b.begin - 0x1000, b.size), (4 * 50, 4 * (99 - 50 + 1)));
        // Rows longer than the stride overlap the next: refused.
        let wide = KernelInfo {
            accesses: vec![
                acc(0, Mode::Write, 0, 4 * n, 4),
                acc(0, Mode::Write, 0, 4 * n + 8, 4),
            ],
            grid: false,
        };
        let e = [arr(0x1000, 4 * n * (n + 1), 0x2)];
        assert!(Plan::new(&wide, &e, n as u64)
            .unwrap_err()
            .0
            .contains("may overlap"));
    }

    #[test]
    fn read_only_entries_sharing_bytes_get_one_section_per_block() {
        // y[i] = p[i] - q[i] with q = p + 4 elements (p[0:10], q[0:10] read, y written).
        let info = KernelInfo {
            accesses: vec![
                acc(0, Mode::Read, 0, 4, 4),
                acc(1, Mode::Read, 0, 4, 4),
                acc(2, Mode::Write, 0, 4, 4),
            ],
            grid: false,
        };
        let e = [
            arr(0x1000, 40, TO),
            arr(0x1010, 40, TO),
            arr(0x9000, 40, TOFROM),
        ];
        let plan = Plan::new(&info, &e, 10).expect("read-only aliases are spread");
        assert_eq!(plan.shared(), [vec![0, 1]]);
        // Block [2, 5): p's bytes [0x1008, 0x1014), q's [0x1018, 0x1024): one hull for both.
        let b = plan.block(2, 5);
        for s in &b[..2] {
            assert_eq!((s.begin, s.size, s.writes), (0x1008, 0x1c, false));
        }
        assert_eq!((b[2].begin, b[2].size, b[2].writes), (0x9008, 12, true));
        // The same array passed twice, read whole: one section, the array.
        let whole = KernelInfo {
            accesses: vec![acc(0, Mode::Whole, 0, 0, 4), acc(1, Mode::Whole, 0, 0, 4)],
            grid: false,
        };
        let e2 = [arr(0x1000, 40, TO), arr(0x1000, 40, TO)];
        let plan = Plan::new(&whole, &e2, 10).expect("the same read-only array twice");
        assert_eq!(plan.block(0, 3)[1].begin, 0x1000);
        // One of them written: refused, naming it.
        let mut w = info.clone();
        w.accesses[1] = acc(1, Mode::Write, 0, 4, 4);
        let r = Plan::new(&w, &e, 10).expect_err("a written alias");
        assert!(
            r.0.contains("map entries 0 and 1 overlap in host memory, and entry 1 is written"),
            "{}",
            r.0
        );
    }

    #[test]
    fn grid_descriptors_round_trip_and_refuse_affine_records() {
        let info = KernelInfo {
            accesses: vec![acc(0, Mode::Whole, 0, 0, 1), acc(1, Mode::Merge, 0, 0, 1)],
            grid: true,
        };
        let bytes = info.to_bytes();
        assert_eq!(u32_at(&bytes, 12), FLAG_GRID);
        assert_eq!(KernelInfo::parse(&bytes).expect("parses"), info);
        // A grid kernel's blocks are windows of teams: an affine record would be cut by them.
        let bad = KernelInfo {
            accesses: vec![acc(0, Mode::Write, 0, 4, 4)],
            grid: true,
        };
        assert!(KernelInfo::parse(&bad.to_bytes()).is_err());
        // Flags this runtime does not know are refused, not ignored.
        let mut unknown = info.to_bytes();
        unknown[12] = 2;
        assert!(KernelInfo::parse(&unknown).is_err());
    }

    #[test]
    fn grid_blocks_map_inputs_whole_and_write_whole_copies() {
        let info = KernelInfo {
            accesses: vec![acc(0, Mode::Whole, 0, 0, 1), acc(1, Mode::Merge, 0, 0, 1)],
            grid: true,
        };
        // A `from` output: the copy still starts from the host's values (TO added).
        let e = [arr(0x1000, 400, TO), arr(0x2000, 400, 0x2), lit(7)];
        let p = Plan::new(&info, &e, 63).expect("spreads");
        assert_eq!(p.merges(), vec![1]);
        for (lo, hi) in [(0, 16), (48, 63)] {
            let b = p.block(lo, hi);
            assert_eq!((b[0].begin, b[0].size, b[0].types & 0x3), (0x1000, 400, TO));
            assert!(!b[0].writes);
            assert_eq!(
                (b[1].begin, b[1].size, b[1].types & 0x3),
                (0x2000, 400, TOFROM)
            );
            assert!(b[1].writes);
        }
        // A league of one team: nothing to cut.
        assert!(Plan::new(&info, &e, 1).is_err());
    }
}

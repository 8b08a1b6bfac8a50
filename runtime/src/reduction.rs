//! Reductions across the chunks of a `target spread` construct (seed 000's future work;
//! docs/spread-abi.md §4): every device accumulates its chunks into a partial of its own, and the
//! partials are combined into the original variable, in device-list order, when the construct
//! is complete.
//!
//! The driver rewrites `reduction(op: s)` so that each chunk's target region reduces into the
//! partial of its device (`reduction(op: p[0:1]) map(tofrom: p[0:1])`). Chunks of one device run
//! in order (one queue, or `depend(inout: p[0])` between `nowait` tasks), so each one starts from
//! what the previous left.

use crate::error::{Error, ErrorKind, Result};

/// A reduction operator (`__SPREAD_RED_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `+`
    Add,
    /// `-` (combines as `+`, as OpenMP's)
    Sub,
    /// `*`
    Mul,
    /// `max`
    Max,
    /// `min`
    Min,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl Op {
    /// The operator of an ABI code.
    pub fn from_code(code: i32) -> Option<Op> {
        Some(match code {
            1 => Op::Add,
            2 => Op::Sub,
            3 => Op::Mul,
            4 => Op::Max,
            5 => Op::Min,
            6 => Op::BitAnd,
            7 => Op::BitOr,
            8 => Op::BitXor,
            9 => Op::And,
            10 => Op::Or,
            _ => return None,
        })
    }

    /// The operator as the clause spells it.
    pub fn spelling(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Max => "max",
            Op::Min => "min",
            Op::BitAnd => "&",
            Op::BitOr => "|",
            Op::BitXor => "^",
            Op::And => "&&",
            Op::Or => "||",
        }
    }
}

/// A reducible type (`__SPREAD_TYPE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// `signed char`
    I8,
    /// `short`
    I16,
    /// `int`
    I32,
    /// `long long`
    I64,
    /// `unsigned char`
    U8,
    /// `unsigned short`
    U16,
    /// `unsigned int`
    U32,
    /// `unsigned long long`
    U64,
    /// `float`
    F32,
    /// `double`
    F64,
}

impl Type {
    /// The type of an ABI code.
    pub fn from_code(code: i32) -> Option<Type> {
        Some(match code {
            1 => Type::I8,
            2 => Type::I16,
            3 => Type::I32,
            4 => Type::I64,
            5 => Type::U8,
            6 => Type::U16,
            7 => Type::U32,
            8 => Type::U64,
            9 => Type::F32,
            10 => Type::F64,
            _ => return None,
        })
    }

    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            Type::I8 | Type::U8 => 1,
            Type::I16 | Type::U16 => 2,
            Type::I32 | Type::U32 | Type::F32 => 4,
            Type::I64 | Type::U64 | Type::F64 => 8,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }
}

/// One partial: room for the variable's elements (one, or an array's), aligned for the largest
/// reducible type.
pub type Partial = Box<[u64]>;

/// One reduction variable of a construct.
#[derive(Debug)]
pub struct Var {
    /// Operator.
    pub op: Op,
    /// Type.
    pub ty: Type,
    /// Address of the original variable.
    pub original: usize,
    /// Elements of type `ty` the variable has (1 but for an array updated element by element).
    count: usize,
    /// Partials by resource index (a spread construct's chunks in dealing order, a block of
    /// automatic spreading); created on first use.
    partials: Vec<Option<Partial>>,
}

macro_rules! each_type {
    ($ty:expr, $mac:ident, $($arg:expr),*) => {
        match $ty {
            Type::I8 => $mac!(i8, int, $($arg),*),
            Type::I16 => $mac!(i16, int, $($arg),*),
            Type::I32 => $mac!(i32, int, $($arg),*),
            Type::I64 => $mac!(i64, int, $($arg),*),
            Type::U8 => $mac!(u8, int, $($arg),*),
            Type::U16 => $mac!(u16, int, $($arg),*),
            Type::U32 => $mac!(u32, int, $($arg),*),
            Type::U64 => $mac!(u64, int, $($arg),*),
            Type::F32 => $mac!(f32, float, $($arg),*),
            Type::F64 => $mac!(f64, float, $($arg),*),
        }
    };
}

/// The identity of `op` for `T`, as the bytes of a [`Partial`].
macro_rules! identity {
    ($t:ty, int, $op:expr) => {{
        let v: $t = match $op {
            Op::Add | Op::Sub | Op::BitOr | Op::BitXor | Op::Or => 0,
            Op::Mul | Op::And => 1,
            Op::Max => <$t>::MIN,
            Op::Min => <$t>::MAX,
            Op::BitAnd => !0,
        };
        to_bits(&v.to_ne_bytes())
    }};
    ($t:ty, float, $op:expr) => {{
        let v: $t = match $op {
            Op::Add | Op::Sub | Op::Or => 0.0,
            Op::Mul | Op::And => 1.0,
            Op::Max => <$t>::NEG_INFINITY,
            Op::Min => <$t>::INFINITY,
            // Rejected by `Var::new`.
            Op::BitAnd | Op::BitOr | Op::BitXor => 0.0,
        };
        to_bits(&v.to_ne_bytes())
    }};
}

/// `a op b` for `T`.
macro_rules! combine {
    ($t:ty, int, $op:expr, $a:expr, $b:expr) => {{
        let (a, b): ($t, $t) = ($a, $b);
        match $op {
            Op::Add | Op::Sub => a.wrapping_add(b),
            Op::Mul => a.wrapping_mul(b),
            Op::Max => a.max(b),
            Op::Min => a.min(b),
            Op::BitAnd => a & b,
            Op::BitOr => a | b,
            Op::BitXor => a ^ b,
            Op::And => <$t>::from(a != 0 && b != 0),
            Op::Or => <$t>::from(a != 0 || b != 0),
        }
    }};
    ($t:ty, float, $op:expr, $a:expr, $b:expr) => {{
        let (a, b): ($t, $t) = ($a, $b);
        match $op {
            Op::Add | Op::Sub => a + b,
            Op::Mul => a * b,
            Op::Max => a.max(b),
            Op::Min => a.min(b),
            Op::And => <$t>::from(u8::from(a != 0.0 && b != 0.0)),
            Op::Or => <$t>::from(u8::from(a != 0.0 || b != 0.0)),
            Op::BitAnd | Op::BitOr | Op::BitXor => a,
        }
    }};
}

fn to_bits(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..bytes.len()].copy_from_slice(bytes);
    u64::from_ne_bytes(b)
}

/// Reads a `$t` from raw memory and combines into it.
macro_rules! fold_into {
    ($t:ty, $class:ident, $op:expr, $dst:expr, $src:expr) => {{
        let mut d = [0u8; std::mem::size_of::<$t>()];
        d.copy_from_slice(&$dst[..std::mem::size_of::<$t>()]);
        let mut s = [0u8; std::mem::size_of::<$t>()];
        s.copy_from_slice(&$src[..std::mem::size_of::<$t>()]);
        let v = combine!(
            $t,
            $class,
            $op,
            <$t>::from_ne_bytes(d),
            <$t>::from_ne_bytes(s)
        );
        $dst[..std::mem::size_of::<$t>()].copy_from_slice(&v.to_ne_bytes());
    }};
}

impl Var {
    /// A variable of `construct` (for errors) with ABI codes `op` and `ty`, at `original`, of
    /// `size` bytes, over `resources` resources.
    pub fn new(
        what: &str,
        (op, ty): (i32, i32),
        original: usize,
        size: usize,
        resources: usize,
    ) -> Result<Var> {
        let Some(op) = Op::from_code(op) else {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!(
                    "unknown reduction operator code {op} in the reduction clause of the {what}"
                ),
            ));
        };
        let Some(ty) = Type::from_code(ty) else {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!("a variable of the reduction({}: ...) clause of the {what} has a type a spread reduction cannot combine (integer types, float and double can be)", op.spelling()),
            ));
        };
        if ty.size() != size {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!(
                    "reduction variable of the {what}: {size} bytes for a {ty:?} (ABI mismatch)"
                ),
            ));
        }
        if ty.is_float() && matches!(op, Op::BitAnd | Op::BitOr | Op::BitXor) {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!(
                    "reduction({}: ...) of the {what} on a floating-point variable",
                    op.spelling()
                ),
            ));
        }
        if original == 0 {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!("reduction variable of the {what} has a null address"),
            ));
        }
        Ok(Var {
            op,
            ty,
            original,
            count: 1,
            partials: (0..resources).map(|_| None).collect(),
        })
    }

    /// A variable of `size` bytes combined element by element (an array that a loop updates
    /// atomically, element by element: automatic spreading's `Mode::ReduceElements`); one
    /// element is [`Var::new`]'s variable.
    pub fn elements(
        what: &str,
        (op, ty): (i32, i32),
        original: usize,
        size: usize,
        resources: usize,
    ) -> Result<Var> {
        let elem = Type::from_code(ty).map_or(size, Type::size);
        if elem == 0 || size == 0 || !size.is_multiple_of(elem) {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!("reduction variable of the {what}: {size} bytes are not whole elements of {elem} bytes"),
            ));
        }
        let mut v = Var::new(what, (op, ty), original, elem, resources)?;
        v.count = size / elem;
        Ok(v)
    }

    /// Whether `other` registers the same variable (a registration repeated per chunk).
    pub fn same(&self, op: i32, ty: i32, original: usize) -> bool {
        Op::from_code(op) == Some(self.op)
            && Type::from_code(ty) == Some(self.ty)
            && original == self.original
    }

    /// The partial of resource `r`, created holding the identity.
    pub fn partial(&mut self, r: usize) -> *mut u64 {
        if r >= self.partials.len() {
            self.partials.resize_with(r + 1, || None);
        }
        let (op, ty, count) = (self.op, self.ty, self.count);
        let p = self.partials[r].get_or_insert_with(|| {
            let size = ty.size();
            let identity = each_type!(ty, identity, op).to_ne_bytes();
            let mut bytes = vec![0u8; (count * size).div_ceil(8).max(1) * 8];
            for k in 0..count {
                bytes[k * size..(k + 1) * size].copy_from_slice(&identity[..size]);
            }
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8])))
                .collect()
        });
        p.as_mut_ptr()
    }

    /// Combines the partials, in resource order (deterministic for a static deal), into the
    /// program's variable at
    /// [`original`](Self::original), which must still be alive.
    pub fn fold_into_original(&self) {
        let size = self.ty.size() * self.count;
        let mut bytes = vec![0u8; size];
        crate::sys::access::transfer(bytes.as_mut_ptr() as usize, self.original, size);
        self.fold(&mut bytes);
        crate::sys::access::transfer(self.original, bytes.as_ptr() as usize, size);
    }

    /// Combines the partials, in resource order, into `original` (the original's bytes),
    /// element by element.
    pub fn fold(&self, original: &mut [u8]) {
        let (op, ty, size) = (self.op, self.ty, self.ty.size());
        for p in self.partials.iter().flatten() {
            let src: Vec<u8> = p.iter().flat_map(|w| w.to_ne_bytes()).collect();
            for k in 0..self.count {
                let (dst, src) = (
                    &mut original[k * size..(k + 1) * size],
                    &src[k * size..(k + 1) * size],
                );
                each_type!(ty, fold_into, op, dst, src);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(op: Op, ty: Type) -> Var {
        let opc = (1..=10)
            .find(|&c| Op::from_code(c) == Some(op))
            .expect("op");
        let tyc = (1..=10)
            .find(|&c| Type::from_code(c) == Some(ty))
            .expect("ty");
        Var::new("target spread t.c:1", (opc, tyc), 8, ty.size(), 3).expect("valid")
    }

    fn set(v: &mut Var, r: usize, bytes: &[u8]) {
        v.partial(r);
        if let Some(Some(p)) = v.partials.get_mut(r) {
            p[0] = to_bits(bytes);
        }
    }

    /// The first `n` bytes of resource `r`'s partial.
    fn get<const N: usize>(v: &mut Var, r: usize) -> [u8; N] {
        v.partial(r);
        let bits = v.partials[r]
            .as_deref()
            .and_then(|p| p.first().copied())
            .unwrap_or(0)
            .to_ne_bytes();
        let mut out = [0u8; N];
        out.copy_from_slice(&bits[..N]);
        out
    }

    #[test]
    fn partials_start_at_the_identity_and_fold_in_order() {
        let mut v = var(Op::Add, Type::F64);
        assert_eq!(f64::from_ne_bytes(get(&mut v, 0)), 0.0);
        set(&mut v, 0, &1.5f64.to_ne_bytes());
        set(&mut v, 2, &2.25f64.to_ne_bytes());
        let mut orig = 10.0f64.to_ne_bytes();
        v.fold(&mut orig);
        assert_eq!(f64::from_ne_bytes(orig), 13.75);

        let mut v = var(Op::Max, Type::I32);
        assert_eq!(i32::from_ne_bytes(get(&mut v, 1)), i32::MIN);
        set(&mut v, 1, &7i32.to_ne_bytes());
        let mut orig = 3i32.to_ne_bytes();
        v.fold(&mut orig);
        assert_eq!(i32::from_ne_bytes(orig), 7);

        let mut v = var(Op::Min, Type::F32);
        assert_eq!(f32::from_ne_bytes(get(&mut v, 0)), f32::INFINITY);
        set(&mut v, 0, &(-2.0f32).to_ne_bytes());
        let mut orig = 1.0f32.to_ne_bytes();
        v.fold(&mut orig);
        assert_eq!(f32::from_ne_bytes(orig), -2.0);

        let mut v = var(Op::Mul, Type::I64);
        set(&mut v, 0, &3i64.to_ne_bytes());
        set(&mut v, 1, &5i64.to_ne_bytes());
        let mut orig = 2i64.to_ne_bytes();
        v.fold(&mut orig);
        assert_eq!(i64::from_ne_bytes(orig), 30);

        let mut v = var(Op::BitAnd, Type::U8);
        assert_eq!(get::<1>(&mut v, 0), [0xff]);
        let mut v2 = var(Op::And, Type::I32);
        set(&mut v2, 0, &5i32.to_ne_bytes());
        let mut orig = 1i32.to_ne_bytes();
        v2.fold(&mut orig);
        assert_eq!(i32::from_ne_bytes(orig), 1);
    }

    #[test]
    fn bad_registrations_are_errors_naming_the_construct() {
        let e = Var::new("target spread t.c:4", (1, 0), 8, 16, 2).expect_err("type");
        assert!(e.message.contains("target spread t.c:4"), "{}", e.message);
        assert!(Var::new("x", (6, 10), 8, 8, 2).is_err());
        assert!(Var::new("x", (1, 3), 8, 8, 2).is_err());
        assert!(Var::new("x", (42, 3), 8, 4, 2).is_err());
    }

    #[test]
    fn an_array_is_combined_element_by_element() {
        // Two blocks of a histogram of 3 i32 counters, added into the program's array.
        let add = 1; // __SPREAD_RED_ADD
        let i32_code = (1..=10)
            .find(|&c| Type::from_code(c) == Some(Type::I32))
            .expect("i32");
        let mut v = Var::elements("auto t.c:1", (add, i32_code), 8, 12, 2).expect("valid");
        for (r, counts) in [(0, [1i32, 2, 3]), (1, [10, 20, 30])] {
            let p = v.partial(r);
            assert!(!p.is_null());
            let words = v.partials[r].as_deref_mut().expect("made");
            assert_eq!(words[0], 0, "the identity of + is 0");
            let mut bytes = vec![0u8; words.len() * 8];
            for (k, c) in counts.iter().enumerate() {
                bytes[4 * k..4 * k + 4].copy_from_slice(&c.to_ne_bytes());
            }
            for (w, c) in words.iter_mut().zip(bytes.chunks_exact(8)) {
                *w = u64::from_ne_bytes(c.try_into().expect("8 bytes"));
            }
        }
        let mut original: Vec<u8> = [100i32, 200, 300]
            .iter()
            .flat_map(|c| c.to_ne_bytes())
            .collect();
        v.fold(&mut original);
        let got: Vec<i32> = original
            .chunks_exact(4)
            .map(|c| i32::from_ne_bytes(c.try_into().expect("4 bytes")))
            .collect();
        assert_eq!(got, [111, 222, 333]);
        assert!(Var::elements("auto t.c:1", (add, i32_code), 8, 10, 2).is_err());
    }
}

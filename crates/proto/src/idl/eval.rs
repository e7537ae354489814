//! Constant expression evaluation (OMG IDL 4.2 §7.4.1.4.3): integers in 128-bit checked
//! arithmetic, floats in `f64`, then a range check against the declared type.
//!
//! Must not: panic or wrap silently (overflow, division by zero and out-of-range shifts are
//! errors); recursion is bounded by the parser's `MAX_EXPR_NODES`.

use super::ast::{BinaryOp, ConstExpr, ExprKind, Primitive, ScopedName, UnaryOp};
use super::model::{ConstValue, Ty};
use super::{IdlError, Loc};

/// Looks up the value of a named constant or enumerator.
pub(super) type Lookup<'a> = dyn Fn(&ScopedName) -> Result<ConstValue, IdlError> + 'a;

/// Evaluates `e`; `unsigned_bits` (the target type's width, if unsigned) makes `~x` the
/// complement within that width (IDL 4.2 §7.4.1.4.3: `~` on unsigned types).
pub(super) fn eval(
    e: &ConstExpr,
    lookup: &Lookup<'_>,
    unsigned_bits: Option<u32>,
) -> Result<ConstValue, IdlError> {
    let err = |msg: &str| Err(IdlError::at(&e.loc, msg));
    match &e.kind {
        ExprKind::Int(v) => match i128::try_from(*v) {
            Ok(v) => Ok(ConstValue::Int(v)),
            Err(_) => err("integer literal out of range"),
        },
        ExprKind::Float(v) => Ok(ConstValue::Float(*v)),
        ExprKind::Str(s) => Ok(ConstValue::Str(s.clone())),
        ExprKind::Char(c) => Ok(ConstValue::Char(*c)),
        ExprKind::Bool(b) => Ok(ConstValue::Bool(*b)),
        ExprKind::Name(n) => lookup(n),
        ExprKind::Unary(op, x) => {
            let v = eval(x, lookup, unsigned_bits)?;
            match (op, v) {
                (UnaryOp::Plus, v @ (ConstValue::Int(_) | ConstValue::Float(_))) => Ok(v),
                (UnaryOp::Neg, ConstValue::Int(v)) => v
                    .checked_neg()
                    .map(ConstValue::Int)
                    .map_or_else(|| err("integer overflow"), Ok),
                (UnaryOp::Neg, ConstValue::Float(v)) => Ok(ConstValue::Float(-v)),
                (UnaryOp::Not, ConstValue::Int(v)) => Ok(ConstValue::Int(match unsigned_bits {
                    Some(bits) => !v & mask(bits),
                    None => !v,
                })),
                (UnaryOp::Not, _) => err("'~' needs an integer operand"),
                _ => err("unary '-' and '+' need a numeric operand"),
            }
        }
        ExprKind::Binary(op, a, b) => {
            let a = eval(a, lookup, unsigned_bits)?;
            let b = eval(b, lookup, unsigned_bits)?;
            binary(*op, a, b, &e.loc)
        }
    }
}

fn mask(bits: u32) -> i128 {
    1i128.checked_shl(bits).map_or(-1, |m| m.wrapping_sub(1))
}

fn binary(op: BinaryOp, a: ConstValue, b: ConstValue, loc: &Loc) -> Result<ConstValue, IdlError> {
    let err = |msg: &str| IdlError::at(loc, msg);
    match (a, b) {
        (ConstValue::Int(x), ConstValue::Int(y)) => {
            let shift = || {
                u32::try_from(y)
                    .ok()
                    .filter(|s| *s < 64)
                    .ok_or_else(|| err("shift amount must be 0..63"))
            };
            let v = match op {
                BinaryOp::Or => Some(x | y),
                BinaryOp::Xor => Some(x ^ y),
                BinaryOp::And => Some(x & y),
                BinaryOp::Shl => {
                    let s = shift()?;
                    // Bits shifted out of the 128-bit value would be lost: overflow.
                    x.checked_shl(s).filter(|v| v.checked_shr(s) == Some(x))
                }
                BinaryOp::Shr => x.checked_shr(shift()?),
                BinaryOp::Add => x.checked_add(y),
                BinaryOp::Sub => x.checked_sub(y),
                BinaryOp::Mul => x.checked_mul(y),
                BinaryOp::Div | BinaryOp::Rem if y == 0 => return Err(err("division by zero")),
                BinaryOp::Div => x.checked_div(y),
                BinaryOp::Rem => x.checked_rem(y),
            };
            v.map(ConstValue::Int)
                .ok_or_else(|| err("integer overflow"))
        }
        (
            a @ (ConstValue::Int(_) | ConstValue::Float(_)),
            b @ (ConstValue::Int(_) | ConstValue::Float(_)),
        ) => {
            let (x, y) = (as_f64(&a), as_f64(&b));
            let v = match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                _ => {
                    return Err(err(
                        "bitwise, shift and '%' operators need integer operands",
                    ));
                }
            };
            if v.is_finite() {
                Ok(ConstValue::Float(v))
            } else {
                Err(err("floating-point overflow or division by zero"))
            }
        }
        _ => Err(err("operators need numeric operands")),
    }
}

#[allow(clippy::cast_precision_loss, clippy::as_conversions)]
fn as_f64(v: &ConstValue) -> f64 {
    match v {
        ConstValue::Int(i) => *i as f64,
        ConstValue::Float(f) => *f,
        _ => 0.0,
    }
}

/// Checks `v` against the declared type `ty` and converts it (integers to floats).
pub(super) fn coerce(v: ConstValue, ty: &Ty, loc: &Loc) -> Result<ConstValue, IdlError> {
    let bad = |what: &str| Err(IdlError::at(loc, format!("expected {what} constant")));
    match ty {
        Ty::Prim(p) if p.is_integer() => match v {
            ConstValue::Int(i) => {
                let (lo, hi) = p.int_range().unwrap_or((0, 0));
                if i < lo || i > hi {
                    Err(IdlError::at(
                        loc,
                        format!("value {i} out of range for {}", prim_name(*p)),
                    ))
                } else {
                    Ok(ConstValue::Int(i))
                }
            }
            _ => bad("an integer"),
        },
        Ty::Prim(Primitive::F32 | Primitive::F64 | Primitive::F128) => match v {
            ConstValue::Int(_) | ConstValue::Float(_) => Ok(ConstValue::Float(as_f64(&v))),
            _ => bad("a floating-point"),
        },
        Ty::Prim(Primitive::Char | Primitive::WChar) => match v {
            // IDL 4.2 §7.2.6.2.1: a `char` is one ISO Latin-1 octet.
            ConstValue::Char(c) if u32::from(c) <= 0xFF || *ty == Ty::Prim(Primitive::WChar) => {
                Ok(v)
            }
            _ => bad("a character"),
        },
        Ty::Prim(_) => match v {
            ConstValue::Bool(_) => Ok(v),
            _ => bad("a boolean"),
        },
        Ty::String { bound } | Ty::WString { bound } => match v {
            ConstValue::Str(ref s) => {
                let len = u32::try_from(s.chars().count()).unwrap_or(u32::MAX);
                if bound.is_some_and(|b| len > b) {
                    Err(IdlError::at(loc, "string constant longer than its bound"))
                } else {
                    Ok(v)
                }
            }
            _ => bad("a string"),
        },
        Ty::Enum(name) => match v {
            ConstValue::Enum { ref ty, .. } if ty == name => Ok(v),
            _ => bad(&format!("a {name} enumerator")),
        },
        _ => Err(IdlError::at(
            loc,
            "constants must have a primitive, string or enum type",
        )),
    }
}

/// A positive integer constant that fits `u32`: a bound or array dimension.
pub(super) fn positive_u32(
    e: &ConstExpr,
    lookup: &Lookup<'_>,
    what: &str,
) -> Result<u32, IdlError> {
    match eval(e, lookup, None)? {
        ConstValue::Int(v) if v > 0 => u32::try_from(v)
            .map_err(|_| IdlError::at(e.start(), format!("{what} {v} is larger than 4294967295"))),
        ConstValue::Int(v) => Err(IdlError::at(
            e.start(),
            format!("{what} must be positive, found {v}"),
        )),
        _ => Err(IdlError::at(
            e.start(),
            format!("expected an integer {what}"),
        )),
    }
}

/// The IDL spelling of a primitive type.
pub(super) fn prim_name(p: Primitive) -> &'static str {
    match p {
        Primitive::Bool => "boolean",
        Primitive::Char => "char",
        Primitive::WChar => "wchar",
        Primitive::Octet => "octet",
        Primitive::I8 => "int8",
        Primitive::U8 => "uint8",
        Primitive::I16 => "int16",
        Primitive::U16 => "uint16",
        Primitive::I32 => "int32",
        Primitive::U32 => "uint32",
        Primitive::I64 => "int64",
        Primitive::U64 => "uint64",
        Primitive::F32 => "float",
        Primitive::F64 => "double",
        Primitive::F128 => "long double",
    }
}

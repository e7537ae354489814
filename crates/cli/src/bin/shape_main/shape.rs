//! The shape itself: how a published shape moves and grows, how samples are printed, and how
//! the content filter reads a [`ShapeType`]'s fields.
//!
//! Must not: touch the network, clocks or stdout (callers print the strings built here).

use siftdds::filter::{Ast, BoundAst, FieldPath, FieldSource, Value, parse_parameters};
use siftdds::types::ShapeType;

/// Width of the drawing area of the vendors' demos.
pub const DA_WIDTH: i32 = 240;
/// Height of the drawing area of the vendors' demos.
pub const DA_HEIGHT: i32 = 270;

/// xorshift64*: a small deterministic generator (no extra crates), enough to pick a start
/// point and a direction.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (0 is replaced: xorshift must not start at 0).
    pub fn new(seed: u64) -> Self {
        Rng(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }

    /// The next value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u32) -> i32 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        let r = x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32;
        i32::try_from(r % u64::from(n.max(1))).unwrap_or(0)
    }
}

/// Position and velocity of a published shape; bounces inside `DA_WIDTH` × `DA_HEIGHT` like
/// the harness's `moveShape`.
#[derive(Clone, Debug)]
pub struct Motion {
    /// Current x.
    pub x: i32,
    /// Current y.
    pub y: i32,
    xvel: i32,
    yvel: i32,
}

impl Motion {
    /// A random start point and a random velocity of 1 to 5 in each direction.
    pub fn random(rng: &mut Rng) -> Self {
        let x = rng.below(DA_WIDTH.unsigned_abs());
        let y = rng.below(DA_HEIGHT.unsigned_abs());
        let vel = |rng: &mut Rng| (rng.below(5) + 1) * if rng.below(2) == 1 { -1 } else { 1 };
        let xvel = vel(rng);
        let yvel = vel(rng);
        Motion { x, y, xvel, yvel }
    }

    /// One step; reflects off the box edges.
    pub fn step(&mut self) {
        self.x = self.x.saturating_add(self.xvel);
        self.y = self.y.saturating_add(self.yvel);
        if self.x < 0 {
            self.x = 0;
            self.xvel = -self.xvel;
        }
        if self.x > DA_WIDTH {
            self.x = DA_WIDTH;
            self.xvel = -self.xvel;
        }
        if self.y < 0 {
            self.y = 0;
            self.yvel = -self.yvel;
        }
        if self.y > DA_HEIGHT {
            self.y = DA_HEIGHT;
            self.yvel = -self.yvel;
        }
    }
}

/// The shapesize of sample number `n` (0-based): fixed, or with `-z 0` growing 1, 2, 3, ...
/// and with `--size-modulo m` cycling through `1..=m`.
pub fn shapesize(fixed: i32, modulo: u32, n: u64) -> i32 {
    if fixed != 0 {
        return fixed;
    }
    let size = if modulo > 0 {
        n % u64::from(modulo) + 1
    } else {
        n.saturating_add(1)
    };
    i32::try_from(size).unwrap_or(i32::MAX)
}

/// A sample line: `printf("%-10s %-10s %03d %03d [%d]")`, plus ` {b}` with the last byte of a
/// non-empty additional payload, as the harness prints it.
pub fn sample_line(topic: &str, s: &ShapeType) -> String {
    let mut line = format!(
        "{topic:<10} {:<10} {:03} {:03} [{}]",
        s.color, s.x, s.y, s.shapesize
    );
    if let Some(last) = s.additional_payload_size.last() {
        line.push_str(&format!(" {{{last}}}"));
    }
    line
}

/// An instance state line: `printf("%-10s %-10s <STATE>")`.
pub fn state_line(topic: &str, color: &str, state: &str) -> String {
    format!("{topic:<10} {color:<10} {state}")
}

/// The fields a filter may name: `color`, `x`, `y`, `shapesize` and
/// `additional_payload_size[i]`.
pub struct ShapeFields<'a>(pub &'a ShapeType);

impl FieldSource for ShapeFields<'_> {
    fn field(&self, path: &FieldPath) -> Option<Value> {
        let [segment] = path.segments.as_slice() else {
            return None;
        };
        let s = self.0;
        match (segment.name.as_str(), segment.indices.as_slice()) {
            ("color", []) => Some(Value::Str(s.color.clone())),
            ("x", []) => Some(Value::Int(i128::from(s.x))),
            ("y", []) => Some(Value::Int(i128::from(s.y))),
            ("shapesize", []) => Some(Value::Int(i128::from(s.shapesize))),
            ("additional_payload_size", [i]) => {
                let i = usize::try_from(*i).ok()?;
                s.additional_payload_size
                    .get(i)
                    .map(|b| Value::UInt(u128::from(*b)))
            }
            _ => None,
        }
    }
}

/// Records every field name the filter asks for that a `ShapeType` does not have.
struct UnknownFields<'a> {
    known: ShapeFields<'a>,
    unknown: std::cell::RefCell<Vec<String>>,
}

impl FieldSource for UnknownFields<'_> {
    fn field(&self, path: &FieldPath) -> Option<Value> {
        let v = self.known.field(path);
        // An index past the end of the sequence is a legitimate miss, not an unknown field.
        let is_payload = matches!(
            path.segments.as_slice(),
            [s] if s.name == "additional_payload_size" && s.indices.len() == 1
        );
        if v.is_none() && !is_payload {
            let name = path
                .segments
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(".");
            self.unknown.borrow_mut().push(name);
        }
        v
    }
}

/// A compiled subscriber filter.
#[derive(Debug)]
pub struct ShapeFilter {
    // Only the tests evaluate it: the application uses `new` to validate (the core filters).
    #[cfg_attr(not(test), allow(dead_code))]
    bound: BoundAst,
}

impl ShapeFilter {
    /// Parses and binds `expression` with `parameters` (as a peer would receive them), and
    /// rejects what the reference evaluator could not apply to a `ShapeType`: unknown fields
    /// and MATCH patterns that are not regular expressions. The error is a one-line reason.
    pub fn new(expression: &str, parameters: &[String]) -> Result<Self, String> {
        let ast = Ast::parse(expression).map_err(|e| format!("{e}"))?;
        let params = parse_parameters(parameters).map_err(|e| format!("parameter: {e}"))?;
        let bound = ast.bind(&params).map_err(|e| format!("{e}"))?;
        let probe = ShapeType {
            additional_payload_size: vec![0],
            ..ShapeType::default()
        };
        let check = UnknownFields {
            known: ShapeFields(&probe),
            unknown: Default::default(),
        };
        if let Err(e) = bound.evaluate(&check) {
            return Err(e.to_string());
        }
        let unknown = check.unknown.into_inner();
        if let Some(name) = unknown.first() {
            return Err(format!("ShapeType has no field '{name}'"));
        }
        Ok(ShapeFilter { bound })
    }

    /// Whether `sample` passes (the reference the core's compiled filter is checked against).
    #[cfg(test)]
    pub fn accepts(&self, sample: &ShapeType) -> bool {
        self.bound.evaluate(&ShapeFields(sample)).unwrap_or(false)
    }
}

#[cfg(test)]
mod tests;

//! The data directions of I/O, and a container holding one value per direction. Every stage counts and
//! names directions through these (the op mix, the engines' recorders, the series, results, compare and the
//! report), so adding a direction is adding a variant here and what issues and reports it.

use std::ops::{Index, IndexMut};

/// The direction of one I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// A read.
    Read,
    /// A write.
    Write,
    /// A trim (discard, or a hole punched in a file): no workload issues one yet.
    Trim,
}

/// Number of directions: the length of a [`PerDir`].
const COUNT: usize = 3;

impl Direction {
    /// Every direction, in the order of columns, rows and fields (reads first).
    pub const ALL: [Direction; COUNT] = [Direction::Read, Direction::Write, Direction::Trim];

    /// The directions every series CSV and results document has, whether the phase issued them or not:
    /// reads and writes (format 1 has always had both). The others appear where a phase may issue them.
    pub const CORE: [Direction; 2] = [Direction::Read, Direction::Write];

    /// The name in specs, results, column names and reports: `read`, `write`, `trim`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::Trim => "trim",
        }
    }
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One `T` per direction, indexed by [`Direction`]: a fixed-size array, so indexing is an offset, never a
/// lookup or an allocation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PerDir<T>(pub [T; COUNT]);

impl<T> PerDir<T> {
    /// Each direction's value made by `f`.
    pub fn from_fn(mut f: impl FnMut(Direction) -> T) -> PerDir<T> {
        PerDir(Direction::ALL.map(&mut f))
    }

    /// Every direction with its value, in [`Direction::ALL`]'s order.
    pub fn iter(&self) -> impl Iterator<Item = (Direction, &T)> {
        Direction::ALL.into_iter().zip(self.0.iter())
    }

    /// Every direction with its value, mutable.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Direction, &mut T)> {
        Direction::ALL.into_iter().zip(self.0.iter_mut())
    }

    /// Each value made by `f` from this one.
    pub fn map<U>(&self, mut f: impl FnMut(Direction, &T) -> U) -> PerDir<U> {
        PerDir::from_fn(|d| f(d, &self[d]))
    }

    /// Combines each of `other`'s values into this one's with `f`.
    pub fn merge_with<U>(&mut self, other: &PerDir<U>, mut f: impl FnMut(&mut T, &U)) {
        for (d, v) in self.iter_mut() {
            f(v, &other[d]);
        }
    }

    /// Moves each of `other`'s values into this one's with `f`.
    pub fn absorb<U>(&mut self, other: PerDir<U>, mut f: impl FnMut(&mut T, U)) {
        for (v, o) in self.0.iter_mut().zip(other.0) {
            f(v, o);
        }
    }
}

impl<T> Index<Direction> for PerDir<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, d: Direction) -> &T {
        &self.0[d as usize]
    }
}

impl<T> IndexMut<Direction> for PerDir<T> {
    #[inline(always)]
    fn index_mut(&mut self, d: Direction) -> &mut T {
        &mut self.0[d as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_index_their_own_slot_in_order() {
        let mut p = PerDir::from_fn(|d| d.name().len());
        assert_eq!(p.0, [4, 5, 4]);
        p[Direction::Trim] += 1;
        let got: Vec<(&str, usize)> = p.iter().map(|(d, v)| (d.name(), *v)).collect();
        assert_eq!(got, [("read", 4), ("write", 5), ("trim", 5)]);
        let mut q = PerDir([1u64, 2, 3]);
        q.merge_with(&PerDir([10u64, 20, 30]), |a, b| *a += b);
        assert_eq!(q.map(|_, v| v * 2).0, [22, 44, 66]);
        assert_eq!(Direction::CORE, Direction::ALL[..2]);
    }
}

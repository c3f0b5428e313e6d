//! [`InlineVec`]: a vector of small `Copy` items that keeps up to `N` of
//! them in place and moves to the heap only beyond that.
//!
//! The IR's and the backend's instructions hold their operands in it (a
//! source list, the defined values, a constant's components): nearly every
//! instruction has at most four, and a `Vec` each cost an allocation and a
//! free per instruction built, cloned or rewritten, which was a quarter of
//! the compile time (docs/STATUS.md, "Compile speed"). It dereferences to a
//! slice, so reading code is the same as for a `Vec`; equality, hashing and
//! `Debug` are those of the slice, so tables keyed by operands behave as
//! they did with `Vec`s. Entirely safe code: the unused inline slots hold
//! `T::default()`, never uninitialised memory.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

/// Up to `N` items in place, more on the heap (module docs).
#[derive(Clone)]
pub struct InlineVec<T: Copy + Default, const N: usize> {
    repr: Repr<T, N>,
}

#[derive(Clone)]
enum Repr<T, const N: usize> {
    /// `items[..len]` are the contents, the rest `T::default()`.
    Inline {
        len: u8,
        items: [T; N],
    },
    Heap(Vec<T>),
}

impl<T: Copy + Default, const N: usize> InlineVec<T, N> {
    /// At most this many items are kept in place (`N` must fit a `u8`).
    pub const INLINE: usize = {
        assert!(N > 0 && N < 256);
        N
    };

    pub fn new() -> Self {
        let _ = Self::INLINE;
        InlineVec {
            repr: Repr::Inline {
                len: 0,
                items: [T::default(); N],
            },
        }
    }

    pub fn from_slice(items: &[T]) -> Self {
        if items.len() <= N {
            let mut inline = [T::default(); N];
            inline[..items.len()].copy_from_slice(items);
            InlineVec {
                repr: Repr::Inline {
                    len: items.len() as u8,
                    items: inline,
                },
            }
        } else {
            InlineVec {
                repr: Repr::Heap(items.to_vec()),
            }
        }
    }

    pub fn as_slice(&self) -> &[T] {
        match &self.repr {
            Repr::Inline { len, items } => &items[..*len as usize],
            Repr::Heap(v) => v,
        }
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.repr {
            Repr::Inline { len, items } => &mut items[..*len as usize],
            Repr::Heap(v) => v,
        }
    }

    /// The heap form, moving the inline items there (used before growing
    /// past `N`).
    fn spill(&mut self, extra: usize) -> &mut Vec<T> {
        if let Repr::Inline { len, items } = &self.repr {
            let mut v = Vec::with_capacity(*len as usize + extra);
            v.extend_from_slice(&items[..*len as usize]);
            self.repr = Repr::Heap(v);
        }
        match &mut self.repr {
            Repr::Heap(v) => v,
            Repr::Inline { .. } => unreachable!("spilled just above"),
        }
    }

    pub fn push(&mut self, item: T) {
        match &mut self.repr {
            Repr::Inline { len, items } if (*len as usize) < N => {
                items[*len as usize] = item;
                *len += 1;
            }
            Repr::Heap(v) => v.push(item),
            Repr::Inline { .. } => self.spill(1).push(item),
        }
    }

    pub fn pop(&mut self) -> Option<T> {
        match &mut self.repr {
            Repr::Inline { len, items } => {
                if *len == 0 {
                    return None;
                }
                *len -= 1;
                Some(std::mem::take(&mut items[*len as usize]))
            }
            Repr::Heap(v) => v.pop(),
        }
    }

    pub fn clear(&mut self) {
        self.truncate(0);
    }

    pub fn truncate(&mut self, new_len: usize) {
        match &mut self.repr {
            Repr::Inline { len, items } => {
                if new_len < *len as usize {
                    items[new_len..*len as usize].fill(T::default());
                    *len = new_len as u8;
                }
            }
            Repr::Heap(v) => v.truncate(new_len),
        }
    }

    /// Inserts `item` at `index`, shifting the rest up (panics past the end, as `Vec::insert`).
    pub fn insert(&mut self, index: usize, item: T) {
        assert!(index <= self.len(), "InlineVec::insert past the end");
        self.push(item);
        self.as_mut_slice()[index..].rotate_right(1);
    }

    /// Removes the item at `index`, shifting the rest down (panics past the end, as `Vec::remove`).
    pub fn remove(&mut self, index: usize) -> T {
        assert!(index < self.len(), "InlineVec::remove past the end");
        self.as_mut_slice()[index..].rotate_left(1);
        self.pop().expect("not empty: index checked above")
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let slice = self.as_mut_slice();
        let mut kept = 0;
        for i in 0..slice.len() {
            if keep(&slice[i]) {
                slice[kept] = slice[i];
                kept += 1;
            }
        }
        self.truncate(kept);
    }

    pub fn extend_from_slice(&mut self, more: &[T]) {
        match &mut self.repr {
            Repr::Inline { len, items } if *len as usize + more.len() <= N => {
                let l = *len as usize;
                items[l..l + more.len()].copy_from_slice(more);
                *len += more.len() as u8;
            }
            Repr::Heap(v) => v.extend_from_slice(more),
            Repr::Inline { .. } => self.spill(more.len()).extend_from_slice(more),
        }
    }
}

impl<T: Copy + Default, const N: usize> Default for InlineVec<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default, const N: usize> Deref for InlineVec<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + Default, const N: usize> DerefMut for InlineVec<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq for InlineVec<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + Eq, const N: usize> Eq for InlineVec<T, N> {}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq<Vec<T>> for InlineVec<T, N> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq<[T]> for InlineVec<T, N> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: Copy + Default + PartialEq, const N: usize, const K: usize> PartialEq<[T; K]>
    for InlineVec<T, N>
{
    fn eq(&self, other: &[T; K]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

/// The same hash as the slice (and as a `Vec` of the same items).
impl<T: Copy + Default + Hash, const N: usize> Hash for InlineVec<T, N> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl<T: Copy + Default + fmt::Debug, const N: usize> fmt::Debug for InlineVec<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: Copy + Default, const N: usize> From<&[T]> for InlineVec<T, N> {
    fn from(items: &[T]) -> Self {
        Self::from_slice(items)
    }
}

impl<T: Copy + Default, const N: usize> From<&Vec<T>> for InlineVec<T, N> {
    fn from(items: &Vec<T>) -> Self {
        Self::from_slice(items)
    }
}

impl<T: Copy + Default, const N: usize> From<Vec<T>> for InlineVec<T, N> {
    fn from(items: Vec<T>) -> Self {
        if items.len() <= N {
            Self::from_slice(&items)
        } else {
            InlineVec {
                repr: Repr::Heap(items),
            }
        }
    }
}

impl<T: Copy + Default, const N: usize, const K: usize> From<[T; K]> for InlineVec<T, N> {
    fn from(items: [T; K]) -> Self {
        Self::from_slice(&items)
    }
}

impl<T: Copy + Default, const N: usize> From<InlineVec<T, N>> for Vec<T> {
    fn from(items: InlineVec<T, N>) -> Vec<T> {
        match items.repr {
            Repr::Inline { len, items } => items[..len as usize].to_vec(),
            Repr::Heap(v) => v,
        }
    }
}

impl<T: Copy + Default, const N: usize> FromIterator<T> for InlineVec<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut v = Self::new();
        v.extend(iter);
        v
    }
}

impl<T: Copy + Default, const N: usize> Extend<T> for InlineVec<T, N> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl<'a, T: Copy + Default + 'a, const N: usize> Extend<&'a T> for InlineVec<T, N> {
    fn extend<I: IntoIterator<Item = &'a T>>(&mut self, iter: I) {
        for item in iter {
            self.push(*item);
        }
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a InlineVec<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a mut InlineVec<T, N> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_mut_slice().iter_mut()
    }
}

/// The items by value, in order.
pub struct IntoIter<T: Copy + Default, const N: usize> {
    items: InlineVec<T, N>,
    next: usize,
}

impl<T: Copy + Default, const N: usize> Iterator for IntoIter<T, N> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        let item = self.items.get(self.next).copied();
        self.next += usize::from(item.is_some());
        item
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.items.len() - self.next;
        (left, Some(left))
    }
}

impl<T: Copy + Default, const N: usize> ExactSizeIterator for IntoIter<T, N> {}

impl<T: Copy + Default, const N: usize> IntoIterator for InlineVec<T, N> {
    type Item = T;
    type IntoIter = IntoIter<T, N>;
    fn into_iter(self) -> Self::IntoIter {
        IntoIter {
            items: self,
            next: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    type V = InlineVec<u32, 3>;

    /// Every operation agrees with `Vec` on both sides of the inline limit.
    #[test]
    fn behaves_like_vec_across_the_inline_limit() {
        let mut ours = V::new();
        let mut reference: Vec<u32> = Vec::new();
        for i in 0..6u32 {
            ours.push(i * 10);
            reference.push(i * 10);
            assert_eq!(ours, reference);
            assert_eq!(ours.len(), reference.len());
        }
        ours.insert(1, 7);
        reference.insert(1, 7);
        assert_eq!(ours, reference);
        assert_eq!(ours.remove(3), reference.remove(3));
        ours.retain(|&x| x != 40);
        reference.retain(|&x| x != 40);
        assert_eq!(ours, reference);
        ours.truncate(2);
        reference.truncate(2);
        assert_eq!(ours, reference);
        assert_eq!(ours.pop(), reference.pop());
        ours.extend_from_slice(&[1, 2, 3, 4]);
        reference.extend_from_slice(&[1, 2, 3, 4]);
        assert_eq!(ours, reference);
        assert_eq!(Vec::from(ours.clone()), reference);
        assert_eq!(ours.clone().into_iter().collect::<Vec<_>>(), reference);

        let mut small = V::from([5, 6]);
        small.insert(0, 4);
        assert_eq!(small, [4, 5, 6]);
        small.push(7);
        assert_eq!(small, [4, 5, 6, 7]);
        assert_eq!(small.remove(0), 4);
        small.clear();
        assert!(small.is_empty());
        assert_eq!(small.pop(), None);
        assert_eq!(format!("{:?}", V::from([1, 2])), "[1, 2]");
    }

    /// Hash and equality ignore where the items live, and the hash is a `Vec`'s.
    #[test]
    fn hash_and_equality_are_the_slices() {
        let inline = V::from([1, 2]);
        let mut spilled = V::from([1, 2, 3, 4]);
        spilled.truncate(2);
        assert_eq!(inline, spilled);
        let h = rustc_hash::FxBuildHasher;
        assert_eq!(h.hash_one(&inline), h.hash_one(&spilled));
        assert_eq!(h.hash_one(&inline), h.hash_one(vec![1u32, 2]));
        assert_ne!(inline, V::from([1, 2, 0]));
    }
}

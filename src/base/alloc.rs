//! The process's allocator: the system's, with large blocks rounded up to a size class.
//!
//! A 50,000-line tool's text is 2.3 MB, and each version is a new block (its text, and `T'`
//! while it is broken). Typing makes each version a few bytes longer than the one before, so
//! the hole a freed version leaves is a few bytes too small for the next one: glibc takes
//! fresh memory from the top of its heap instead, and the holes add up (issue 14: the heap
//! the server held grew from 83 to 105 MB through the benchmark's edits while the memory in
//! use stayed at 85). Rounded up to a multiple of [`GRANULE`], the versions of a text all
//! ask for the same size and each fits the hole of the one before it.
use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of at least this many bytes are rounded up...
const LARGE: usize = 1 << 20;
/// ...to a multiple of this (at most 6.25 % more than asked for).
const GRANULE: usize = 64 << 10;

/// The size a block of `size` bytes is allocated with.
pub fn rounded(size: usize) -> usize {
    if size < LARGE {
        size
    } else {
        size.checked_next_multiple_of(GRANULE).unwrap_or(size)
    }
}

/// [`System`], large blocks [`rounded`] up (install with `#[global_allocator]`).
pub struct Rounded;

/// The layout a block of layout `l` is allocated with: its size [`rounded`], or `l` itself
/// when the rounded size makes no valid layout with its alignment. The same for a block on
/// allocation, reallocation and deallocation.
fn layout(l: Layout) -> Layout {
    Layout::from_size_align(rounded(l.size()), l.align()).unwrap_or(l)
}

// SAFETY: every call is forwarded to `System` with the block's layout mapped by `layout`, the
// same on allocation, deallocation and reallocation, so `System` sees one consistent layout
// per block; a reallocation within the same mapped size keeps the block (it is large enough).
unsafe impl GlobalAlloc for Rounded {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        unsafe { System.alloc(layout(l)) }
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        unsafe { System.alloc_zeroed(layout(l)) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, l: Layout) {
        unsafe { System.dealloc(ptr, layout(l)) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        let old = layout(l);
        // `new_size` with `l`'s alignment is a valid layout (the caller's contract).
        let Ok(new) = Layout::from_size_align(new_size, l.align()) else {
            return std::ptr::null_mut();
        };
        let new = layout(new);
        if old.size() == new.size() {
            return ptr;
        }
        unsafe { System.realloc(ptr, old, new.size()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_sizes_round_up_to_the_granule_and_small_ones_stay() {
        assert_eq!(rounded(0), 0);
        assert_eq!(rounded(LARGE - 1), LARGE - 1);
        assert_eq!(rounded(LARGE), LARGE);
        assert_eq!(rounded(LARGE + 1), LARGE + GRANULE);
        // Two versions of a 2.3 MB text a few bytes apart ask for the same block.
        assert_eq!(rounded(2_300_000), rounded(2_300_017));
        assert_eq!(rounded(2_300_000) % GRANULE, 0);
        assert_eq!(rounded(usize::MAX - 3), usize::MAX - 3);
        // Beyond what a layout may hold: the layout as asked.
        let near = Layout::from_size_align(isize::MAX as usize - 5, 1).unwrap();
        assert_eq!(layout(near), near);
    }

    #[test]
    fn blocks_grow_and_shrink_across_the_rounding() {
        let a = Rounded;
        unsafe {
            let l = Layout::from_size_align(LARGE + 10, 8).unwrap();
            let p = a.alloc(l);
            assert!(!p.is_null());
            p.write_bytes(7, l.size());
            // Within the same rounded size: the same block.
            let q = a.realloc(p, l, LARGE + 20);
            assert_eq!(p, q);
            let l = Layout::from_size_align(LARGE + 20, 8).unwrap();
            // Across it: moved, the bytes kept.
            let r = a.realloc(q, l, 3 * LARGE);
            assert_eq!(*r.add(LARGE + 9), 7);
            let l = Layout::from_size_align(3 * LARGE, 8).unwrap();
            let s = a.realloc(r, l, 100);
            assert_eq!(*s.add(99), 7);
            a.dealloc(s, Layout::from_size_align(100, 8).unwrap());
        }
    }
}

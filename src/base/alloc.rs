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
/// ...to a multiple of this (at most 6 % more than asked for).
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

fn layout(l: Layout) -> Layout {
    // SAFETY: `rounded` keeps the size a multiple of the alignment (it adds a multiple of
    // 64 KiB to a size that is one, or keeps it) and does not overflow `isize` for a size
    // that did not (it returns `size` when rounding up would overflow).
    unsafe { Layout::from_size_align_unchecked(rounded(l.size()), l.align()) }
}

// SAFETY: every call is forwarded to `System` with the layout rounded the same way for a block
// on allocation, deallocation and reallocation, so `System` sees a consistent layout for each.
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
        let (old, new) = (rounded(l.size()), rounded(new_size));
        if old == new {
            return ptr;
        }
        unsafe { System.realloc(ptr, layout(l), new) }
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

internal import CFFmpeg
import Foundation

/// How the process's C allocator keeps the memory that frames and threads free.
public enum FrameMemory {
    /// Makes the C allocator hand freed frame memory back to the system and keep few heaps.
    ///
    /// - **Frame-sized blocks (1 MiB and more) come straight from the system** and go back
    ///   when freed. By default glibc raises that threshold the first time such a block is
    ///   freed, and from then on frames come from its heaps, which keep freed memory. A
    ///   render that joins several clips opens a decoder for each while the previous one's
    ///   frames are still queued, so the heaps grew at every joint: a 60 s render of six
    ///   joined 10 s clips peaked at 1.1 to 1.15x the memory of one clip. With the
    ///   threshold fixed, its peak is that of its busiest moment (1.02x). Pools keep frames
    ///   in the steady state, so the system is asked for memory only when a pool grows.
    /// - **One heap per core.** glibc gives threads up to eight heaps (arenas) per core,
    ///   and a heap keeps what its threads freed for them alone. A render runs many threads
    ///   (the decoders', the encoder's, the reader's and writer's, the cooperative pool's),
    ///   and a smaller block, such as a 1080p frame's chroma plane (half a megabyte), freed
    ///   in one heap cannot serve a request made in another: a 1080p GPS overlay peaked
    ///   9 MB higher (3%), at the same speed.
    ///
    /// Process-wide: the `reel` command calls it first thing; a library does not change
    /// its host's allocator on its own. Does nothing where the allocator is not glibc's.
    public static func configureAllocator() {
        _ = reel_set_mmap_threshold(1 << 20)
        _ = reel_set_arena_max(Int32(clamping: max(2, ProcessInfo.processInfo.activeProcessorCount)))
    }

    /// Gives the memory the C allocator's heaps keep free back to the system (glibc's
    /// `malloc_trim`), for a process that goes on running after letting go of much: a
    /// preview server whose last page closed. A heap hands back on its own only the free
    /// memory at its top; what was freed below a block still in use stays with the process
    /// until then. Returns whether any memory went back; false where the allocator is not
    /// glibc's.
    @discardableResult
    public static func returnFreedMemory() -> Bool {
        reel_malloc_trim() == 1
    }
}

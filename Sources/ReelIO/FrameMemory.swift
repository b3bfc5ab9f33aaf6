internal import CFFmpeg

/// How the process's C allocator treats frame-sized blocks.
public enum FrameMemory {
    /// Makes the C allocator serve blocks of 1 MiB and more (decoded frames, encoder
    /// buffers) straight from the system and give them back when freed.
    ///
    /// By default glibc raises that threshold the first time such a block is freed, and
    /// from then on frames come from its heaps, which keep freed memory. A render that
    /// joins several clips opens a decoder for each while the previous one's frames are
    /// still queued, so the heaps grow at every joint: a 60 s render of six joined 10 s
    /// clips peaked at 1.1 to 1.15x the memory of one clip. With the threshold fixed, its
    /// peak is that of its busiest moment (1.02x). Pools keep frames in the steady state,
    /// so the system is asked for memory only when a pool grows.
    ///
    /// Process-wide: the `reel` command calls it first thing; a library does not change
    /// its host's allocator on its own. Does nothing where the allocator is not glibc's.
    public static func returnFreedFramesToTheSystem() {
        _ = reel_set_mmap_threshold(1 << 20)
    }
}

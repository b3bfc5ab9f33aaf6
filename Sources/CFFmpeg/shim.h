#ifndef REEL_CFFMPEG_SHIM_H
#define REEL_CFFMPEG_SHIM_H

// FFmpeg's public headers, and inline functions standing in for the macros Swift
// cannot import (function-like macros, compound literals, casts of constants).
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/display.h>
#include <libavutil/dict.h>
#include <libavutil/pixdesc.h>
#include <libavutil/channel_layout.h>
#include <libavutil/mathematics.h>
#include <libavutil/hash.h>
#include <libavutil/cpu.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <errno.h>

/// `AVERROR(e)`: a POSIX errno as an FFmpeg error code.
static inline int reel_averror(int e) { return AVERROR(e); }
/// `AVERROR_EOF`.
static inline int reel_averror_eof(void) { return AVERROR_EOF; }
/// `AVERROR(EAGAIN)`.
static inline int reel_averror_eagain(void) { return AVERROR(EAGAIN); }
/// `AVERROR_INVALIDDATA`.
static inline int reel_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
/// `AVERROR_DECODER_NOT_FOUND`.
static inline int reel_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
/// `AV_NOPTS_VALUE`: "no timestamp".
static inline int64_t reel_nopts_value(void) { return AV_NOPTS_VALUE; }
/// `AV_TIME_BASE`.
static inline int reel_time_base(void) { return AV_TIME_BASE; }
/// Whether FFmpeg finds AVX-512 on this processor (`av_get_cpu_flags`, `AV_CPU_FLAG_AVX512`).
static inline int reel_cpu_has_avx512(void) { return (av_get_cpu_flags() & AV_CPU_FLAG_AVX512) != 0; }
/// `av_err2str(e)` without the compound literal: writes into `buf`, returns `buf`.
static inline const char *reel_err2str(int e, char *buf, size_t size) {
    return av_make_error_string(buf, size, e);
}
/// `MKTAG(a,b,c,d)`.
static inline unsigned int reel_mktag(char a, char b, char c, char d) { return MKTAG(a, b, c, d); }

#if defined(__GLIBC__)
#include <malloc.h>
/// glibc: blocks of `bytes` and more come from mmap and go back on free (a fixed threshold,
/// no longer raised when such a block is freed). Returns mallopt's result (1 on success).
static inline int reel_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
/// glibc: at most `count` heaps (arenas) shared by all threads. Returns mallopt's result.
static inline int reel_set_arena_max(int count) { return mallopt(M_ARENA_MAX, count); }
/// glibc: gives the free memory of every heap back to the system (`malloc_trim(0)`).
/// Returns 1 when some was given back.
static inline int reel_malloc_trim(void) { return malloc_trim(0); }
#else
static inline int reel_set_mmap_threshold(int bytes) { (void)bytes; return 0; }
static inline int reel_set_arena_max(int count) { (void)count; return 0; }
static inline int reel_malloc_trim(void) { return 0; }
#endif

#endif

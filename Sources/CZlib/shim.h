#ifndef REEL_CZLIB_SHIM_H
#define REEL_CZLIB_SHIM_H

// The system zlib, and inline functions standing in for the init macros Swift cannot
// import (they pass the library version and the stream's size).
#include <zlib.h>

static inline int reel_deflate_init(z_streamp stream, int level, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, MAX_WBITS, 8, strategy);
}
static inline int reel_inflate_init(z_streamp stream) { return inflateInit(stream); }

#endif

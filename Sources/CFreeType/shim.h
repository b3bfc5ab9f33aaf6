#ifndef REEL_CFREETYPE_SHIM_H
#define REEL_CFREETYPE_SHIM_H

// FreeType's public API, and inline functions standing in for the macros Swift cannot
// import (the load flags are built from casts and shifts).
#include <ft2build.h>
#include FT_FREETYPE_H

static inline FT_Int32 reel_ft_load_render(void) { return FT_LOAD_RENDER; }
static inline FT_Int32 reel_ft_load_target_normal(void) { return FT_LOAD_TARGET_NORMAL; }
static inline FT_Int32 reel_ft_load_target_light(void) { return FT_LOAD_TARGET_LIGHT; }
static inline FT_Int32 reel_ft_load_no_bitmap(void) { return FT_LOAD_NO_BITMAP; }
static inline FT_Encoding reel_ft_encoding_unicode(void) { return FT_ENCODING_UNICODE; }
static inline int reel_ft_pixel_mode_gray(void) { return FT_PIXEL_MODE_GRAY; }
static inline int reel_ft_has_kerning(FT_Face face) { return FT_HAS_KERNING(face) ? 1 : 0; }

#endif

#ifndef REEL_CTURBOJPEG_SHIM_H
#define REEL_CTURBOJPEG_SHIM_H

// libjpeg-turbo's TurboJPEG API: JPEG stills from packed RGB or gray pixels.
#include <turbojpeg.h>

#endif

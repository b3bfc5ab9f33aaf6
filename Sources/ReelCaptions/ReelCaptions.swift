@_exported import ReelCore

// ReelCaptions: caption file formats (iTT, SCC, SRT, WebVTT), bytes in, `Caption`s out, and
// back. Pure Swift, no FFmpeg; caption tracks inside media files are ReelIO's.

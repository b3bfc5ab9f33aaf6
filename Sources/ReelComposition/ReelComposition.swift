/// ReelComposition: the composition layer, with no FFmpeg and no files.
///
/// - Model: ``Composition`` (tracks of segments referring to
///   sources by ``SourceTrackReference``), ``VideoComposition`` with its instructions,
///   ``VideoCompositionLayerInstruction`` ramps and ``VideoComposition/validate(for:timeRange:)``.
/// - Compositor API: ``VideoCompositing`` (or ``AsyncVideoCompositing``),
///   ``AsynchronousVideoCompositionRequest``, ``VideoCompositionRenderContext``.
/// - Rendering: ``RenderEngine`` pulls frames and metadata through ``VideoFrameSource`` and
///   ``TimedMetadataSource`` (in memory here, file readers elsewhere) and delivers
///   ``RenderedFrames``; ``StandardVideoCompositor`` is the built-in compositor.
@_exported import ReelCore

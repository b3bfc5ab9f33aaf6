import ReelComposition
import ReelCore

/// Renders a whole composition over in-memory sources through the real render engine, and
/// turns the frames into golden text: the end-to-end test of a compositor with no files.
///
/// ```swift
/// let frames = try await InMemoryRender.frames(composition: composition, videoComposition: video, sources: clip)
/// try Golden(packageDirectory: "Fixtures/goldens").verifyLines(InMemoryRender.hashLines(frames), named: "dashboard")
/// ```
public enum InMemoryRender {
    /// Every output frame, in time order. Uses `compositor` when given, else the video
    /// composition's own (or the built-in one). Diagnostics (a second finish, a dropped
    /// group) are collected into `diagnostics` when given.
    public static func frames(
        composition: Composition, videoComposition: VideoComposition, sources: any RenderSourceProvider,
        compositor: (any VideoCompositing)? = nil,
        options: RenderEngine.Options = RenderEngine.Options(diagnostics: { _ in })
    ) async throws(ReelError) -> [RenderedFrame] {
        let engine = RenderEngine(composition: composition, videoComposition: videoComposition, sources: sources, options: options)
        return try await engine.renderAll(compositor: compositor)
    }

    /// One `pts duration hash` line per frame (see ``FrameHash/line(presentationTime:duration:frame:)``).
    public static func hashLines(_ frames: [RenderedFrame]) -> [String] {
        frames.map { FrameHash.line(presentationTime: $0.time, duration: $0.duration, frame: $0.pixelBuffer) }
    }

    /// Renders and returns the hash lines.
    public static func hashLines(
        composition: Composition, videoComposition: VideoComposition, sources: any RenderSourceProvider,
        compositor: (any VideoCompositing)? = nil
    ) async throws(ReelError) -> [String] {
        hashLines(try await frames(composition: composition, videoComposition: videoComposition, sources: sources, compositor: compositor))
    }
}

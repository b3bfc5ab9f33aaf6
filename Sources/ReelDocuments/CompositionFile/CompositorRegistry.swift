import Foundation
import Reel

/// Compositors by name: what a composition file's `"compositor": {"name": ...}` refers to.
///
/// The built-in `standard` compositor is always there. A program registers its own
/// (`registry.register(name:summary:make:)`) and hands the registry to the render; the
/// `reel` CLI built with `ReelCLI.main(registering:)` does this for a user's package (see
/// docs/plugins.md).
public struct CompositorRegistry: Sendable {
    /// Makes a compositor for one composition from its configuration (parameters, the
    /// composition, the timed metadata it may read).
    public typealias Factory = @Sendable (CompositorConfiguration) throws(ReelError) -> any VideoCompositing

    /// One compositor a registry knows.
    public struct Registration: Sendable {
        public var name: String
        /// One line saying what it draws, for `reel render --list-compositors`.
        public var summary: String
        public var make: Factory

        public init(name: String, summary: String, make: @escaping Factory) {
            self.name = name
            self.summary = summary
            self.make = make
        }
    }

    private var table: [String: Registration] = [:]

    /// A registry with the built-in compositors: `standard` and `captions`.
    public init() {
        register(name: "standard", summary: "the built-in compositor: layers with opacity, transform and crop ramps over a background colour") {
            config throws(ReelError) in
            let formats = try config.parameters.decode(StandardParameters.self)
            return StandardVideoCompositor(pixelFormats: formats.pixelFormats.map { $0.isEmpty ? [.yuv420p, .bgra] : $0 } ?? [.yuv420p, .bgra])
        }
        register(name: "captions", summary: "standard's picture with the captions of the instructions' requiredSourceCaptionTrackIDs burnt in") {
            config throws(ReelError) in
            let formats = try config.parameters.decode(StandardParameters.self)
            return AsyncVideoCompositorAdapter(try CaptionBurnInCompositor(pixelFormats: formats.pixelFormats ?? []))
        }
    }

    /// `standard`'s and `captions`' parameters: optionally the render formats they may use.
    struct StandardParameters: Decodable {
        var pixelFormats: [PixelFormat]?
    }

    /// Adds (or replaces) the compositor called `name`.
    public mutating func register(name: String, summary: String = "", make: @escaping Factory) {
        table[name] = Registration(name: name, summary: summary, make: make)
    }

    /// Adds (or replaces) a registration.
    public mutating func register(_ registration: Registration) {
        table[registration.name] = registration
    }

    /// The registered names, sorted.
    public var names: [String] { table.keys.sorted() }

    /// The registrations, sorted by name.
    public var registrations: [Registration] { names.compactMap { table[$0] } }

    /// The registration called `name`, if any.
    public func registration(named name: String) -> Registration? { table[name] }

    /// Makes the compositor `configuration.name`.
    ///
    /// - Throws: `invalidComposition` with field `compositor.name` when no compositor has
    ///   that name, or whatever the factory throws about its parameters.
    public func makeCompositor(_ configuration: CompositorConfiguration) throws(ReelError) -> any VideoCompositing {
        guard let registration = table[configuration.name] else {
            throw ReelError(
                .invalidComposition,
                "no compositor named \"\(configuration.name)\" (known: \(names.joined(separator: ", ")))",
                field: "compositor.name")
        }
        return try registration.make(configuration)
    }
}

/// Everything a compositor factory gets: its name and parameters from the composition file,
/// the composition it will render, and the whole timed metadata of the tracks that may
/// reach it.
public struct CompositorConfiguration: Sendable {
    /// The registry name.
    public var name: String
    /// The file's `compositor.parameters`; an empty object when absent.
    public var parameters: JSONValue
    /// The composition to render.
    public var composition: Composition
    /// The output size in pixels.
    public var renderSize: Size
    /// For each metadata track in `sourceSampleDataTrackIDs`, all its groups in composition
    /// time, in order: what a compositor needs to look beyond the current group (to
    /// interpolate between fixes, or to draw the route so far). A request still gives the
    /// current group (`sourceTimedMetadata(byTrackID:)`), which is what decides whether a
    /// track is delivered at a time.
    public var timedMetadata: [Int32: [TimedMetadataGroup]]
    /// The folder of the composition file, to resolve paths in the parameters (fonts, images).
    public var baseDirectory: URL?

    public init(
        name: String, parameters: JSONValue = .object([:]), composition: Composition = Composition(),
        renderSize: Size = .zero, timedMetadata: [Int32: [TimedMetadataGroup]] = [:], baseDirectory: URL? = nil
    ) {
        self.name = name
        self.parameters = parameters
        self.composition = composition
        self.renderSize = renderSize
        self.timedMetadata = timedMetadata
        self.baseDirectory = baseDirectory
    }
}

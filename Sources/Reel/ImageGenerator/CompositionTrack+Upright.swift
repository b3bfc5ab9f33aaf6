import ReelComposition
import ReelCore

extension CompositionTrack {
    /// The preferred transform (display matrix) moved so that the picture as shown starts
    /// at (0, 0): the layer transform that draws the track upright, as AVFoundation's
    /// `videoComposition(withPropertiesOf:)` gives each layer.
    public var uprightTransform: Transform2D {
        let shown = Rect(x: 0, y: 0, width: naturalSize.width, height: naturalSize.height).applying(preferredTransform)
        return preferredTransform.concatenating(Transform2D(translationX: -shown.minX, y: -shown.minY))
    }

    /// The size of the picture as shown: the natural size turned by the preferred transform.
    public var uprightSize: Size {
        let shown = Rect(x: 0, y: 0, width: naturalSize.width, height: naturalSize.height).applying(preferredTransform)
        return Size(width: shown.width, height: shown.height)
    }
}

extension VideoComposition {
    /// Draws the composition's video upright: when its first enabled video track has a
    /// display matrix, the render size becomes that track's upright size and each standard
    /// instruction's layers get their track's ``CompositionTrack/uprightTransform``.
    public mutating func turnUpright(for composition: Composition) {
        let tracks = composition.tracks(withMediaType: .video).filter(\.isEnabled)
        guard let first = tracks.first, !first.preferredTransform.isIdentity else { return }
        renderSize = first.uprightSize
        instructions = instructions.map { instruction in
            guard var standard = instruction as? VideoCompositionInstruction else { return instruction }
            standard.layerInstructions = standard.layerInstructions.map { layer in
                var turned = layer
                turned.setTransform(tracks.first { $0.trackID == layer.trackID }?.uprightTransform ?? .identity, at: .zero)
                return turned
            }
            return standard
        }
    }
}

extension Composition {
    /// How the picture of the composition's one enabled video track is shown, when its
    /// preferred transform (display matrix) turns or mirrors it by whole pixels; nil when
    /// there is not exactly one enabled video track or the transform turns by another angle.
    public var videoOrientation: PixelOrientation? {
        let tracks = tracks(withMediaType: .video).filter(\.isEnabled)
        guard tracks.count == 1, let track = tracks.first else { return nil }
        return PixelOrientation(track.preferredTransform)
    }
}

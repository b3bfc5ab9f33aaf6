import ReelComposition
import ReelCore

extension Composition {
    /// The display matrix an export of the composition's video, as stored, keeps: the
    /// preferred transform its enabled video tracks share; the identity when they differ
    /// (their pictures are then shown as stored).
    var sharedVideoTransform: Transform2D {
        let transforms = Set(tracks(withMediaType: .video).filter { $0.isEnabled && !$0.isEmpty }.map(\.preferredTransform))
        return transforms.count == 1 ? transforms.first ?? .identity : .identity
    }
}

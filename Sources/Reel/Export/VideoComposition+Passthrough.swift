import ReelComposition
import ReelCore

extension VideoComposition {
    /// The same video composition with every standard instruction that only shows one
    /// track as it is (one layer, opaque, no transform or crop, the track's natural size at
    /// render size, no metadata asked for) turned into a passthrough instruction of that
    /// track: the engine hands the decoded frame on without a compositor pass (what
    /// AVFoundation does for such instructions). Only for the built-in compositor; a custom
    /// one sees every request.
    func passingThroughPlainSpans(of composition: Composition) -> VideoComposition {
        guard customVideoCompositor == nil, renderScale == 1 else { return self }
        let size = renderPixelSize
        var m = VideoComposition(self)
        m.instructions = instructions.map { instruction in
            guard var standard = instruction as? VideoCompositionInstruction,
                standard.passthroughTrackID == nil, standard.requiredSourceSampleDataTrackIDs.isEmpty,
                standard.backgroundColor == nil, standard.layerInstructions.count == 1,
                let layer = standard.layerInstructions.first,
                layer.opacityRamps.allSatisfy({ $0.start == 1 && $0.end == 1 }),
                layer.transformRamps.allSatisfy({ $0.start.isIdentity && $0.end.isIdentity }),
                layer.cropRectangleRamps.isEmpty,
                let track = composition.track(withTrackID: layer.trackID), track.mediaType == .video,
                Int(track.naturalSize.width) == size.width, Int(track.naturalSize.height) == size.height
            else { return instruction }
            standard.passthroughTrackID = layer.trackID
            return standard
        }
        return m
    }
}

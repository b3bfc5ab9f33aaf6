import Foundation
import GPSDashboard
import Reel
import ReelDocuments
import ReelTestSupport
import Testing

@Suite("CompositorRegistry")
struct CompositorRegistryTests {
    @Test func standardIsBuiltIn() throws {
        let registry = CompositorRegistry()
        #expect(registry.names == ["captions", "standard"])
        let compositor = try registry.makeCompositor(CompositorConfiguration(name: "standard"))
        #expect(compositor is StandardVideoCompositor)
    }

    @Test(.requires(.dejaVuFont))
    func captionsIsBuiltInAndTakesPixelFormats() throws {
        let registry = CompositorRegistry()
        let compositor = try registry.makeCompositor(
            CompositorConfiguration(name: "captions", parameters: .object(["pixelFormats": .array([.string("bgra")])])))
        #expect(compositor.requiredPixelBufferAttributesForRenderContext.pixelFormatType == [.bgra])
    }

    @Test func unknownNamesListTheKnownOnes() {
        var registry = CompositorRegistry()
        registry.register(GPSDashboardCompositor.registration)
        do {
            _ = try registry.makeCompositor(CompositorConfiguration(name: "gps-dashbaord"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidComposition)
            #expect(error.field == "compositor.name")
            #expect(error.message == "no compositor named \"gps-dashbaord\" (known: captions, gps-dashboard, standard)")
        }
    }

    @Test func registeredFactoriesGetTheirParameters() throws {
        var registry = CompositorRegistry()
        registry.register(name: "probe", summary: "test") { config throws(ReelError) in
            guard config.parameters["level"]?.doubleValue == 3 else {
                throw ReelError(.invalidComposition, "level must be 3", field: "compositor.parameters.level")
            }
            return StandardVideoCompositor()
        }
        _ = try registry.makeCompositor(CompositorConfiguration(name: "probe", parameters: .object(["level": .number(3)])))
        expectReelError(.invalidComposition) {
            try registry.makeCompositor(CompositorConfiguration(name: "probe", parameters: .object(["level": .number(4)])))
        }
    }

    @Test func parameterErrorsNameTheParameter() {
        let parameters = JSONValue.object(["units": .string("furlongs")])
        do {
            _ = try parameters.decode(DashboardParameters.self)
            Issue.record("expected an error")
        } catch {
            #expect(error.field == "compositor.parameters.units", "\(error)")
        }
    }
}

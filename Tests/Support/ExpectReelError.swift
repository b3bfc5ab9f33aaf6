import ReelCore
import Testing

/// Expects `body` to throw a ``ReelError`` with `code`, and returns it for more checks
/// (its message, path, field, time); nil, with a recorded issue, when it does not.
@discardableResult
public func expectReelError<T>(
    _ code: ReelError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) -> ReelError? {
    do {
        _ = try body()
        Issue.record("expected a ReelError .\(code), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ReelError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a ReelError .\(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// ``expectReelError(_:sourceLocation:_:)`` for async work.
@discardableResult
public func expectReelError<T>(
    _ code: ReelError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> ReelError? {
    do {
        _ = try await body()
        Issue.record("expected a ReelError .\(code), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ReelError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a ReelError .\(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

import Foundation

/// Where the default warning loggers (`RenderDiagnostic.standardErrorLogger`,
/// `MetadataReadWarning.standardErrorLogger`) write their lines: standard error, unless the
/// task that creates a logger binds another destination (``current``). A logger keeps the
/// destination it was created with, so a warning raised later on another thread still goes
/// there. `reel`'s commands bind it to their own standard error, which a command run in
/// process collects.
public struct WarningOutput: Sendable {
    /// Writes one line (with its newline).
    public let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    /// The process's standard error.
    public static let standardError = WarningOutput { line in FileHandle.standardError.write(Data(line.utf8)) }

    /// Where warnings go for loggers created on this task.
    @TaskLocal public static var current: WarningOutput = .standardError
}

// Run by scripts/check-ffmpeg-free: arguments are the `swift package describe --type json`
// output and the targets that must stay free of FFmpeg.
import Foundation

let forbidden: Set<String> = ["CFFmpeg", "ReelIO", "Reel"]
let arguments = CommandLine.arguments.dropFirst()
guard let descriptionPath = arguments.first,
    let data = FileManager.default.contents(atPath: descriptionPath),
    let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
    let targets = json["targets"] as? [[String: Any]]
else {
    print("check-ffmpeg-free: cannot read the package description")
    exit(2)
}
var dependencies: [String: [String]] = [:]
var paths: [String: String] = [:]
for target in targets {
    guard let name = target["name"] as? String else { continue }
    dependencies[name] = target["target_dependencies"] as? [String] ?? []
    paths[name] = target["path"] as? String
}

var failed = false
for root in arguments.dropFirst() {
    guard dependencies[root] != nil else {
        print("check-ffmpeg-free: no target \(root)")
        failed = true
        continue
    }
    // Depth-first walk, remembering how each target was reached.
    var via: [String: [String]] = [root: [root]]
    var stack = [root]
    while let target = stack.popLast() {
        for dependency in dependencies[target] ?? [] where via[dependency] == nil {
            via[dependency] = via[target]! + [dependency]
            stack.append(dependency)
        }
    }
    for bad in forbidden where via[bad] != nil {
        print("check-ffmpeg-free: \(root) depends on \(bad): \(via[bad]!.joined(separator: " -> "))")
        failed = true
    }
    for target in via.keys.sorted() {
        guard let path = paths[target], let files = FileManager.default.enumerator(atPath: path) else { continue }
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = (try? String(contentsOfFile: "\(path)/\(file)", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count else { continue }
                // `import CFFmpeg`, `internal import CFFmpeg`, `import struct CFFmpeg.AVFrame`.
                let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
                let name = kinds.contains(words[i + 1]) && i + 2 < words.count ? words[i + 2] : words[i + 1]
                let module = String(name.split(separator: ".").first ?? "")
                if forbidden.contains(module) {
                    print("check-ffmpeg-free: \(path)/\(file) (in \(root)'s closure) imports \(module)")
                    failed = true
                }
            }
        }
    }
    if !failed { print("check-ffmpeg-free: \(root) -> \(via.keys.sorted().joined(separator: ", ")): no FFmpeg") }
}
exit(failed ? 1 : 0)

import Foundation
import Synchronization
import Testing
import ReelCore
@testable import ReelIO

@Suite("AssetReader sample queue")
struct AssetReaderSampleQueueTests {
    final class Token: Sendable {}

    @Test("a taken item is not kept alive by the queue")
    func releasesTakenItems() throws {
        let queue = SampleQueue<Token>(capacity: 4)
        weak var first: Token?
        do {
            let token = Token()
            first = token
            #expect(queue.push(token))
            #expect(queue.push(Token()))
        }
        _ = try queue.nextBlocking()
        #expect(first == nil)
    }

    @Test("items come out in order, then the end or the error")
    func orderAndEnd() async throws {
        let queue = SampleQueue<Int>(capacity: 2)
        let producer = Thread {
            for i in 0..<50 { _ = queue.push(i) }
            queue.finish(error: ReelError(.corruptData, "bad packet"))
        }
        producer.start()
        var got: [Int] = []
        await #expect { while let i = try await queue.next() { got.append(i) } } throws: {
            ($0 as? ReelError)?.code == .corruptData
        }
        #expect(got == Array(0..<50))
    }

    @Test("cancel wakes a blocked producer and stops it")
    func cancelStopsProducer() {
        let queue = SampleQueue<Int>(capacity: 1)
        #expect(queue.push(1))
        let done = ThreadLatch()
        let result = Mutex<Bool?>(nil)
        let producer = Thread {
            result.withLock { $0 = queue.push(2) }
            done.open()
        }
        producer.start()
        queue.cancel()
        done.wait()
        #expect(result.withLock { $0 } == false)
    }
}

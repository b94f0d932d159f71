import { SECOND_LOOK_MS } from '../../common/sending/sender'

/**
 * "Gone" is never concluded from one read: a node behind a load balancer may answer from a
 * backend that lags, or is mid-reorg. A verdict is accepted when it was also given at least
 * SECOND_LOOK_MS earlier, with no other verdict in between. Kept in memory: after a restart the
 * two looks simply start again (which only delays the verdict).
 */
export class SecondLook {
    private readonly firstSeen = new Map<string, number>()

    constructor(private readonly gapMs = SECOND_LOOK_MS) {}

    /** Records the verdict for `key` and says whether it now stands (seen at least gapMs ago too). */
    agrees(key: string, now = Date.now()): boolean {
        const first = this.firstSeen.get(key)
        if (first === undefined) {
            this.firstSeen.set(key, now)
            return false
        }
        if (now - first < this.gapMs) return false
        this.firstSeen.delete(key)
        return true
    }

    /** Another verdict came: the next one starts over. */
    forget(key: string): void {
        this.firstSeen.delete(key)
    }
}

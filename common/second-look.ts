/**
 * The second look: "gone" or "cannot be" is never concluded from one read. A node behind a load
 * balancer may answer from a backend that lags, or is mid-reorg, so a verdict that would fail,
 * undo or replace something stands only when it was also given at least SECOND_LOOK_MS earlier,
 * with no other verdict in between. The rule is SecondLook's, whoever asks; what differs is where
 * the first sighting of a verdict is kept (FirstSightings):
 *
 * - in the process (MemorySightings): the bridge engine's verdicts about a swap (its deposit gone,
 *   a vault short, nothing to gather, a pool trade refused). A restart forgets them, which only
 *   delays the verdict: the two looks start again.
 * - on a stored transaction's row (TxTable.cannotLand, its suspect_since): the durable sender's
 *   verdict that a transaction can never land. Any replica following it may make either look, and
 *   Postgres's clock times both.
 *
 * The durable sender's check of a refusal at a transaction's first hand-out takes its two looks
 * within one call instead (common/sending/sender.ts, refusalStands): the caller waits
 * SECOND_LOOK_MS between them rather than come back.
 */

/** How long a verdict must stand before it is acted on (two looks, never one). */
export const SECOND_LOOK_MS = 10_000

/** Where the first sighting of each verdict is kept. */
export interface FirstSightings<K> {
    /** Notes a sighting of the verdict on `key`, keeping the first; how long ago (ms) that first one was. */
    sight(key: K): Promise<number>
    /** Another verdict came: the next sighting is the first again. */
    forget(key: K): Promise<void>
    /** The verdict stood and is acted on now. */
    stood(key: K): Promise<void>
}

export class SecondLook<K = string> {
    constructor(private readonly sightings: FirstSightings<K>, private readonly gapMs = SECOND_LOOK_MS) {}

    /** Records the verdict for `key` and says whether it now stands (seen at least gapMs ago too). */
    async agrees(key: K): Promise<boolean> {
        if ((await this.sightings.sight(key)) < this.gapMs) return false
        await this.sightings.stood(key)
        return true
    }

    /** Another verdict came: the next one starts over. */
    forget(key: K): Promise<void> {
        return this.sightings.forget(key)
    }
}

/** First sightings in the process. One that stood is dropped: it is acted on at once, and nothing asks again. */
export class MemorySightings implements FirstSightings<string> {
    private readonly first = new Map<string, number>()

    constructor(private readonly now: () => number = Date.now) {}

    async sight(key: string): Promise<number> {
        const now = this.now()
        const first = this.first.get(key)
        if (first === undefined) {
            this.first.set(key, now)
            return 0
        }
        return now - first
    }

    async forget(key: string): Promise<void> {
        this.first.delete(key)
    }

    async stood(key: string): Promise<void> {
        this.first.delete(key)
    }
}

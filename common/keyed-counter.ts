/**
 * What each key (a client) holds of a shared resource, up to a cap per key: one client's
 * verifications waiting or compiling, its open sockets. A key is forgotten once it holds nothing,
 * so the map grows with the clients holding something, not with every client ever seen.
 */
export class KeyedCounter {
    private readonly counts = new Map<string, number>()

    constructor(readonly cap: number) {
        if (!(cap >= 1)) throw new Error(`bad per-key cap ${cap}`)
    }

    /** Whether key already holds its cap: one more is to be refused. */
    atCap(key: string): boolean {
        return this.count(key) >= this.cap
    }

    /** Counts one more for key; the caller has checked atCap in the same turn. */
    take(key: string): void {
        this.counts.set(key, this.count(key) + 1)
    }

    /** Counts one fewer for key, once what take() counted is given back. */
    release(key: string): void {
        const left = this.count(key) - 1
        if (left > 0) this.counts.set(key, left)
        else this.counts.delete(key)
    }

    count(key: string): number {
        return this.counts.get(key) ?? 0
    }

    /** Keys holding something, for tests and metrics. */
    get size(): number {
        return this.counts.size
    }
}

/**
 * The last value of an expensive read, reused while it is younger than ttlMs and was made for the
 * same key (e.g. the indexed head it was computed at). Concurrent callers share one read; a
 * failed read is forgotten, so the next call tries again.
 */
export class Recent<T> {
    private entry?: { key: unknown; at: number; value: Promise<T> }

    constructor(private readonly ttlMs: number) {}

    get(read: () => Promise<T>, key?: unknown): Promise<T> {
        const now = Date.now()
        if (this.entry && this.entry.key === key && now - this.entry.at < this.ttlMs) return this.entry.value
        const entry = { key, at: now, value: read() }
        entry.value.catch(() => {
            if (this.entry === entry) this.entry = undefined
        })
        this.entry = entry
        return entry.value
    }

    forget(): void {
        this.entry = undefined
    }
}

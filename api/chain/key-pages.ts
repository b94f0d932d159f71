import { RenderedItems } from './rendered-items'

/**
 * The keys of list pages (what a keyset query answers), kept so that a page asked again costs no
 * query: docs/chain-api.md#rendered-list-items. A page newest first whose cursor is at or below the
 * head holds rows of committed blocks only, which no later commit changes: it is kept until a
 * reorganisation. Any other page (the first, ascending ones, orders by value) is kept for the head
 * it was read at.
 */
export class KeyPages {
    private readonly pages = new Map<string, { keys: readonly unknown[]; head: number | 'settled'; generation: number }>()
    private readonly reading = new Map<string, Promise<readonly unknown[]>>()

    constructor(
        private readonly items: RenderedItems,
        /** The most pages kept; the oldest go first. 0: none. */
        private readonly maxPages: number,
    ) {}

    /**
     * The keys of the page `name`, read by `read` unless kept. `settledBelow`: the cursor's block
     * when the page is newest first and holds only rows before it (undefined otherwise).
     */
    async get<K>(name: string, settledBelow: number | undefined, read: () => Promise<K[]>): Promise<K[]> {
        if (this.maxPages === 0) return read()
        const head = await this.items.current()
        const generation = this.items.generation
        const kept = this.pages.get(name)
        if (kept && kept.generation === generation && (kept.head === 'settled' || kept.head === head)) return kept.keys as K[]
        // Requests at one head share a read; one at another head reads its own.
        const readingKey = `${head} ${name}`
        const shared = this.reading.get(readingKey)
        if (shared) return (await shared) as K[]
        const made = read()
        this.reading.set(readingKey, made)
        try {
            const keys = await made
            if (this.items.generation === generation) {
                this.pages.delete(name)
                this.pages.set(name, { keys, head: settledBelow !== undefined && settledBelow <= head ? 'settled' : head, generation })
                for (const oldest of this.pages.keys()) {
                    if (this.pages.size <= this.maxPages) break
                    this.pages.delete(oldest)
                }
            }
            return keys
        } finally {
            if (this.reading.get(readingKey) === made) this.reading.delete(readingKey)
        }
    }
}

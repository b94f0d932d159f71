/** A list item's JSON, as the bytes a response carries. */
export type RenderedItem = Buffer

export function rendered(item: unknown): RenderedItem {
    return Buffer.from(JSON.stringify(item))
}

const OPEN_LIST = Buffer.from('{"items":[')
const OPEN_ARRAY = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE_ARRAY = Buffer.from(']')

/** A JSON array of rendered items. */
export function arrayBody(items: readonly RenderedItem[]): Buffer {
    return Buffer.concat(joined(OPEN_ARRAY, items, [CLOSE_ARRAY]))
}

/** Blockscout's list answer, `{"items": [...], "next_page_params": ...}`, of rendered items. */
export function listBody(items: readonly RenderedItem[], next: Record<string, unknown> | null): Buffer {
    return Buffer.concat(joined(OPEN_LIST, items, [Buffer.from(`],"next_page_params":${JSON.stringify(next)}}`)]))
}

function joined(open: Buffer, items: readonly RenderedItem[], close: Buffer[]): Buffer[] {
    const parts = [open]
    items.forEach((item, i) => {
        if (i > 0) parts.push(COMMA)
        parts.push(item)
    })
    parts.push(...close)
    return parts
}

/** Rendered list items (transactions, blocks), reused by later requests while the indexed head stays where it was: docs/chain-api.md#rendered-list-items */
export class RenderedItems {
    private readonly byKey = new Map<string, RenderedItem>()
    /**
     * Items being rendered at the current head, by key: when a new block arrives every request
     * finds the newest items missing at once, and without this each would read and render them
     * again (a hundred clients, a hundred renders of the same page).
     */
    private readonly rendering = new Map<string, Promise<RenderedItem | undefined>>()
    private bytes = 0
    private head?: number

    constructor(
        /** Where the indexed head is read; the items kept belong to the head read last. */
        private readonly indexed: { get(): Promise<{ number: number }> },
        private readonly budgetBytes: number,
    ) {}

    /**
     * The rendered items of `keys` at the current indexed head, in their order: remembered ones as
     * they are, ones another request is rendering from that render, the others from `render`
     * (called once, with all of them and the head number), which answers by `keyOf`. A key
     * `render` does not answer (its row vanished between the two reads, in a reorg) is left out.
     */
    async items<K>(
        keys: readonly K[],
        keyOf: (key: K) => string,
        render: (missing: K[], head: number) => Promise<Map<string, RenderedItem>>,
    ): Promise<RenderedItem[]> {
        const head = (await this.indexed.get()).number
        if (head !== this.head) {
            this.byKey.clear()
            this.rendering.clear()
            this.bytes = 0
            this.head = head
        }
        const ids = keys.map(keyOf)
        const found = ids.map((id) => this.byKey.get(id))
        const borrowed = ids.map((id, i) => (found[i] ? undefined : this.rendering.get(id)))
        const missing = keys.filter((_, i) => !found[i] && !borrowed[i])
        const fresh = missing.length > 0 ? await this.renderShared(missing, keyOf, render, head) : new Map<string, RenderedItem>()
        const lent = await Promise.allSettled(borrowed.map((p) => p ?? Promise.resolve(undefined)))
        // A render of another request that failed is done again here (its request has its error).
        const failed = keys.filter((_, i) => lent[i].status === 'rejected')
        const retried = failed.length > 0 ? await render(failed, head) : new Map<string, RenderedItem>()
        return ids.flatMap((id, i) => {
            const other = lent[i]
            return found[i] ?? fresh.get(id) ?? (other.status === 'fulfilled' ? other.value : undefined) ?? retried.get(id) ?? []
        })
    }

    /** render(missing), announced in `rendering` while it runs, and its items kept if the head has not moved meanwhile. */
    private async renderShared<K>(
        missing: K[],
        keyOf: (key: K) => string,
        render: (missing: K[], head: number) => Promise<Map<string, RenderedItem>>,
        head: number,
    ): Promise<Map<string, RenderedItem>> {
        const made = render(missing, head)
        const announced = missing.map((key) => {
            const id = keyOf(key)
            const item = made.then((items) => items.get(id))
            // Only borrowers observe a failure; this request gets it from `made`.
            item.catch(() => undefined)
            this.rendering.set(id, item)
            return [id, item] as const
        })
        try {
            const fresh = await made
            // A render that finished after the head moved is not kept: it may predate the new head.
            if (this.head === head) for (const [id, item] of fresh) this.remember(id, item)
            return fresh
        } finally {
            for (const [id, item] of announced) if (this.rendering.get(id) === item) this.rendering.delete(id)
        }
    }

    private remember(key: string, item: RenderedItem): void {
        if (item.length > this.budgetBytes || this.byKey.has(key)) return
        this.byKey.set(key, item)
        this.bytes += item.length
        // Map iterates in insertion order: the oldest first.
        for (const [oldest, old] of this.byKey) {
            if (this.bytes <= this.budgetBytes) break
            this.byKey.delete(oldest)
            this.bytes -= old.length
        }
    }
}

import { CheckedHead, RenderingChanges } from './queries/rendering-changes'

/** A list item's JSON, as the bytes a response carries. */
export type RenderedItem = Buffer

/**
 * A list item rendered for keeping across heads: its JSON without the one figure that grows with
 * the head (a transaction's confirmations, spliced back at `confirmations.offset` when served),
 * and what it shows of other rows (an address's contract flag and name, whether a created
 * contract is a token) as `[key, state]` pairs (queries/rendering-changes.ts), so that a commit
 * changing one of them drops it.
 */
export interface KeptItem {
    bytes: Buffer
    shown: readonly (readonly [string, string])[]
    confirmations?: { offset: number; block: number }
}

/** A list item's JSON, as the bytes a response carries. */
export function rendered(item: unknown): RenderedItem {
    return Buffer.from(JSON.stringify(item))
}

const CONFIRMATIONS = '"confirmations":'

/**
 * `item` rendered for keeping. `confirmationsOf`: the block of a transaction item, whose
 * `confirmations` (rendered at any head) is cut out to be written at serve time.
 */
export function keptItem(item: unknown, shown: readonly (readonly [string, string])[] = [], confirmationsOf?: number): KeptItem {
    const json = JSON.stringify(item)
    if (confirmationsOf === undefined) return { bytes: Buffer.from(json), shown }
    // JSON strings escape their quotes, so the first `"confirmations":` is the key itself.
    const at = json.indexOf(CONFIRMATIONS) + CONFIRMATIONS.length
    const digits = /^\d+/.exec(json.slice(at))
    if (at < CONFIRMATIONS.length || !digits) throw new Error('a transaction item without confirmations')
    const before = Buffer.from(json.slice(0, at))
    return { bytes: Buffer.concat([before, Buffer.from(json.slice(at + digits[0].length))]), shown, confirmations: { offset: before.length, block: confirmationsOf } }
}

/** A kept item as served at `head`. */
function served(item: KeptItem, head: number): RenderedItem {
    const c = item.confirmations
    if (!c) return item.bytes
    return Buffer.concat([item.bytes.subarray(0, c.offset), Buffer.from(String(Math.max(head - c.block + 1, 0))), item.bytes.subarray(c.offset)])
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

/**
 * Rendered list items (transactions, blocks, holders), kept across heads: a new head drops only
 * the items showing an address whose state the commits changed, and a reorganisation drops them
 * all: docs/chain-api.md#rendered-list-items
 */
export class RenderedItems {
    private readonly byKey = new Map<string, KeptItem>()
    /** The keys of the items kept that show each `shown` key, and the state they show. */
    private readonly showing = new Map<string, Map<string, string>>()
    /**
     * Items being rendered at the current head, by key: when a new block arrives every request
     * finds the newest items missing at once, and without this each would read and render them
     * again (a hundred clients, a hundred renders of the same page).
     */
    private readonly rendering = new Map<string, Promise<KeptItem | undefined>>()
    private bytes = 0
    private head?: CheckedHead
    /** The move to a new head under way: requests wait for its drops before reading what is kept. */
    private moving?: { to: number; done: Promise<void> }
    /** Counts every reorganisation seen: key pages (key-pages.ts) kept before one are dropped. */
    generation = 0

    constructor(
        /** Where the indexed head is read. */
        private readonly indexed: { get(): Promise<{ number: number }> },
        private readonly budgetBytes: number,
        /** What the commits since a head changed (queries/rendering-changes.ts). */
        private readonly changes: (since: CheckedHead | undefined, head: number) => Promise<RenderingChanges>,
    ) {}

    /** The indexed head, once what its commits changed has been dropped (the newest head a move reached, if the head moved on meanwhile). */
    async current(): Promise<number> {
        const head = (await this.indexed.get()).number
        if (this.head?.number !== head && this.moving?.to !== head) {
            const move = this.move(head)
            this.moving = { to: head, done: move }
            move.then(() => undefined, () => undefined).then(() => {
                if (this.moving?.done === move) this.moving = undefined
            })
        }
        while (this.moving) await this.moving.done
        return this.head!.number
    }

    private async move(head: number): Promise<void> {
        const since = this.head
        const changes = await this.changes(since, head)
        // A later move finished first: this one's reading is older than what is kept.
        if (this.moving?.to !== head) return
        if (changes.replaced) {
            this.byKey.clear()
            this.showing.clear()
            this.bytes = 0
            this.generation++
        } else {
            for (const [key, state] of changes.states) {
                for (const [id, shownState] of this.showing.get(key) ?? []) if (shownState !== state) this.forget(id)
            }
        }
        this.rendering.clear()
        this.head = changes.head
    }

    /**
     * The rendered items of `keys` at the current indexed head, in their order: kept ones as they
     * are, ones another request is rendering from that render, the others from `render` (called
     * once, with all of them and the head number), which answers by `keyOf`. A key `render` does
     * not answer (its row vanished between the two reads, in a reorg) is left out.
     */
    async items<K>(
        keys: readonly K[],
        keyOf: (key: K) => string,
        render: (missing: K[], head: number) => Promise<Map<string, KeptItem>>,
    ): Promise<RenderedItem[]> {
        const head = await this.current()
        const ids = keys.map(keyOf)
        const found = ids.map((id) => this.byKey.get(id))
        const borrowed = ids.map((id, i) => (found[i] ? undefined : this.rendering.get(id)))
        const missing = keys.filter((_, i) => !found[i] && !borrowed[i])
        const fresh = missing.length > 0 ? await this.renderShared(missing, keyOf, render, head) : new Map<string, KeptItem>()
        const lent = await Promise.allSettled(borrowed.map((p) => p ?? Promise.resolve(undefined)))
        // A render of another request that failed is done again here (its request has its error).
        const failed = keys.filter((_, i) => lent[i].status === 'rejected')
        const retried = failed.length > 0 ? await render(failed, head) : new Map<string, KeptItem>()
        return ids.flatMap((id, i) => {
            const other = lent[i]
            const item = found[i] ?? fresh.get(id) ?? (other.status === 'fulfilled' ? other.value : undefined) ?? retried.get(id)
            return item ? [served(item, head)] : []
        })
    }

    /** render(missing), announced in `rendering` while it runs, and its items kept if the head has not moved meanwhile. */
    private async renderShared<K>(
        missing: K[],
        keyOf: (key: K) => string,
        render: (missing: K[], head: number) => Promise<Map<string, KeptItem>>,
        head: number,
    ): Promise<Map<string, KeptItem>> {
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
            // A render that finished after the head moved is not kept: it may have read rows
            // before a commit whose changes the move has already dropped from what is kept.
            if (this.head?.number === head && !this.moving) for (const [id, item] of fresh) this.remember(id, item)
            return fresh
        } finally {
            for (const [id, item] of announced) if (this.rendering.get(id) === item) this.rendering.delete(id)
        }
    }

    private remember(key: string, item: KeptItem): void {
        if (item.bytes.length > this.budgetBytes || this.byKey.has(key)) return
        this.byKey.set(key, item)
        this.bytes += item.bytes.length
        for (const [shownKey, state] of item.shown) {
            let items = this.showing.get(shownKey)
            if (!items) this.showing.set(shownKey, (items = new Map()))
            items.set(key, state)
        }
        // Map iterates in insertion order: the oldest first.
        for (const oldest of this.byKey.keys()) {
            if (this.bytes <= this.budgetBytes) break
            this.forget(oldest)
        }
    }

    private forget(key: string): void {
        const item = this.byKey.get(key)
        if (!item) return
        this.byKey.delete(key)
        this.bytes -= item.bytes.length
        for (const [shownKey] of item.shown) {
            const items = this.showing.get(shownKey)
            items?.delete(key)
            if (items?.size === 0) this.showing.delete(shownKey)
        }
    }
}

import { Request, Response } from 'express'
import { encodeJson, EncodedJson, sendEncoded, sendJson } from './json-response'
import { Recent } from '../../common/recent'

/**
 * Whole answers of the views every visitor opens: the home page's latest blocks and transactions,
 * the first page of /blocks and /transactions without parameters, and the first page of an
 * address's transactions (a popular contract's page). They change only when the indexer commits,
 * so each is made once per indexed head (and gzipped once) and the same bytes go to every request
 * at that head: docs/chain-api.md#rendered-list-items
 */
export class HeadViews {
    /** In the order last asked: the first is the one to drop when more than maxViews are kept. */
    private readonly views = new Map<string, Recent<EncodedJson>>()

    constructor(
        private readonly head: { get(): Promise<{ number: number }> },
        /** 0: every request makes its answer. Otherwise the most a view outlives its head's block (a reorg to the same height). */
        private readonly ttlMs: number,
        /** The most views kept: one per address asked would otherwise grow without end. */
        private readonly maxViews: number,
    ) {}

    /** Sends the view `name` at the current head, made by `make` if no request has made it at this head yet. */
    async send(res: Response, name: string, make: () => Promise<Buffer>): Promise<void> {
        if (this.ttlMs === 0 || this.maxViews === 0) return sendJson(res, await make())
        const head = (await this.head.get()).number
        let view = this.views.get(name)
        if (view) this.views.delete(name)
        else view = new Recent(this.ttlMs)
        this.views.set(name, view)
        for (const oldest of this.views.keys()) {
            if (this.views.size <= this.maxViews) break
            this.views.delete(oldest)
        }
        sendEncoded(res, await view.get(async () => encodeJson(await make()), head))
    }
}

/** A request without query parameters: the page every visitor of a list opens first. */
export const isFirstPage = (req: Request) => Object.keys(req.query).length === 0

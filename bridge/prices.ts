import { ConfigError, SharedEnv } from '../common/config'
import { Logger } from '../common/logger'
import { numberToDecimal, parseRational } from './amounts'
import { PriceClass } from './registry'

/**
 * Reference prices (USD per price class) with where they came from and how old they are: the rate
 * engine's reference legs and the minimum deposit's fee conversion read them here. Either static
 * operator-set values (BRIDGE_REFERENCE_PRICES), which never age, or a CoinGecko-style simple-price
 * feed (BRIDGE_PRICE_FEED_URL) polled in the process, each price stamped with when it was fetched
 * and refused once older than BRIDGE_PRICE_MAX_AGE_SECONDS. A refused price is an error the caller
 * must handle (503 at creation, a wait at the rate lock), never a silent 0.
 */

/** Used when BRIDGE_REFERENCE_PRICES is unset in development and test; production must choose. */
export const DEFAULT_STATIC_PRICES = 'ETH=3000,POL=0.25,BTC=90000,TRX=0.25,SOL=150'
/** A feed request that takes longer is abandoned (and retried on the next poll). */
export const FEED_TIMEOUT_MS = 5_000

export type PriceSourceConfig =
    | { kind: 'static'; prices: Record<string, string> }
    | { kind: 'feed'; url: string; ids: Record<string, string>; pollMs: number; maxAgeMs: number }

export class PriceUnavailableError extends Error {}

const pairs = (list: string) => Object.fromEntries(list.split(',').map((p) => p.split('=') as [string, string]))

/** The price variables of the bridge's schema (bridge/config.ts). */
export interface PriceSettings {
    NODE_ENV: SharedEnv['NODE_ENV']
    BRIDGE_REFERENCE_PRICES?: string
    BRIDGE_PRICE_FEED_URL?: string
    BRIDGE_PRICE_FEED_IDS: string
    BRIDGE_PRICE_FEED_POLL_SECONDS: number
    BRIDGE_PRICE_MAX_AGE_SECONDS: number
}

export function parsePriceSource(env: PriceSettings): PriceSourceConfig {
    if (env.BRIDGE_PRICE_FEED_URL && env.BRIDGE_REFERENCE_PRICES) {
        throw new ConfigError('set one price source: BRIDGE_PRICE_FEED_URL (a live feed) or BRIDGE_REFERENCE_PRICES (static prices), not both')
    }
    if (env.BRIDGE_PRICE_FEED_URL) {
        // Polled less often than prices last, every price would go stale between two polls.
        if (env.BRIDGE_PRICE_FEED_POLL_SECONDS >= env.BRIDGE_PRICE_MAX_AGE_SECONDS) {
            throw new ConfigError('BRIDGE_PRICE_FEED_POLL_SECONDS must be below BRIDGE_PRICE_MAX_AGE_SECONDS, or fed prices go stale between polls')
        }
        return {
            kind: 'feed',
            url: env.BRIDGE_PRICE_FEED_URL,
            ids: pairs(env.BRIDGE_PRICE_FEED_IDS),
            pollMs: env.BRIDGE_PRICE_FEED_POLL_SECONDS * 1000,
            maxAgeMs: env.BRIDGE_PRICE_MAX_AGE_SECONDS * 1000,
        }
    }
    // Built-in prices would quietly misprice real money: production names its source.
    if (!env.BRIDGE_REFERENCE_PRICES && env.NODE_ENV === 'production') {
        throw new ConfigError('no price source: in production set BRIDGE_PRICE_FEED_URL (a CoinGecko-style price feed) or BRIDGE_REFERENCE_PRICES ' +
            '(operator-set static USD prices, e.g. ETH=3000,POL=0.25); the built-in defaults are for development and tests only')
    }
    return { kind: 'static', prices: pairs(env.BRIDGE_REFERENCE_PRICES ?? DEFAULT_STATIC_PRICES) }
}

/** The price classes a deployment prices at all: a route through any other class does not exist. */
export function pricedClasses(config: PriceSourceConfig): string[] {
    return Object.keys(config.kind === 'static' ? config.prices : config.ids)
}

/**
 * The prices a simple-price answer gives, by price class: `{"ethereum":{"usd":3012.5}}` with ids
 * ETH=ethereum gives {ETH: "3012.5"}. Numbers become the decimal their sender wrote (the shortest
 * text that reads back as the same double), never a float in arithmetic. An id missing or not a
 * positive number is left out (its last good price ages out); a body that is not an object throws.
 */
export function parseFeed(body: unknown, ids: Record<string, string>): { prices: Record<string, string>; missing: string[] } {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('the feed answered something other than a JSON object')
    const prices: Record<string, string> = {}
    const missing: string[] = []
    for (const [priceClass, id] of Object.entries(ids)) {
        const usd = ((body as Record<string, unknown>)[id] as Record<string, unknown> | undefined)?.usd
        const text = typeof usd === 'number' && Number.isFinite(usd) ? numberToDecimal(usd) : typeof usd === 'string' ? usd.trim() : undefined
        if (text && /^\d+(\.\d+)?$/.test(text) && parseRational(text).num > 0n) prices[priceClass] = text
        else missing.push(`${priceClass} (${id})`)
    }
    return { prices, missing }
}

export interface PriceView {
    usd: string
    /** When it was fetched; null for a static price. */
    fetched_at: string | null
    stale: boolean
}

export class PriceSource {
    private readonly readings = new Map<string, { usd: string; fetchedAt: number }>()
    private timer?: NodeJS.Timeout
    private polling?: Promise<void>

    constructor(readonly config: PriceSourceConfig, private readonly log: Logger, private readonly now: () => number = Date.now) {}

    /** Whether the deployment prices the class at all (fresh or not). */
    has(c: PriceClass): boolean {
        return c === 'USD' || pricedClasses(this.config).includes(c)
    }

    /** USD per whole unit of the class, a decimal string; throws PriceUnavailableError when there is no fresh one. */
    usd(c: PriceClass): string {
        if (c === 'USD') return '1'
        if (this.config.kind === 'static') {
            const price = this.config.prices[c]
            if (!price) throw new PriceUnavailableError(`no price for ${c}`)
            return price
        }
        const reading = this.readings.get(c)
        if (!reading) throw new PriceUnavailableError(`no price for ${c} from the price feed yet`)
        const age = this.now() - reading.fetchedAt
        if (age > this.config.maxAgeMs) {
            throw new PriceUnavailableError(`the price of ${c} is stale (fetched ${Math.floor(age / 1000)} s ago, the limit is ${this.config.maxAgeMs / 1000} s)`)
        }
        return reading.usd
    }

    /** Every priced class with its price and age, for GET /api/swap/config. */
    view(): Record<string, PriceView> {
        if (this.config.kind === 'static') {
            return Object.fromEntries(Object.entries(this.config.prices).map(([c, usd]) => [c, { usd, fetched_at: null, stale: false }]))
        }
        const maxAge = this.config.maxAgeMs
        return Object.fromEntries([...this.readings].map(([c, r]) => [c, { usd: r.usd, fetched_at: new Date(r.fetchedAt).toISOString(), stale: this.now() - r.fetchedAt > maxAge }]))
    }

    /** Polls the feed now and every BRIDGE_PRICE_FEED_POLL_SECONDS; static prices need nothing. */
    start(): void {
        if (this.config.kind !== 'feed') return
        const tick = () => {
            // One request at a time: a slow feed is not asked again before it answers or times out.
            if (!this.polling) this.polling = this.poll().finally(() => (this.polling = undefined))
        }
        this.timer = setInterval(tick, this.config.pollMs)
        tick()
    }

    async stop(): Promise<void> {
        clearInterval(this.timer)
        await this.polling
    }

    /** One request to the feed. Failures are logged, never thrown: the last good prices stay until they age out. */
    async poll(): Promise<void> {
        if (this.config.kind !== 'feed') return
        const url = new URL(this.config.url)
        url.searchParams.set('ids', [...new Set(Object.values(this.config.ids))].join(','))
        url.searchParams.set('vs_currencies', 'usd')
        try {
            const response = await fetch(url, { signal: AbortSignal.timeout(FEED_TIMEOUT_MS), headers: { accept: 'application/json' } })
            const text = await response.text()
            if (!response.ok) throw new Error(`the feed answered HTTP ${response.status}`)
            let body: unknown
            try {
                body = JSON.parse(text)
            } catch {
                throw new Error('the feed answered something other than JSON')
            }
            const { prices, missing } = parseFeed(body, this.config.ids)
            const fetchedAt = this.now()
            for (const [c, usd] of Object.entries(prices)) this.readings.set(c, { usd, fetchedAt })
            if (missing.length) this.log.warn({ missing }, 'the price feed gave no usable price for some classes')
        } catch (err) {
            this.log.warn({ err }, 'price feed request failed; retrying on the next poll')
        }
    }
}

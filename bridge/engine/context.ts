import { Pool } from 'pg'
import { Logger } from '../../common/logger'
import { MemorySightings, SecondLook } from '../../common/second-look'
import { ChainAdapter } from '../chains/adapter'
import { allAssets, Asset, BridgeConfig, resolveAsset } from '../config'
import { LockManager } from '../db'
import { KeyManager } from '../keys'
import { PriceSource } from '../prices'
import { SwapProvider } from '../providers/provider'
import { ChainName, CHAINS } from '../registry'
import { RateEngine } from './rates'
import { RouteTable } from './routing'
import { Sender } from './sender'

/** Everything the engine's steps share; one per process. */
export class EngineContext {
    readonly routes: RouteTable
    readonly rates: RateEngine
    /** Reference prices; main.ts starts and stops its polling. */
    readonly prices: PriceSource
    readonly sender: Sender
    /** Verdicts read off a node that fail or undo a swap (a deposit gone, a vault short), until a second look agrees. */
    readonly secondLook = new SecondLook(new MemorySightings())
    /** Every asset of the registry as this configuration enables it (or says why not), resolved once: `chain:symbol` → asset. */
    private readonly assets: ReadonlyMap<string, Asset>
    /** Each chain's own coin (what its network fees are paid in). */
    private readonly coins: ReadonlyMap<ChainName, Asset>

    constructor(
        readonly pool: Pool,
        readonly config: BridgeConfig,
        readonly adapters: Map<ChainName, ChainAdapter>,
        readonly keys: KeyManager,
        readonly locks: LockManager,
        readonly log: Logger,
        /** The external swap provider, when one is configured (SIMPLESWAP_API_KEY). */
        readonly provider?: SwapProvider
    ) {
        this.routes = new RouteTable(config, provider)
        this.prices = new PriceSource(config.prices, log)
        this.rates = new RateEngine(config, this.prices, adapters as Map<string, ChainAdapter>, provider)
        this.sender = new Sender(pool, locks, log, config.ledgerGuardWindow)
        this.assets = new Map(allAssets(config).map((a) => [`${a.chain}:${a.symbol}`, a]))
        this.coins = new Map(CHAINS.map((c) => [c.name, resolveAsset(config, c.name, c.feeCoin ?? c.tokens.find((t) => t.kind === 'coin')!)]))
    }

    adapter(chain: ChainName): ChainAdapter {
        const adapter = this.adapters.get(chain)
        if (!adapter) throw new Error(`network not enabled: ${chain}`)
        return adapter
    }

    asset(chain: ChainName, symbol: string): Asset {
        const asset = this.assets.get(`${chain}:${symbol}`)
        if (!asset) throw new Error(`unknown token ${symbol} on ${chain}`)
        return asset
    }

    /** The chain's own coin (what its network fees are paid in). */
    coin(chain: ChainName): Asset {
        return this.coins.get(chain)!
    }
}

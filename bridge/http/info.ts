import { z } from 'zod'
import { ApiDoc, DocumentedRouter } from '../../common/service/api-doc'
import { HttpError } from '../../common/service/http-error'
import { formatUnits } from '../amounts'
import { describeFinality } from '../chains/finality'
import { finalitySeconds } from '../chains/timing'
import { allAssets } from '../config'
import { EngineContext } from '../engine/context'
import { EVENT_TYPES } from '../engine/lifecycle'
import { STATUSES } from '../engine/statuses'
import { NoLiquidityError } from '../engine/rates'
import { CHAINS } from '../registry'
import { PoolPrice, SwapConfig, Tokens } from './schemas'

/** GET /api/tokens, /api/swap/config and /api/swap/pool-price/:pool. */

/** Any name: an unknown pool is a 404 that lists the known ones. */
const PoolParams = z.object({ pool: z.string() })

export function infoRoutes(ctx: EngineContext, vaults: Map<string, string>, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api', 'Networks and prices')

    router.get('/tokens', {
        operationId: 'listTokens',
        summary: 'Every chain and token of the registry, with decimals and whether it is enabled',
        description: 'docs/bridge/networks.md',
        responses: { 200: { description: 'The chains and their tokens', schema: Tokens } },
    }, (_req, res) => {
        const assets = allAssets(ctx.config)
        res.json({
            chains: CHAINS.map((chain) => {
                const network = ctx.config.networks[chain.name]
                return {
                    name: chain.name,
                    chain_id: network?.family === 'evm' ? network.chainId : chain.chainId ?? null,
                    family: chain.family,
                    enabled: !!network,
                    tokens: assets.filter((a) => a.chain === chain.name).map((a) => ({
                        symbol: a.symbol,
                        name: a.name,
                        decimals: a.decimals,
                        type: a.kind,
                        contract_address: a.address ?? null,
                        enabled: !a.disabled,
                        min_amount: a.minAmount,
                        max_amount: a.maxAmount,
                    })),
                }
            }),
        })
    })

    router.get('/swap/config', {
        operationId: 'getSwapConfig',
        summary: 'The fee, the networks with their vaults, the pools, the reference prices and the route table',
        description: 'docs/bridge/lifecycle.md, docs/bridge/routes-and-prices.md',
        responses: { 200: { description: 'The configuration', schema: SwapConfig } },
    }, (_req, res) => {
        res.json({
            fee_percent: ctx.config.feePercent,
            deposit_window_seconds: ctx.config.depositWindowSeconds,
            monitor_interval_seconds: ctx.config.monitorIntervalMs / 1000,
            networks: CHAINS.map((chain) => {
                const network = ctx.config.networks[chain.name]
                return {
                    chain: chain.name,
                    family: chain.family,
                    enabled: !!network,
                    chain_id: network?.family === 'evm' ? network.chainId : chain.chainId ?? null,
                    confirmations: network ? describeFinality(network.finality) : null,
                    finality_seconds: network ? finalitySeconds(chain.name, network.finality) : null,
                    vault_address: vaults.get(chain.name) ?? null,
                    explorer: ctx.config.explorers[chain.name] ?? null,
                }
            }),
            pools: ctx.config.pools.map((p) => ({ id: p.id, chain: p.chain, base_token: p.base.symbol, quote_token: p.quote.symbol, price_path: `/api/swap/pool-price/${p.id}` })),
            // The prices usable now (fresh), and every price with its age and source.
            reference_prices_usd: Object.fromEntries(Object.entries(ctx.prices.view()).filter(([, p]) => !p.stale).map(([c, p]) => [c, p.usd])),
            price_source: { kind: ctx.config.prices.kind, max_age_seconds: ctx.config.prices.kind === 'feed' ? ctx.config.prices.maxAgeMs / 1000 : null, prices: ctx.prices.view() },
            max_slippage_percent: (ctx.config.maxSlippageBps / 100).toFixed(2),
            routes: ctx.routes.all().map((r) => ({
                source_chain: r.source.chain,
                source_token: r.source.symbol,
                target_chain: r.target.chain,
                target_token: r.target.symbol,
                kind: r.kind,
                legs: r.legs,
                min_amount: formatUnits(r.minAmount, r.source.decimals),
                max_amount: formatUnits(r.maxAmount, r.source.decimals),
                enabled: !r.disabled,
                ...(r.disabled ? { disabled_reason: r.disabled } : {}),
            })),
            statuses: STATUSES,
            event_types: EVENT_TYPES,
            rate_limit: { create_per_ip: ctx.config.createLimit.points, window_seconds: ctx.config.createLimit.windowSeconds },
            websocket: { path: '/ws', idle_timeout_seconds: ctx.config.wsIdleSeconds },
        })
    })

    router.get('/swap/pool-price/:pool', {
        operationId: 'getPoolPrice',
        summary: 'The current price and reserves of one of our AMM pools',
        description: 'Pools: bsc-wnative-usdt, nativechain-wnative-stable (those configured are listed in GET /api/swap/config).',
        params: PoolParams,
        responses: {
            200: { description: 'The pool\'s price', schema: PoolPrice },
            404: 'No such pool (not_found)',
            503: 'The pool is not configured on this deployment (not_configured), has no liquidity (no_liquidity), or its network cannot be reached (network_unavailable)',
        },
    }, async (req, res) => {
        const pool = ctx.config.pools.find((p) => p.id === req.params.pool)
        if (!pool) {
            if (req.params.pool === 'bsc-wnative-usdt') throw new HttpError(503, 'the BSC network or its WNATIVE/USDT pool is not configured on this deployment', { code: 'not_configured' })
            throw new HttpError(404, `no pool ${req.params.pool}; known: ${ctx.config.pools.map((p) => p.id).join(', ') || 'none'}`, { code: 'not_found' })
        }
        try {
            const price = await ctx.rates.poolPrice(pool.id)
            res.set('Cache-Control', 'no-store').json({
                pool: pool.id,
                chain: pool.chain,
                pair_address: price.pair,
                base_token: pool.base.symbol,
                quote_token: pool.quote.symbol,
                price: price.price,
                reserve_base: formatUnits(price.reserveBase, pool.base.decimals),
                reserve_quote: formatUnits(price.reserveQuote, pool.quote.decimals),
                pool_fee_percent: '0.2',
                block_number: price.blockNumber.toString(),
                timestamp: new Date().toISOString(),
            })
        } catch (err) {
            if (err instanceof NoLiquidityError) throw new HttpError(503, err.message, { code: 'no_liquidity' })
            ctx.log.error({ err, pool: pool.id }, 'pool price unavailable')
            throw new HttpError(503, `the ${pool.chain} network cannot be reached right now`, { code: 'network_unavailable' })
        }
    })
    return router
}

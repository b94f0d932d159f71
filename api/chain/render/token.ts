import type { z } from 'zod'
import { checksum, decimal } from '../format'
import { TokenRow } from '../queries/tokens'
import type { Token } from '../schemas'

/** Blockscout's TokenInfo. No fiat data: this chain has no price feed. */
export function renderToken(row: TokenRow): z.input<typeof Token> {
    return {
        address_hash: checksum(row.id),
        symbol: row.symbol,
        name: row.name,
        decimals: decimal(row.decimals),
        type: row.type,
        holders_count: String(Math.max(row.holder_count, 0)),
        exchange_rate: null,
        volume_24h: null,
        total_supply: decimal(row.total_supply),
        icon_url: null,
        circulating_market_cap: null,
        circulating_supply: null,
        reputation: 'ok',
    }
}

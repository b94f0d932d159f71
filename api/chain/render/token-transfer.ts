import { zeroAddress } from 'viem'
import type { z } from 'zod'
import { relatedAddresses } from './address'
import { calledMethod } from './decode'
import { renderToken } from './token'
import { isoTimestamp } from '../format'
import { Related, RelatedRefs } from '../queries/related'
import { TokenTransferRow } from '../queries/token-transfers'
import type { TokenTransfer } from '../schemas'

/** What renderTokenTransfers shows of other rows: the sender, the receiver and the token. */
export function tokenTransferRefs(rows: readonly TokenTransferRow[]): RelatedRefs {
    return { addresses: rows.flatMap((r) => [r.from, r.to]), tokens: rows.map((r) => r.token) }
}

/** Renders a page of Blockscout TokenTransfers, with the addresses and tokens of tokenTransferRefs. */
export function renderTokenTransfers(rows: readonly TokenTransferRow[], related: Related): z.input<typeof TokenTransfer>[] {
    const address = relatedAddresses(related)
    return rows.map((r) => {
        const token = related.tokens.get(r.token)
        const decimals = token?.decimals ?? null
        const minting = r.from === zeroAddress
        const burning = r.to === zeroAddress
        return {
            transaction_hash: r.transaction_hash,
            from: address(r.from),
            to: address(r.to),
            total: transferTotal(r, decimals),
            token: token ? renderToken(token) : null,
            type: minting && burning ? 'token_spawning' : minting ? 'token_minting' : burning ? 'token_burning' : 'token_transfer',
            timestamp: isoTimestamp(r.timestamp),
            method: r.method_id ? calledMethod(r.method_id, r.verified_signature) ?? r.method_id : null,
            block_hash: r.block_hash,
            block_number: r.block_number,
            log_index: r.log_index,
            token_type: r.token_type,
        }
    })
}

/**
 * Blockscout's `total` by the transfer's standard: an ERC-721 id; an ERC-1155 id with its amount; an
 * ERC-20 amount. The instance is not shown inside a transfer (docs/chain-api.md#nfts).
 */
export function transferTotal(r: Pick<TokenTransferRow, 'token_type' | 'token_id' | 'value'>, decimals: number | null): z.input<typeof TokenTransfer>['total'] {
    const shownDecimals = decimals === null ? null : String(decimals)
    if (r.token_type === 'ERC-721') return { token_id: r.token_id, token_instance: null }
    if (r.value === null) return null
    if (r.token_type === 'ERC-1155') return { token_id: r.token_id, value: r.value, decimals: shownDecimals, token_instance: null }
    return { value: r.value, decimals: shownDecimals }
}

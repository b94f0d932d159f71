import { formatUnits } from 'viem'
import { Db } from '../db'
import { checksum } from '../format'
import { FETCH_SIZE } from '../pagination'
import { erc1155Holders, HolderRow, tokenHolders, TokenRow } from '../queries/tokens'
import { keysetPages, RowSource } from './writer'

/**
 * Blockscout's token-holder export (Explorer.Chain.CsvExport.Token.Holders): every holder by
 * balance, largest first, read page by page with the queries of /api/v2/tokens/{hash}/holders (an
 * ERC-1155's holders per token id, as that list shows them).
 */

/**
 * A balance in whole tokens, exactly (no float), as Blockscout writes it: the base units divided by
 * 10^decimals in XML Schema's canonical decimal form, so always with a fractional part (`5.0`,
 * `0.000000000000000001`). Without decimals, the base units.
 */
export function wholeTokens(value: string, decimals: number | null): string {
    const text = formatUnits(BigInt(value), decimals ?? 0)
    return text.includes('.') ? text : `${text}.0`
}

export function holdersExport(db: Db, token: TokenRow): RowSource<HolderRow> {
    const nft = token.type === 'ERC-1155'
    const holders = keysetPages<HolderRow, { value: bigint; holder: string; tokenId: bigint } | undefined>({
        first: undefined,
        read: (after) => (nft ? erc1155Holders(db, token.id, after) : tokenHolders(db, token.id, after)),
        next: (last) => ({ value: BigInt(last.value), holder: last.holder, tokenId: BigInt(last.token_id ?? 0) }),
        full: FETCH_SIZE,
    })
    return {
        pages: holders,
        columns: [
            { header: 'HolderAddress', value: (h) => checksum(h.holder) },
            { header: 'Balance', value: (h) => wholeTokens(h.value, token.decimals) },
        ],
    }
}

import { formatUnits } from 'viem'
import { Db } from '../db'
import { AdvancedFilter, advancedFilterCursor, AdvancedFilterCursor, advancedFilterPage, AdvancedFilterRow } from '../queries/advanced-filters'
import { related } from '../queries/related'
import { advancedFilterRefs, renderAdvancedFilterItems } from '../render/advanced-filter'
import { csvTimestamp } from './address-exports'
import { RowSource } from './writer'

/**
 * Blockscout's advanced-filter export (`/api/v2/advanced-filters/csv`): the rows of
 * `/api/v2/advanced-filters` for the same parameters, in the same order, read in keyset pages with
 * the list's own query and shown with the list's own rendering (type, fee), in Blockscout's columns.
 * docs/chain-api.md#advanced-filter
 */

/** Rows per read: each of the three sources reads at most one more than this. */
const READ_SIZE = 500

type Item = ReturnType<typeof renderAdvancedFilterItems>[number]

interface Line {
    row: AdvancedFilterRow
    item: Item
}

async function* filteredPages(db: Db, filter: AdvancedFilter): AsyncGenerator<AdvancedFilterRow[]> {
    let cursor: AdvancedFilterCursor | null = null
    for (;;) {
        const page = await advancedFilterPage(db, filter, cursor, READ_SIZE)
        if (page.rows.length > 0) yield page.rows
        if (!page.more || page.rows.length === 0) return
        cursor = advancedFilterCursor(page.rows[page.rows.length - 1])
    }
}

/** A transfer's amount in whole tokens, plain notation (base units when the token states no decimals); empty for an ERC-721's and for the rest. */
function tokenValue(l: Line): string | null {
    const total = l.item.total as { value?: string | null; decimals?: string | null } | null
    if (l.row.kind !== 'token_transfer' || !total?.value) return null
    return formatUnits(BigInt(total.value), Number(total.decimals ?? 0))
}

export function advancedFilterExport(db: Db, filter: AdvancedFilter): RowSource<Line> {
    let previousHash: string | undefined
    async function* lines(): AsyncGenerator<Line[]> {
        for await (const rows of filteredPages(db, filter)) {
            const items = renderAdvancedFilterItems(rows, await related(db, advancedFilterRefs(rows)))
            // The list shows a transaction's fee once per page; the file is one page, so once per transaction.
            if (previousHash === rows[0].hash && rows[0].kind !== 'internal_transaction') items[0] = { ...items[0], fee: '0' }
            previousHash = rows[rows.length - 1].hash
            yield rows.map((row, i) => ({ row, item: items[i] }))
        }
    }
    return {
        pages: lines(),
        columns: [
            { header: 'TxHash', value: (l) => l.item.hash },
            { header: 'Type', value: (l) => l.item.type },
            { header: 'MethodId', value: (l) => l.row.method_id },
            { header: 'UtcTimestamp', value: (l) => csvTimestamp(l.row.timestamp) },
            { header: 'FromAddress', value: (l) => l.item.from?.hash },
            { header: 'ToAddress', value: (l) => l.item.to?.hash },
            { header: 'CreatedContractAddress', value: (l) => l.item.created_contract?.hash },
            { header: 'Value', value: (l) => l.item.value },
            { header: 'TokenContractAddressHash', value: (l) => l.item.token?.address_hash },
            { header: 'TokenDecimals', value: (l) => l.item.token?.decimals },
            { header: 'TokenSymbol', value: (l) => l.item.token?.symbol },
            { header: 'TokenValue', value: tokenValue },
            { header: 'TokenID', value: (l) => (l.row.kind === 'token_transfer' ? l.row.token_id : null) },
            { header: 'BlockNumber', value: (l) => l.row.block_number },
            { header: 'Fee', value: (l) => l.item.fee },
            // Fiat prices: this chain has no price feed.
            { header: 'CurrentPrice', value: () => null },
            { header: 'TxDateOpeningPrice', value: () => null },
            { header: 'TxDateClosingPrice', value: () => null },
        ],
    }
}

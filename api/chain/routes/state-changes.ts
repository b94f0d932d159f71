import { parseAbi, zeroAddress } from 'viem'
import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { CoinFrame, coinMovements } from '../../../common/coin-movements'
import { ChainContext, setBlockCaching, setLiveCaching } from '../context'
import { transactionOr404 } from '../loaders'
import { PAGE_SIZE } from '../pagination'
import { parseQuery, transactionHashParam, TransactionPath } from '../params'
import { blockFeeTerms } from '../queries/blocks'
import { balancesBefore } from '../queries/coin-balances'
import { blockCoinFrames } from '../queries/internal-transactions'
import { tracingMethod } from '../queries/stats'
import { BalanceTransferRow, blockTransfers } from '../queries/token-transfers'
import { blockCoinTransactions } from '../queries/transactions'
import { related } from '../queries/related'
import { relatedAddresses } from '../render/address'
import { renderToken } from '../render/token'
import { chainOperation, pageOf, StateChange } from '../schemas'

/** A transaction's state changes, derived per request and bounded by its block: docs/chain-api.md#state-changes */

const Query = z.object({ items_count: z.string().regex(/^\d{1,4}$/, 'Invalid integer').transform(Number).optional() })

const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)'])
/** An ERC-1155 balance is per token id: its changes are shown per (holder, id), as Blockscout shows them. */
const ERC1155 = parseAbi(['function balanceOf(address, uint256) view returns (uint256)'])
/** The most token balances read from the node for one transaction. */
const MAX_TOKEN_READS = 200

export function stateChangesRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    router.get('/transactions/:hash/state-changes', chainOperation('transactions', {
        operationId: 'listTransactionStateChanges',
        summary: "A transaction's balance changes", params: TransactionPath, query: Query, notFound: 'transaction',
    }, 'A page of state changes', pageOf(StateChange)), async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const query = parseQuery(Query, req.query)
        const tx = await transactionOr404(ctx.db, hash)
        const { items, complete } = await stateChanges(ctx, tx.block_number, tx.index, hash)
        const offset = query.items_count ?? 0
        const page = items.slice(offset, offset + PAGE_SIZE)
        const next = offset + PAGE_SIZE < items.length ? { items_count: offset + PAGE_SIZE, state_changes: null } : null
        if (complete) setBlockCaching(res, ctx, tx.block_number, tx.indexed_head)
        else setLiveCaching(res)
        res.json({ items: page, next_page_params: next })
    })
}

async function stateChanges(ctx: ChainContext, blockNumber: number, position: number, hash: string) {
    const [block, txs, frameRows, transfers, tracing] = await Promise.all([
        blockFeeTerms(ctx.db, blockNumber),
        blockCoinTransactions(ctx.db, blockNumber, position),
        blockCoinFrames(ctx.db, blockNumber, position),
        blockTransfers(ctx.db, blockNumber),
        tracingMethod(ctx.db),
    ])
    const traced = tracing !== 'none' && tracing != null
    const frames: CoinFrame[] = frameRows.map((f) => ({
        transactionHash: f.transaction_hash, traceAddress: f.trace_address, type: f.type, from: f.from, to: f.to,
        createdContract: f.created_contract, value: BigInt(f.value), error: f.error,
    }))
    const movements = coinMovements(
        { miner: block.miner, baseFeePerGas: block.base_fee_per_gas === null ? null : BigInt(block.base_fee_per_gas) },
        txs.map((t) => ({
            hash: t.id, from: t.from, to: t.to, createdContract: t.created_contract, value: BigInt(t.value), status: t.status,
            gasUsed: BigInt(t.gas_used), effectiveGasPrice: BigInt(t.effective_gas_price),
            blobFee: BigInt(t.blob_gas_used ?? 0) * BigInt(t.blob_gas_price ?? 0),
        })),
        traced ? frames : undefined
    )
    const earlier = new Map<string, bigint>()
    const change = new Map<string, bigint>()
    for (const m of movements) {
        const into = m.transaction === hash ? change : earlier
        into.set(m.address, (into.get(m.address) ?? 0n) + m.amount)
    }
    const self = txs[txs.length - 1]
    // The sender and the miner are always shown (Blockscout's tab always has them); others when changed.
    const coinAddresses = [...new Set([self.from, block.miner, ...[...change].filter(([, v]) => v !== 0n).map(([a]) => a)])]
    const before = await balancesBefore(ctx.db, coinAddresses, blockNumber)

    const indexOf = new Map(txs.map((t) => [t.id, t.index]))
    const ownTransfers = transfers.filter((t) => t.transaction_hash === hash)
    const tokenChanges = await tokenStateChanges(ctx, blockNumber, ownTransfers, transfers.filter((t) => (indexOf.get(t.transaction_hash) ?? position) < position))

    const relatedRows = await related(ctx.db, {
        addresses: [...coinAddresses, ...tokenChanges.items.map((i) => i.holder)],
        tokens: tokenChanges.items.map((i) => i.token),
    })
    const address = relatedAddresses(relatedRows)
    const coin = coinAddresses.map((a) => {
        const start = before.get(a)! + (earlier.get(a) ?? 0n)
        const diff = change.get(a) ?? 0n
        return {
            address: address(a), is_miner: a === block.miner, type: 'coin', token: null, token_id: null,
            balance_before: String(start), balance_after: String(start + diff), change: String(diff),
        } satisfies z.input<typeof StateChange>
    })
    const token = tokenChanges.items.map((i) => {
        const row = relatedRows.tokens.get(i.token)
        return {
            address: address(i.holder), is_miner: i.holder === block.miner, type: 'token', token: row ? renderToken(row) : null, token_id: i.tokenId,
            balance_before: i.before === null ? null : String(i.before),
            balance_after: i.before === null ? null : String(i.before + i.diff),
            change: i.nft ?? String(i.diff),
        } satisfies z.input<typeof StateChange>
    })
    return { items: [...coin, ...token], complete: tokenChanges.complete }
}

interface TokenChange {
    token: string
    holder: string
    /** ERC-1155: the id whose balance this is; null for the other standards (one balance per token) */
    tokenId: string | null
    /** balance at the end of the previous block plus the block's earlier transfers; null when unknown */
    before: bigint | null
    diff: bigint
    /** for ERC-721: the tokens that came and went, as Blockscout lists them */
    nft?: { total: { token_id: string | null }; direction: 'from' | 'to' }[]
}

async function tokenStateChanges(ctx: ChainContext, blockNumber: number, own: BalanceTransferRow[], earlier: BalanceTransferRow[]) {
    const changes = new Map<string, TokenChange>()
    const idOf = (t: BalanceTransferRow) => (t.token_type === 'ERC-1155' ? t.token_id : null)
    const entry = (t: BalanceTransferRow, holder: string) => {
        const key = `${t.token}-${holder}-${idOf(t)}`
        let c = changes.get(key)
        if (!c) changes.set(key, (c = { token: t.token, holder, tokenId: idOf(t), before: 0n, diff: 0n }))
        return c
    }
    const amount = (t: BalanceTransferRow) => (t.token_type === 'ERC-721' ? 1n : BigInt(t.value ?? 0))
    for (const t of own) {
        for (const [holder, sign, direction] of [[t.from, -1n, 'from'], [t.to, 1n, 'to']] as const) {
            if (holder === zeroAddress) continue
            const c = entry(t, holder)
            c.diff += sign * amount(t)
            if (t.token_type === 'ERC-721') (c.nft ??= []).push({ total: { token_id: t.token_id }, direction })
        }
    }
    const items = [...changes.values()].slice(0, MAX_TOKEN_READS)
    let complete = true
    const balances = await Promise.all(items.map((c) => (c.tokenId === null
        ? ctx.node.readContract({
            address: c.token as `0x${string}`, abi: ERC20, functionName: 'balanceOf', args: [c.holder as `0x${string}`],
            blockNumber: BigInt(blockNumber - 1),
        })
        : ctx.node.readContract({
            address: c.token as `0x${string}`, abi: ERC1155, functionName: 'balanceOf', args: [c.holder as `0x${string}`, BigInt(c.tokenId)],
            blockNumber: BigInt(blockNumber - 1),
        })).catch((err) => {
        complete = false
        ctx.log.warn({ err: String(err?.shortMessage ?? err?.message ?? err), token: c.token, block: blockNumber - 1 }, 'state changes: token balance not readable from the node')
        return null
    })))
    items.forEach((c, i) => {
        const start = balances[i]
        if (start === null) return void (c.before = null)
        let before = start
        for (const t of earlier) {
            if (t.token !== c.token || idOf(t) !== c.tokenId) continue
            if (t.from === c.holder) before -= amount(t)
            if (t.to === c.holder) before += amount(t)
        }
        c.before = before
    })
    return { items, complete: complete && changes.size <= MAX_TOKEN_READS }
}

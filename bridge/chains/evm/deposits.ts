import { Address, BlockNotFoundError, parseAbiItem, PublicClient } from 'viem'
import { agreedBlockHash, finalHeight, settled } from '../../../common/evm/finality'
import { isNoStateError } from '../../../common/evm/errors'
import { receiptOrNull } from '../../../common/evm/transactions'
import { Finality } from '../finality'
import { DepositCheck, DepositSeen, DepositWatch, PartialScanError } from '../adapter'
import { scanWatches } from '../scan'
import { coinBalancesAt } from './balances'
import { balanceRises } from './balance-rises'
import { coinTransferTx, directCoinPayments } from './coin-transfer'

/** Deposits on an EVM chain: a token's by Transfer logs, a coin's by the address's balance (no log shows an internal transfer): docs/bridge/lifecycle.md#deposits */

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/** Addresses in one eth_getLogs topic list: common providers refuse more than 1,000. */
const TOPIC_ADDRESSES = 1000

interface PartialScan {
    seen: DepositSeen[]
    unread: Set<string>
    causes: unknown[]
}

export async function scanDeposits(client: PublicClient, batchClient: PublicClient, watches: DepositWatch[], from: bigint, to: bigint): Promise<DepositSeen[]> {
    if (watches.length === 0 || from > to) return []
    const coinWatches = watches.filter((w) => w.asset.kind === 'coin')
    const tokenWatches = watches.filter((w) => w.asset.kind === 'token')
    const [coins, tokens] = await Promise.all([scanCoin(client, batchClient, coinWatches, to), scanTokens(client, tokenWatches, from, to)])
    const seen = [...coins.seen, ...tokens.seen].sort((a, b) => Number(a.blockNumber - b.blockNumber))
    if (coins.unread.size === 0 && tokens.unread.size === 0) return seen
    throw new PartialScanError(seen, new Set([...coins.unread, ...tokens.unread]), tokens.unread.size > 0, [...coins.causes, ...tokens.causes])
}

/**
 * Transfer logs into the watched addresses, TOPIC_ADDRESSES addresses per query (what nodes
 * accept in one topic list). A query that fails leaves its addresses unread for the range; the
 * other chunks still count.
 */
async function scanTokens(client: PublicClient, watches: DepositWatch[], from: bigint, to: bigint): Promise<PartialScan> {
    const result: PartialScan = { seen: [], unread: new Set(), causes: [] }
    if (watches.length === 0) return result
    const byKey = new Map(watches.map((w) => [`${w.asset.address!.toLowerCase()}:${w.address.toLowerCase()}`, w]))
    const times = new Map<bigint, Date>()
    for (let i = 0; i < watches.length; i += TOPIC_ADDRESSES) {
        const chunk = watches.slice(i, i + TOPIC_ADDRESSES)
        try {
            const logs = await client.getLogs({
                address: [...new Set(chunk.map((w) => w.asset.address as Address))],
                event: TRANSFER_EVENT,
                args: { to: [...new Set(chunk.map((w) => w.address as Address))] },
                fromBlock: from,
                toBlock: to,
            })
            const seen: DepositSeen[] = []
            for (const log of logs) {
                if (log.removed || !log.args.to || !log.args.value) continue
                const watch = byKey.get(`${log.address.toLowerCase()}:${log.args.to.toLowerCase()}`)
                if (!watch) continue
                if (!times.has(log.blockNumber)) {
                    const block = await client.getBlock({ blockNumber: log.blockNumber })
                    times.set(log.blockNumber, new Date(Number(block.timestamp) * 1000))
                }
                seen.push({
                    swapId: watch.swapId,
                    txHash: log.transactionHash,
                    amount: log.args.value,
                    blockNumber: log.blockNumber,
                    blockHash: log.blockHash,
                    blockTime: times.get(log.blockNumber)!,
                })
            }
            result.seen.push(...seen)
        } catch (err) {
            for (const w of chunk) result.unread.add(w.swapId)
            result.causes.push(err)
        }
    }
    return result
}

/**
 * Every watched balance at `to` in batched requests; only addresses holding coin are looked at
 * further. An address whose read fails is skipped this scan: a balance is cumulative, so the
 * next scan finds the same coin. `to` older than the node's state window answers nothing for
 * anyone, and the scan whose range ends at the head will.
 */
async function scanCoin(client: PublicClient, batchClient: PublicClient, watches: DepositWatch[], to: bigint): Promise<PartialScan> {
    const result: PartialScan = { seen: [], unread: new Set(), causes: [] }
    if (watches.length === 0) return result
    const funded: DepositWatch[] = []
    const balances = await coinBalancesAt(batchClient, watches.map((w) => w.address as Address), to)
    balances.forEach((b, i) => {
        if (b.status === 'fulfilled') {
            if (b.value > 0n) funded.push(watches[i])
        } else if (!isNoStateError(b.reason)) {
            result.unread.add(watches[i].swapId)
            result.causes.push(b.reason)
        }
    })
    await scanWatches(funded, 16, async (w) => {
        try {
            const deposit = await coinArrival(client, w, to)
            if (deposit) result.seen.push(deposit)
        } catch (err) {
            result.unread.add(w.swapId)
            result.causes.push(err)
        }
        return []
    })
    return result
}

/**
 * The first block in which coin arrived at a watched address that holds some at `to`, by binary search over
 * historical balances (docs/bridge/lifecycle.md#deposits). A block the node holds no state for counts as before the
 * arrival; any other error is thrown, so the caller skips the address this scan rather than misdate it.
 */
async function coinArrival(client: PublicClient, watch: DepositWatch, to: bigint): Promise<DepositSeen | undefined> {
    const address = watch.address as Address
    const balanceAt = (blockNumber: bigint) => client.getBalance({ address, blockNumber })
    /** undefined: the node has no state for that block. */
    const knownBalanceAt = (blockNumber: bigint) => balanceAt(blockNumber).catch((err) => {
        if (isNoStateError(err)) return undefined
        throw err
    })
    const after = await balanceAt(to)
    if (after === 0n) return undefined
    let lo = watch.fromBlock < to ? watch.fromBlock : to
    let hi = to
    while (lo < hi) {
        const mid = (lo + hi) / 2n
        const balance = await knownBalanceAt(mid)
        if (balance !== undefined && balance > 0n) hi = mid
        else lo = mid + 1n
    }
    const block = hi
    const arrived = await balanceAt(block)
    const before = block > 0n ? (await knownBalanceAt(block - 1n)) ?? 0n : 0n
    const found = await client.getBlock({ blockNumber: block, includeTransactions: true })
    return {
        swapId: watch.swapId,
        txHash: await coinTransferTx(client, found, address),
        amount: arrived > before ? arrived - before : arrived,
        blockNumber: found.number!,
        blockHash: found.hash!,
        blockTime: new Date(Number(found.timestamp) * 1000),
    }
}

/**
 * Every transfer into one address within [watch.fromBlock, to], at most `limit` (the newest): a late
 * deposit made of several (docs/bridge/lifecycle.md#extra-and-late-deposits). A token's are its
 * Transfer logs; a coin's are the blocks where the balance rose (balance-rises.ts, by balance and nonce), each block's
 * direct payments to the address when they add up to its rise, else the one transaction a trace names
 * (null on a node without traces) for the whole rise.
 */
export async function transfersInto(client: PublicClient, watch: DepositWatch, to: bigint, limit: number): Promise<DepositSeen[]> {
    if (watch.asset.kind === 'token') {
        const scan = await scanTokens(client, [watch], watch.fromBlock, to)
        if (scan.causes.length > 0) throw scan.causes[0]
        return scan.seen.slice(-limit)
    }
    const address = watch.address as Address
    const stateAt = (blockNumber: bigint) => Promise.all([client.getBalance({ address, blockNumber }), client.getTransactionCount({ address, blockNumber })])
        .then(([balance, nonce]) => ({ balance, nonce }), (err) => {
            if (isNoStateError(err)) return undefined
            throw err
        })
    const rises = await balanceRises(stateAt, watch.fromBlock, to, limit)
    const seen: DepositSeen[] = []
    for (const rise of rises) {
        const block = await client.getBlock({ blockNumber: rise.blockNumber, includeTransactions: true })
        const at = { swapId: watch.swapId, blockNumber: block.number!, blockHash: block.hash!, blockTime: new Date(Number(block.timestamp) * 1000) }
        const direct = await directCoinPayments(client, block, address)
        if (direct.length > 0 && direct.reduce((sum, p) => sum + p.value, 0n) === rise.amount) {
            for (const p of direct) seen.push({ ...at, txHash: p.hash, amount: p.value })
        } else {
            seen.push({ ...at, txHash: await coinTransferTx(client, block, address), amount: rise.amount })
        }
    }
    return seen.slice(-limit)
}

/**
 * Where a credited deposit stands. "Gone" (orphaned) is said only on final evidence: its height
 * is final by the rule, the canonical block there is another one in two reads that agree, and
 * (with a hash) the transaction has no receipt on a second look either. Anything short of that
 * (a node behind another, a read error, a block the node cannot serve yet) is 'pending' or an
 * error: the caller looks again later.
 */
export async function checkDeposit(
    client: PublicClient,
    chain: string,
    deposit: { txHash: string | null; blockNumber: bigint; blockHash: string },
    finality: Finality
): Promise<DepositCheck> {
    if (deposit.txHash !== null) {
        const receipt = await receiptOrNull(client, deposit.txHash)
        if (receipt?.status === 'success') {
            if (receipt.blockHash !== deposit.blockHash) return { state: 'moved', blockNumber: receipt.blockNumber, blockHash: receipt.blockHash }
            const { final, confirmations } = await settled(client, receipt.blockNumber, receipt.blockHash, finality)
            return { state: final ? 'final' : 'pending', confirmations }
        }
    } else {
        const block = await client.getBlock({ blockNumber: deposit.blockNumber }).catch((err) => {
            if (err instanceof BlockNotFoundError) return undefined
            throw err
        })
        if (block?.hash === deposit.blockHash) {
            const { final, confirmations } = await settled(client, deposit.blockNumber, deposit.blockHash, finality)
            return { state: final ? 'final' : 'pending', confirmations }
        }
    }
    if (deposit.blockNumber > (await finalHeight(client, finality))) return { state: 'pending', confirmations: 0 }
    const canonical = await agreedBlockHash(client, chain, deposit.blockNumber)
    if (canonical === deposit.blockHash) {
        // Its block is final and canonical, yet the node has no (successful) receipt: it contradicts itself.
        throw new Error(`${chain}: deposit ${deposit.txHash} is in final block ${deposit.blockNumber} but has no receipt; checking again later`)
    }
    if (deposit.txHash !== null) {
        const again = await receiptOrNull(client, deposit.txHash)
        if (again?.status === 'success') return { state: 'moved', blockNumber: again.blockNumber, blockHash: again.blockHash }
    }
    return { state: 'orphaned' }
}

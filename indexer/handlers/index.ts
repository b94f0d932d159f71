import { RpcClient } from '@subsquid/rpc-client'
import * as amm from '../../abi/codecs/amm'
import { Logger } from '../../common/logger'
import { Batch } from '../batch'
import { addCoinMovements } from '../coin-balances'
import { BlockData } from '../processor'
import { readTokenMetadata, TokenMetadata } from '../rpc'
import { ChainState, TokenType } from '../state'
import { decideTokenType, transferShape } from '../token-types'
import { fetchTraces, Frame, TracingMethod } from '../traces'
import { HexBytes } from '../copy'
import { replayFailedTransactions } from '../revert-data'
import { ContractVerifier } from '../verification'
import { checkAuthorizations } from '../authorities'
import { indexAmmLog } from './amm'
import { indexCallFrames } from './calls'
import { indexChainBlock } from './chain'
import { addProxyCandidates, detectProxies } from './proxies'
import { indexTokenLog, TokenSightings } from './tokens'

export interface IndexerContext {
    state: ChainState
    verifier: ContractVerifier
    rpc: RpcClient
    tracing: TracingMethod
    log: Logger
}

/**
 * Blocks whose call trees are read and held at once. The processor hands over thousands of blocks
 * per call during a backfill; their raw traces together would be hundreds of megabytes.
 */
const TRACE_SLICE = 100

/**
 * Derives everything from a run of consecutive blocks into the batch, in chain order. The call
 * trees of the next slice are read from the node while this slice is derived: reading is the
 * node's work and waiting, deriving is this thread's, so the two overlap. Without call trees, the
 * slice's failed transactions are replayed instead, for their revert data.
 */
export async function indexBlocks(ctx: IndexerContext, batch: Batch, blocks: BlockData[]): Promise<void> {
    const sightings: TokenSightings = new Map()
    const proxyCandidates = new Set<string>()
    batch.tracing = ctx.tracing
    const traceSlice = (from: number) => {
        const slice = blocks.slice(from, from + TRACE_SLICE)
        slice.forEach(normaliseAddresses)
        const traces = fetchTraces(ctx.rpc, ctx.tracing, slice.map((b) => ({
            height: b.header.height,
            hash: b.header.hash,
            transactions: b.transactions.map((t) => ({ hash: t.hash, transactionIndex: t.transactionIndex })),
        })), ctx.log)
        const replays = ctx.tracing === 'none' ? replayFailedTransactions(ctx.rpc, slice, ctx.log) : Promise.resolve(undefined)
        // Awaited below; observed here so a failure while the previous slice is derived is not unhandled.
        traces.catch(() => undefined)
        replays.catch(() => undefined)
        return { slice, traces, replays }
    }
    await readPairTokenDecimals(ctx, blocks)
    const prefetched = await classifyNewTokens(ctx, blocks)
    await checkAuthorizations(ctx.rpc, blocks)
    let next = blocks.length > 0 ? traceSlice(0) : undefined
    for (let from = 0; next; from += TRACE_SLICE) {
        const { slice, traces, replays } = next
        const [frames, replayed] = await Promise.all([traces, replays])
        next = from + TRACE_SLICE < blocks.length ? traceSlice(from + TRACE_SLICE) : undefined
        indexSlice(ctx, batch, slice, frames, replayed, sightings, proxyCandidates)
    }
    await detectTokens(ctx, batch, sightings, prefetched)
    if (proxyCandidates.size > 0) await detectProxies(ctx.rpc, ctx.state, batch, proxyCandidates, blocks[blocks.length - 1].header.height)
}

/** Largest log index the schema holds: log indexes are Postgres `integer` columns, read as JS numbers by every API. */
const MAX_LOG_INDEX = 2 ** 31 - 1

/**
 * A log index the schema cannot hold (some providers number logs across a whole range, up to
 * near 2^32). Storing it would need every log_index column widened; truncating it would make
 * a wrong row, so ingestion stops and says why (docs/RELIABILITY.md#what-the-indexer-does-about-faults).
 */
export class LogIndexOutOfRange extends Error {
    override name = 'LogIndexOutOfRange'

    constructor(readonly block: number, readonly logIndex: number) {
        super(`log index ${logIndex} in block ${block} exceeds ${MAX_LOG_INDEX}, the largest the schema holds`)
    }
}

function indexSlice(
    ctx: IndexerContext, batch: Batch, blocks: BlockData[], traces: Map<number, Frame[]>, replays: Map<string, HexBytes | null> | undefined,
    sightings: TokenSightings, proxyCandidates: Set<string>
): void {
    for (const block of blocks) {
        const outOfRange = block.logs.find((log) => !(log.logIndex >= 0 && log.logIndex <= MAX_LOG_INDEX))
        if (outOfRange) throw new LogIndexOutOfRange(block.header.height, outOfRange.logIndex)
        const transfersPerTx = new Map<string, number>()
        for (const log of block.logs) {
            const transfers = indexTokenLog(batch, ctx.state, block, log, sightings)
            if (transfers > 0) transfersPerTx.set(log.transactionHash, (transfersPerTx.get(log.transactionHash) ?? 0) + transfers)
            indexAmmLog(batch, ctx.state, ctx.verifier, block, log, sightings)
        }
        const frames = traces.get(block.header.height)
        const calls = frames ? indexCallFrames(batch, block, frames) : undefined
        indexChainBlock(batch, ctx.verifier, block, transfersPerTx, calls, replays)
        addCoinMovements(batch, block, frames)
        addProxyCandidates(proxyCandidates, ctx.state, block, frames)
    }
}

/**
 * Decimals of the tokens of pairs created in these blocks that the indexer does not know yet: the
 * AMM's decimal figures and prices need them while the blocks are derived, before detectTokens
 * reads the new tokens (which reads them once more; pairs are few).
 */
async function readPairTokenDecimals(ctx: IndexerContext, blocks: BlockData[]): Promise<void> {
    const factories = ctx.state.amm.factories
    for (const block of blocks) {
        const unknown = new Set<string>()
        for (const log of block.logs) {
            if (log.topics[0] !== amm.events.PairCreated.topic || !factories.has(log.address.toLowerCase())) continue
            const { token0, token1 } = amm.events.PairCreated.decode(log)
            for (const token of [token0.toLowerCase(), token1.toLowerCase()]) {
                if (!ctx.state.decimals.has(token)) unknown.add(token)
            }
        }
        if (unknown.size === 0) continue
        const height = block.header.height
        const metadata = await readTokenMetadata(ctx.rpc, [...unknown], height, Math.max(0, height - 1))
        for (const token of unknown) ctx.state.decimals.set(token, metadata.get(token)!.decimals)
    }
}

/** Tokens grouped by the block they were first seen in: their reads are made at that block, one batch per block. */
function byFirstBlock(sightings: Iterable<[string, { firstBlock: number }]>): Map<number, string[]> {
    const byBlock = new Map<number, string[]>()
    for (const [token, { firstBlock }] of sightings) {
        const list = byBlock.get(firstBlock) ?? []
        list.push(token)
        byBlock.set(firstBlock, list)
    }
    return byBlock
}

/**
 * Decides the standard of every token that emits a transfer-shaped log in these blocks and is not
 * known yet (token-types.ts), before any log is derived: which of its logs are transfers, and how
 * they read, depends on it. Its metadata is read in the same batch as its ERC-165 answers and
 * handed to detectTokens, which then need not read it again.
 */
async function classifyNewTokens(ctx: IndexerContext, blocks: BlockData[]): Promise<Map<string, TokenMetadata>> {
    const seen = new Map<string, { shape: TokenType; firstBlock: number }>()
    for (const block of blocks) {
        for (const log of block.logs) {
            const shape = transferShape(log)
            if (!shape) continue
            const token = log.address.toLowerCase()
            if (!ctx.state.tokenTypes.has(token) && !seen.has(token)) seen.set(token, { shape, firstBlock: block.header.height })
        }
    }
    const prefetched = new Map<string, TokenMetadata>()
    for (const [firstBlock, tokens] of byFirstBlock(seen)) {
        const metadata = await readTokenMetadata(ctx.rpc, tokens, firstBlock, Math.max(0, firstBlock - 1), true)
        for (const token of tokens) {
            const meta = metadata.get(token)!
            ctx.state.tokenTypes.set(token, decideTokenType(seen.get(token)!.shape, meta.interfaces!))
            prefetched.set(token, meta)
        }
    }
    return prefetched
}

/**
 * Reads name, symbol, decimals and total supply of tokens seen for the first time (those
 * classifyNewTokens read already are not read again). The supply is read just before the first
 * sighting, and the mints and burns the indexer sees from then on are added to it, so it stays
 * exact without a read per block. NFTs have no decimals.
 */
async function detectTokens(ctx: IndexerContext, batch: Batch, sightings: TokenSightings, prefetched: Map<string, TokenMetadata>): Promise<void> {
    const unread = [...sightings].filter(([token]) => !prefetched.has(token))
    for (const [firstBlock, tokens] of byFirstBlock(unread)) {
        for (const [token, meta] of await readTokenMetadata(ctx.rpc, tokens, firstBlock, Math.max(0, firstBlock - 1))) prefetched.set(token, meta)
    }
    for (const [token, { type: sighted, firstBlock }] of sightings) {
        const meta = prefetched.get(token)!
        const type = ctx.state.tokenTypes.get(token) ?? sighted
        const decimals = type === 'ERC-20' ? meta.decimals : null
        ctx.state.addToken(token, type, decimals)
        batch.newTokens.set(token, {
            id: token,
            type,
            name: meta.name,
            symbol: meta.symbol,
            decimals,
            totalSupply: meta.totalSupply ?? 0n,
            holderCount: 0,
            transferCount: 0,
            firstBlock,
        })
    }
}

/** Nodes differ in address casing; rows store lowercase hex. */
function normaliseAddresses(block: BlockData): void {
    block.header.miner = block.header.miner.toLowerCase()
    for (const tx of block.transactions) {
        tx.from = tx.from.toLowerCase()
        if (tx.to) tx.to = tx.to.toLowerCase()
        if (tx.contractAddress) tx.contractAddress = tx.contractAddress.toLowerCase()
    }
    for (const log of block.logs) log.address = log.address.toLowerCase()
}

import { createHash } from 'crypto'
import type { RpcClient } from '@subsquid/rpc-client'
import { createOrmConfig } from '@subsquid/typeorm-config'
import { Client } from 'pg'
import { DataSource } from 'typeorm'
import { PROJECT_DIR, useDatabaseUrl } from '../db/migrate'
import { Batch } from '../indexer/batch'
import { createLogger } from '../common/logger'
import { indexBlocks, IndexerContext } from '../indexer/handlers'
import { TRANSFER_TOPIC } from '../indexer/handlers/tokens'
import { ZERO_ADDRESS } from '../indexer/ids'
import type { BlockData, Log, Transaction } from '../indexer/processor'
import { ChainState } from '../indexer/state'
import { ContractVerifier } from '../indexer/verification'
import { writeBatch } from '../indexer/writer'

/**
 * A large synthetic chain loaded straight into Postgres, for the API benchmark. Blocks are made up
 * in the shape the processor hands over and go through the indexer's own handlers and writer (rows
 * by COPY, aggregates by upsert, one commit per 10,000 blocks as in a backfill), so the rows,
 * balances, per-address counts and chain counters are exactly what the indexer would have written.
 * Everything is derived from the block number and a fixed seed: the same size gives the same rows.
 *
 * Per block, ten transactions (index: what):
 *   0: HOT sends coin to an account          5: an account sends coin to HOT
 *   2: MINTER mints BIG to a holder          7: TREASURY sends SMALL to an account
 *   9: every 10th block, a reverted BIG transfer; otherwise a coin transfer
 *   others: coin transfers between accounts
 * Block 0 instead opens with the creation of BIG (index 0) and SMALL (index 1, minting its supply).
 * HOT takes part in 20% of all transactions; BIG mints go round HOLDERS accounts, with amounts
 * from a small set so many balances tie.
 */

export const TRANSACTIONS_PER_BLOCK = 10
const COMMIT_BLOCKS = 10_000
const DERIVE_SLICE = 500
const ACCOUNTS = 200_000
const HOLDERS = 80_000
const GENESIS_MS = Date.UTC(2025, 0, 1)
const BLOCK_TIME_MS = 5_000
const GWEI = 1_000_000_000n
const SMALL_SUPPLY = 10n ** 18n
const SELECTOR = { transfer: 'a9059cbb', mint: '40c10f19' }

export interface SyntheticDataset {
    blocks: number
    head: number
    /** The address with the longest transaction history. */
    hotAddress: string
    /** The token with the most holders. */
    token: string
    /** Rows per table after the load. */
    rows: Record<string, number>
    loadMs: number
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const addressOf = (label: string) => '0x' + sha256(`address:${label}`).slice(0, 40)
const word = (hex: string) => hex.padStart(64, '0')
const amountWord = (amount: bigint) => word(amount.toString(16))

const HOT = addressOf('hot')
const BIG = addressOf('big-token')
const SMALL = addressOf('small-token')
const MINTER = addressOf('minter')
const TREASURY = addressOf('treasury')
const VALIDATOR = addressOf('validator')
const account = (n: number) => addressOf(`account-${n}`)

/** The hash of a synthetic block: a node that continues the synthetic chain needs its head's (bench/history-node.ts). */
export const syntheticBlockHash = (height: number) => '0x' + sha256(`block:${height}`)
/** A synthetic block's timestamp, in milliseconds as the processor hands it over. */
export const syntheticBlockTimeMs = (height: number) => GENESIS_MS + height * BLOCK_TIME_MS

/** mulberry32: a small, fast PRNG; the chain's randomness comes only from here. */
function prng(seed: number): () => number {
    let a = seed >>> 0
    return () => {
        a = (a + 0x6d2b79f5) >>> 0
        let t = a
        t = Math.imul(t ^ (t >>> 15), t | 1)
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
}

/** Builds blocks in the processor's shape (only the fields in indexer/processor.ts FIELDS are read). */
class ChainGenerator {
    private readonly random = prng(3009)
    private readonly accounts = Array.from({ length: ACCOUNTS }, (_, n) => account(n))
    private readonly nonces = new Map<string, number>()
    private parentHash = '0x' + '0'.repeat(64)

    block(height: number): BlockData {
        const hash = syntheticBlockHash(height)
        const header: BlockData['header'] = {
            id: `${String(height).padStart(10, '0')}-${hash.slice(2, 7)}`,
            height,
            hash,
            parentHash: this.parentHash,
            timestamp: syntheticBlockTimeMs(height),
            miner: VALIDATOR,
            gasUsed: 0n,
            gasLimit: 30_000_000n,
            baseFeePerGas: 0n,
            stateRoot: '0x' + sha256(`state:${height}`),
            size: 0n,
            difficulty: 0n,
            totalDifficulty: 0n,
            nonce: '0x0000000000000000',
            extraData: '0x',
        }
        this.parentHash = hash
        const block: BlockData = { header, transactions: [], logs: [], traces: [], stateDiffs: [] }
        for (let index = 0; index < TRANSACTIONS_PER_BLOCK; index++) this.transaction(block, index)
        header.gasUsed = block.transactions.reduce((sum, tx) => sum + tx.gasUsed, 0n)
        header.size = BigInt(540 + block.transactions.reduce((sum, tx) => sum + 110 + (tx.input.length - 2) / 2, 0))
        return block
    }

    private transaction(block: BlockData, index: number): void {
        const height = block.header.height
        const anyone = () => this.accounts[Math.floor(this.random() * ACCOUNTS)]
        const coin = () => BigInt(1 + Math.floor(this.random() * 10_000)) * 10n ** 14n
        if (height === 0 && index === 0) return this.create(block, MINTER, BIG, [])
        if (height === 0 && index === 1) return this.create(block, TREASURY, SMALL, [[ZERO_ADDRESS, TREASURY, SMALL_SUPPLY]])
        switch (index) {
            case 0:
                return this.send(block, { from: HOT, to: anyone(), value: coin() })
            case 5:
                return this.send(block, { from: anyone(), to: HOT, value: coin() })
            case 2: {
                // Amounts from a set of 500 values: plenty of ties among the holders.
                const amount = BigInt(1 + ((height * 31) % 500)) * 10n ** 18n
                const holder = this.accounts[height % HOLDERS]
                return this.call(block, MINTER, BIG, SELECTOR.mint, holder, amount, [[ZERO_ADDRESS, holder, amount]])
            }
            case 7: {
                const to = anyone()
                const amount = BigInt(1 + Math.floor(this.random() * 1_000))
                return this.call(block, TREASURY, SMALL, SELECTOR.transfer, to, amount, [[TREASURY, to, amount]])
            }
            case 9:
                if (height % 10 === 0) return this.call(block, anyone(), BIG, SELECTOR.transfer, anyone(), 10n ** 18n, null)
        }
        this.send(block, { from: anyone(), to: anyone(), value: coin() })
    }

    private send(block: BlockData, tx: { from: string; to: string; value: bigint }): void {
        this.push(block, { ...tx, input: '0x', gasUsed: 21_000n, status: 1 }, [])
    }

    /** A token call; `transfers` are the Transfer logs it emits, null for a reverted call. */
    private call(
        block: BlockData, from: string, token: string, selector: string, recipient: string, amount: bigint,
        transfers: [string, string, bigint][] | null
    ): void {
        const input = `0x${selector}${word(recipient.slice(2))}${amountWord(amount)}`
        const tx = { from, to: token, value: 0n, input, gasUsed: transfers ? 51_000n : 30_000n, status: transfers ? 1 : 0 }
        this.push(block, tx, (transfers ?? []).map((t) => [token, ...t]))
    }

    private create(block: BlockData, from: string, contract: string, transfers: [string, string, bigint][]): void {
        // Synthetic bytecode: it matches none of our artifacts, so nothing is recorded as verified.
        const input = '0x' + sha256(`code:${contract}`).repeat(16)
        const tx = { from, value: 0n, input, gasUsed: 1_200_000n, status: 1, contractAddress: contract }
        this.push(block, tx, transfers.map((t) => [contract, ...t]))
    }

    private push(
        block: BlockData,
        tx: { from: string; to?: string; contractAddress?: string; value: bigint; input: string; gasUsed: bigint; status: number },
        transfers: [string, string, string, bigint][]
    ): void {
        const header = block.header
        const transactionIndex = block.transactions.length
        const hash = '0x' + sha256(`tx:${header.height}:${transactionIndex}`)
        const nonce = this.nonces.get(tx.from) ?? 0
        this.nonces.set(tx.from, nonce + 1)
        const transaction: Transaction = {
            id: `${header.id}-${transactionIndex}`,
            transactionIndex,
            hash,
            from: tx.from,
            to: tx.to,
            value: tx.value,
            nonce,
            input: tx.input,
            gas: (tx.gasUsed * 3n) / 2n,
            gasPrice: GWEI,
            maxFeePerGas: 2n * GWEI,
            maxPriorityFeePerGas: GWEI,
            type: 2,
            status: tx.status,
            gasUsed: tx.gasUsed,
            // Base fee 0 as on the devnet: the price paid is the priority fee.
            effectiveGasPrice: GWEI,
            contractAddress: tx.contractAddress,
            block: header,
            logs: [],
            traces: [],
            stateDiffs: [],
        }
        block.transactions.push(transaction)
        for (const [token, from, to, amount] of transfers) {
            const log: Log = {
                id: `${header.id}-${block.logs.length}`,
                logIndex: block.logs.length,
                transactionIndex,
                transactionHash: hash,
                address: token,
                topics: [TRANSFER_TOPIC, '0x' + word(from.slice(2)), '0x' + word(to.slice(2))],
                data: '0x' + amountWord(amount),
                block: header,
                transaction,
                getTransaction: () => transaction,
            }
            block.logs.push(log)
            transaction.logs.push(log)
        }
    }
}

/**
 * The chain has no node. Every token is registered in ChainState before its first block, so the
 * handlers never ask for token metadata. What they do ask of the contracts the chain creates (BIG
 * and SMALL at block 0) is whether they are proxies (indexer/proxies.ts): this answers as a node
 * would for plain contracts, some code and empty storage; and its failed transactions are replayed
 * for revert data, answered as calls that succeed. Anything else throws, saying why the load failed.
 */
const NO_NODE = {
    async batchCall(calls: { method: string; params?: unknown[] }[]): Promise<string[]> {
        return calls.map(({ method }) => {
            if (method === 'eth_getCode') return '0x00'
            if (method === 'eth_getStorageAt') return '0x' + '0'.repeat(64)
            // The replay of a failed transaction (no call trees: indexer/revert-data.ts): a call that
            // succeeds now, as on a node whose state moved on, so no revert data is stored.
            if (method === 'eth_call') return '0x'
            throw new Error(`the synthetic chain has no node to answer ${method}: register every token in ChainState before loading`)
        })
    },
} as unknown as RpcClient

/** A native balance per address, deterministic and varied, as the indexer would have read it. */
function nativeBalance(address: string): bigint {
    return BigInt('0x' + address.slice(2, 10)) * 10n ** 9n
}

/**
 * Loads `blocks` blocks (ten transactions each) into the migrated, empty database at `databaseUrl`,
 * then runs ANALYZE so the planner knows the tables' sizes before the first request.
 */
export async function loadSyntheticRows(
    databaseUrl: string,
    blocks: number,
    log: (message: string) => void = () => {}
): Promise<SyntheticDataset> {
    const started = Date.now()
    useDatabaseUrl(databaseUrl)
    const source = new DataSource(createOrmConfig({ projectDir: PROJECT_DIR }))
    await source.initialize()
    try {
        const state = new ChainState({ wnative: addressOf('wnative'), stable: addressOf('stable'), ourFactory: addressOf('factory'), factories: new Set([addressOf('factory')]) })
        const context: IndexerContext = { state, verifier: new ContractVerifier(), rpc: NO_NODE, tracing: 'none', log: createLogger('bench') }
        const chain = new ChainGenerator()
        const commit = async (batch: Batch) => {
            const commitStarted = Date.now()
            // Taken before the first await: the next batch's derivation moves the live figures on.
            const amm = state.snapshot()
            const balances = new Map([...batch.addresses.keys()].map((a) => [a, nativeBalance(a)]))
            await source.transaction((em) => writeBatch(em, batch, amm, { balances, balancesAtBlock: true, hasCode: new Map(), codeGone: new Map(), delegations: new Map() }))
            log(`committed blocks ${batch.firstBlock}-${batch.lastBlock} in ${((Date.now() - commitStarted) / 1000).toFixed(1)} s`)
        }
        // Each batch is derived while the previous one is written, in slices with a yield between
        // them so its COPY keeps streaming: Node derives on one core while Postgres writes on the other.
        let writing: Promise<void> = Promise.resolve()
        for (let first = 0; first < blocks; first += COMMIT_BLOCKS) {
            const end = Math.min(first + COMMIT_BLOCKS, blocks)
            const batch = new Batch()
            if (first === 0) registerTokens(state, batch)
            for (let from = first; from < end; from += DERIVE_SLICE) {
                const slice = Array.from({ length: Math.min(DERIVE_SLICE, end - from) }, (_, i) => chain.block(from + i))
                await indexBlocks(context, batch, slice)
                await new Promise(setImmediate)
            }
            await writing
            writing = commit(batch)
            // Observed here so a failure during the next derivation is not an unhandled rejection; still thrown by the await.
            writing.catch(() => {})
        }
        await writing
        await source.query('ANALYZE')
        const rows: Record<string, number> = {}
        for (const table of ['block', 'transaction', 'log', 'token_transfer', 'token', 'token_balance', 'address', 'chain_counters']) {
            rows[table] = Number((await source.query(`SELECT count(*) AS n FROM "${table}"`))[0].n)
        }
        return { blocks, head: blocks - 1, hotAddress: HOT, token: BIG, rows, loadMs: Date.now() - started }
    } finally {
        await source.destroy()
    }
}

function registerTokens(state: ChainState, batch: Batch): void {
    const tokens = [
        { id: BIG, name: 'Benchmark Token', symbol: 'BIG', decimals: 18 },
        { id: SMALL, name: 'Small Token', symbol: 'SMALL', decimals: 6 },
    ]
    for (const token of tokens) {
        state.addToken(token.id, 'ERC-20', token.decimals)
        // Supply starts at 0 and follows the mints the handlers see, as for a token the indexer detects at creation.
        batch.newTokens.set(token.id, { ...token, type: 'ERC-20', totalSupply: 0n, holderCount: 0, transferCount: 0, firstBlock: 0 })
    }
}

/**
 * Checks that the loaded rows agree with each other the way the API relies on: the counters match
 * the tables, every referenced address has its row with the right counts, holder counts match the
 * balances. Returns the failed checks (empty when all hold).
 */
export async function checkSyntheticRows(databaseUrl: string, dataset: SyntheticDataset, minimumPerList: number): Promise<string[]> {
    const db = new Client({ connectionString: databaseUrl })
    await db.connect()
    try {
        const value = async (sql: string, params: unknown[] = []) => Number((await db.query(sql, params)).rows[0].v)
        // Each query counts offenders: 0 when the check holds.
        const checks: [string, string][] = [
            ['chain_counters disagree with the tables', `SELECT count(*) AS v FROM (SELECT 1) one WHERE NOT EXISTS (
                SELECT 1 FROM chain_counters c WHERE c.id = 'chain' AND
                c.blocks = (SELECT count(*) FROM block) AND c.transactions = (SELECT count(*) FROM transaction) AND
                c.addresses = (SELECT count(*) FROM address) AND c.token_transfers = (SELECT count(*) FROM token_transfer) AND
                c.last_block = (SELECT max(number) FROM block))`],
            ['blocks whose transaction_count is wrong', `SELECT count(*) AS v FROM block b LEFT JOIN (
                SELECT block_number, count(*) AS n FROM transaction GROUP BY block_number
            ) t ON t.block_number = b.number WHERE b.transaction_count <> COALESCE(t.n, 0)`],
            ['referenced addresses without a row', `SELECT count(*) AS v FROM (
                SELECT "from" AS id FROM transaction UNION SELECT "to" FROM transaction WHERE "to" IS NOT NULL
                UNION SELECT created_contract FROM transaction WHERE created_contract IS NOT NULL
                UNION SELECT "from" FROM token_transfer UNION SELECT "to" FROM token_transfer
                UNION SELECT address FROM log UNION SELECT miner FROM block UNION SELECT holder FROM token_balance
            ) r WHERE NOT EXISTS (SELECT 1 FROM address a WHERE a.id = r.id)`],
            ['addresses whose transaction_count is wrong', `SELECT count(*) AS v FROM address a FULL JOIN (
                SELECT id, count(*) AS n FROM (
                    SELECT "from" AS id FROM transaction
                    UNION ALL SELECT "to" FROM transaction WHERE "to" IS NOT NULL AND "to" <> "from"
                    UNION ALL SELECT created_contract FROM transaction WHERE created_contract IS NOT NULL
                ) t GROUP BY id
            ) c USING (id) WHERE COALESCE(a.transaction_count, -1) <> COALESCE(c.n, 0)`],
            ['tokens whose holder or transfer count is wrong', `SELECT count(*) AS v FROM token t WHERE
                t.holder_count <> (SELECT count(*) FROM token_balance b WHERE b.token = t.id AND b.value > 0) OR
                t.transfer_count <> (SELECT count(*) FROM token_transfer x WHERE x.token = t.id)`],
            ['tokens whose supply differs from the sum of balances', `SELECT count(*) AS v FROM token t WHERE
                t.total_supply <> (SELECT COALESCE(sum(value), 0) FROM token_balance b WHERE b.token = t.id)`],
        ]
        const failures: string[] = []
        for (const [what, sql] of checks) {
            const offenders = await value(sql)
            if (offenders !== 0) failures.push(`${what} (${offenders})`)
        }
        const hot = await value('SELECT count(*) AS v FROM transaction WHERE "from" = $1 OR "to" = $1', [dataset.hotAddress])
        if (hot < minimumPerList) failures.push(`the hot address has ${hot} transactions, fewer than ${minimumPerList}`)
        const holders = await value('SELECT count(*) AS v FROM token_balance WHERE token = $1 AND value > 0', [dataset.token])
        if (holders < minimumPerList) failures.push(`the token has ${holders} holders, fewer than ${minimumPerList}`)
        return failures
    } finally {
        await db.end()
    }
}

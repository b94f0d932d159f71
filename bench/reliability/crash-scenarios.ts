import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { Address, concatHex, createWalletClient, encodeAbiParameters, Hex, http, keccak256, numberToHex, size, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { waitFor } from '../../common/processes'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { devnetChain } from '../../devnet/deploy'
import { startEmbeddedPostgres } from '../../db/postgres'
import { CHAIN_ID, mineEmptyBlocks } from '../../test/support/chain'
import { freePort } from '../../test/support/ports'
import { sleep, World } from './harness'
import { sendVariety } from './variety'
import { Check, consistent, inWorld, message, round, Scenario } from './scenarios'

/**
 * The catalogue's crash-recovery and data-fidelity scenarios (docs/RELIABILITY.md): Postgres
 * restarted under the indexer, SIGKILL at three moments with a reader watching, and awkward but
 * legal values from the chain.
 */

/** How long Postgres stays down. */
const POSTGRES_DOWN_MS = 10_000
/** How long the indexer may take to write again once Postgres is back (the pause of its loop is 5 s at most). */
const RESUME_AFTER_DATABASE_MS = 60_000
const MAX_UINT256 = 2n ** 256n - 1n
/** A log index near 2^32, as some providers emit. */
const HUGE_LOG_INDEX = 2 ** 32 - 2

/** A cluster of the scenario's own, which it can stop and start again on the same port and directory. */
class RestartablePostgres {
    private pg?: Awaited<ReturnType<typeof startEmbeddedPostgres>>
    private constructor(private readonly dir: string, private readonly port: number) {}

    static async start(): Promise<RestartablePostgres> {
        const cluster = new RestartablePostgres(fs.mkdtempSync(path.join(os.tmpdir(), 'pg-reliability-')), await freePort())
        await cluster.up()
        return cluster
    }

    get url(): string {
        return this.pg!.url
    }

    async up(): Promise<void> {
        this.pg = await startEmbeddedPostgres({ dir: this.dir, port: this.port, database: 'reliability', fast: true })
    }

    async down(): Promise<void> {
        await this.pg?.stop()
        this.pg = undefined
    }

    async remove(): Promise<void> {
        await this.down()
        fs.rmSync(this.dir, { recursive: true, force: true })
    }
}

/**
 * Postgres stopped for 10 s and started again, one third into a backfill or while following the
 * head; the chain grows meanwhile.
 */
function postgresRestart(following: boolean): Scenario {
    return {
        id: following ? 'postgres-restart-head' : 'postgres-restart-backfill',
        item: following ? 2 : 1,
        title: `Postgres stopped for ${POSTGRES_DOWN_MS / 1000} s ${following ? 'while following the head' : 'one third into a backfill'}, then started again`,
        run: async () => {
            const cluster = await RestartablePostgres.start()
            try {
                return await inWorld({ emptyBlocks: following ? 0 : 3000, databaseUrl: cluster.url }, async (world) => {
                    world.startIndexer()
                    const head = await world.head()
                    if (following) await world.waitForChainHead()
                    else await world.waitForHeight(Math.floor(head / 3))
                    const atStop = await world.indexedHeight()
                    await cluster.down()
                    const stopped = Date.now()
                    await world.activity(3)
                    await sleep(POSTGRES_DOWN_MS / 2 - (Date.now() - stopped))
                    const duringOutage = await world.ready()
                    await sleep(POSTGRES_DOWN_MS - (Date.now() - stopped))
                    await cluster.up()
                    const back = Date.now()
                    const resumeMs = await waitFor('progress after Postgres is back', async () => (await world.indexedHeight()) > atStop, RESUME_AFTER_DATABASE_MS, 100)
                        .then(() => Date.now() - back, () => Infinity)
                    await world.activity(2)
                    const show = (a: typeof duringOutage) => (a ? `${a.status} ${a.body.status}` : 'no answer')
                    return {
                        checks: [
                            {
                                name: 'carries on once Postgres is back (process exits are counted as restarts)',
                                pass: Number.isFinite(resumeMs),
                                detail: `wrote a new block ${round(resumeMs / 1000)} s after Postgres was back; ${world.restarts} process exits`,
                            },
                            { name: 'readiness: not ready while Postgres is down', pass: duringOutage?.status !== 200, detail: show(duringOutage) },
                            await consistent(world),
                        ],
                        measures: { 'resume (s)': round(resumeMs / 1000), restarts: world.restarts, 'indexed at stop': atStop, 'mid-sync': atStop < head ? 'yes' : 'no' },
                    }
                })
            } finally {
                await cluster.remove()
            }
        },
    }
}

/** What one snapshot of the database says: the checkpoint, the rows and the aggregates derived from them. */
interface Snapshot {
    blocks: number
    max: number
    checkpoint: number | null
    hot: number
    counter_blocks: number | null
    counter_last: number | null
    counter_txs: number | null
    txs: number
    block_txs: number
    stable_held: string
    stable_minted: string
}

/**
 * Polls the database while the indexer is killed: every answer is one statement, hence one
 * snapshot, and must be a state some commit left: no gap below the highest block, the checkpoint
 * plus its unfinalized blocks equal to that block, and counters and balances agreeing with the
 * rows they summarise. After a kill, it also must never fall below the checkpoint the kill left.
 */
class CommitReader {
    readonly violations: string[] = []
    snapshots = 0
    /** Fewest blocks a snapshot may show from now on. */
    floor = 0
    private running = false
    private loop?: Promise<void>

    constructor(private readonly client: Client, private readonly stable: string) {}

    start(): void {
        this.running = true
        this.loop = (async () => {
            while (this.running) {
                const state = await this.read().catch(() => undefined)
                if (state) this.judge(state)
                await sleep(20)
            }
        })()
    }

    async stop(): Promise<void> {
        this.running = false
        await this.loop
    }

    async read(): Promise<Snapshot | undefined> {
        const { rows } = await this.client.query(`
            SELECT (SELECT count(*)::int FROM block) AS blocks,
                   (SELECT coalesce(max(number), -1) FROM block) AS max,
                   (SELECT height FROM squid_processor.status) AS checkpoint,
                   (SELECT count(*)::int FROM squid_processor.hot_block) AS hot,
                   c.blocks AS counter_blocks, c.last_block AS counter_last, c.transactions AS counter_txs,
                   (SELECT count(*)::int FROM transaction) AS txs,
                   (SELECT coalesce(sum(transaction_count), 0)::int FROM block) AS block_txs,
                   (SELECT coalesce(sum(value), 0)::text FROM token_balance WHERE token = $1) AS stable_held,
                   (SELECT (coalesce(sum(value) FILTER (WHERE "from" = $2), 0) - coalesce(sum(value) FILTER (WHERE "to" = $2), 0))::text
                      FROM token_transfer WHERE token = $1) AS stable_minted
            FROM (SELECT 1) one LEFT JOIN chain_counters c ON true`, [this.stable, '0x0000000000000000000000000000000000000000'])
        return rows[0]
    }

    private judge(s: Snapshot): void {
        this.snapshots++
        if (s.blocks === 0) return
        const wrong: string[] = []
        if (s.blocks !== s.max + 1) wrong.push(`${s.blocks} blocks up to ${s.max}`)
        if (s.checkpoint !== null && s.checkpoint + s.hot !== s.max) wrong.push(`checkpoint ${s.checkpoint} + ${s.hot} unfinalized ≠ ${s.max}`)
        if (s.counter_blocks !== s.blocks || s.counter_last !== s.max) wrong.push(`counters ${s.counter_blocks}/${s.counter_last} vs ${s.blocks}/${s.max}`)
        if (s.counter_txs !== s.txs || s.txs !== s.block_txs) wrong.push(`transactions ${s.txs}, counted ${s.counter_txs}, per block ${s.block_txs}`)
        if (s.stable_held !== s.stable_minted) wrong.push(`STABLE held ${s.stable_held} vs minted ${s.stable_minted}`)
        if (s.blocks < this.floor) wrong.push(`${s.blocks} blocks, below the checkpoint's ${this.floor}`)
        if (wrong.length && this.violations.length < 5) this.violations.push(`at block ${s.max}: ${wrong.join(', ')}`)
    }
}

/** An open transaction of the indexer that has run a statement already: a commit under way. */
async function commitUnderWay(client: Client): Promise<boolean> {
    const { rowCount } = await client.query(`
        SELECT 1 FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
          AND (state = 'idle in transaction' OR (state = 'active' AND xact_start < query_start))`)
    return (rowCount ?? 0) > 0
}

interface Kill {
    moment: string
    /** Highest block written and the checkpoint when the process died. */
    max: number
    checkpoint: number
    inCommit?: boolean
}

/** SIGKILL now; the next start is left to the caller. */
async function kill(world: World, reader: CommitReader, moment: string, inCommit?: boolean): Promise<Kill> {
    const indexer = world.detach()
    indexer.process.kill('SIGKILL')
    await indexer.process.exited
    const state = await reader.read()
    const checkpoint = state?.checkpoint ?? -1
    reader.floor = checkpoint + 1
    return { moment, max: state?.max ?? -1, checkpoint, inCommit }
}

const sigkill: Scenario = {
    id: 'sigkill',
    item: 3,
    title: 'SIGKILL between two commits of a backfill, inside a commit, and while following the head; started again each time, a reader polling throughout',
    // Prague, so that the variety of transactions includes an EIP-7702 authorization.
    run: () => inWorld({ emptyBlocks: 3000, hardfork: 'prague' }, async (world) => {
        const client = new Client({ connectionString: world.databaseUrl })
        await client.connect()
        const reader = new CommitReader(client, world.chain.contracts.stable.toLowerCase())
        const watcher = new Client({ connectionString: world.databaseUrl })
        await watcher.connect()
        const kills: Kill[] = []
        try {
            // Proxies, typed transactions and failures in the backfill and while following the head,
            // so that the consistency check after the kills covers their rows (sendVariety).
            await sendVariety(world, 0)
            world.startIndexer()
            reader.start()
            const head = await world.head()
            await world.waitForHeight(Math.floor(head / 3))
            kills.push(await kill(world, reader, 'between commits'))

            world.startIndexer()
            const caught = await waitFor('a commit under way', () => commitUnderWay(watcher), 120_000, 2).then(() => true, () => false)
            kills.push(await kill(world, reader, 'inside a commit', caught))

            world.startIndexer()
            await world.waitForChainHead()
            const activity = sendVariety(world, 1).then(() => world.activity(6))
            await world.waitForHeight((await world.indexedHeight()) + 3)
            kills.push(await kill(world, reader, 'following the head'))
            await activity

            world.startIndexer()
            await world.activity(2)
            const consistency = await consistent(world, 'after the restarts: no gap, nothing lost, nothing applied twice')
            const [held] = await world.query(`SELECT (SELECT count(*)::int FROM proxy_contract) AS proxies,
                (SELECT count(DISTINCT type)::int FROM transaction WHERE type IN (1, 2, 3, 4)) AS types,
                (SELECT count(*)::int FROM transaction WHERE revert_data IS NOT NULL) AS reverts,
                (SELECT count(*)::int FROM internal_transaction WHERE index > 0 AND error IS NOT NULL) AS failed_frames,
                (SELECT count(*)::int FROM token_instance) AS instances,
                (SELECT count(*)::int FROM nft_balance) AS nft_balances`)
            await reader.stop()
            const reIndexed = kills.map((k) => k.max - k.checkpoint)
            return {
                checks: [
                    {
                        name: 'killed inside a commit (an open write transaction seen just before the kill)',
                        pass: kills[1].inCommit === true,
                    },
                    consistency,
                    {
                        // Two rounds of sendVariety: what the consistency check compared includes their rows.
                        name: 'the history compared holds the variety: proxies, types 1 to 4, revert data, failed inner calls, NFT owners and balances',
                        pass: held.proxies >= 2 && held.types === 4 && held.reverts >= 4 && held.failed_frames >= 4 && held.instances >= 8 && held.nft_balances >= 8,
                        detail: JSON.stringify(held),
                    },
                    {
                        name: 'a reader during the kills sees only committed states, never below the last checkpoint',
                        pass: reader.violations.length === 0 && reader.snapshots > 0,
                        detail: reader.violations.length ? reader.violations.join('; ') : `${reader.snapshots} snapshots`,
                    },
                ],
                measures: {
                    'checkpoints at the kills': kills.map((k) => k.checkpoint).join('/'),
                    'blocks re-indexed': reIndexed.join('/'),
                    snapshots: reader.snapshots,
                    restarts: world.restarts,
                },
            }
        } finally {
            await reader.stop()
            await client.end()
            await watcher.end()
        }
    }),
}

const TRANSFER_TOPIC = keccak256(toHex('Transfer(address,address,uint256)'))

/**
 * Runtime code of a token as small as a token can be: a call with 32 bytes of calldata mints that
 * amount to the caller (a Transfer event from address 0); every other call (name(), symbol(), …)
 * returns `reply` as it is.
 */
function oddTokenCode(reply: Hex): Hex {
    const push1 = (n: number) => `60${n.toString(16).padStart(2, '0')}`
    const push2 = (n: number) => `61${n.toString(16).padStart(4, '0')}`
    const length = size(reply)
    const dispatch = `36${push1(32)}14${push1(22)}57`
    const answer = `${push2(length)}${push2(71)}${push1(0)}39${push2(length)}${push1(0)}f3`
    const mint = `5b${push1(0)}35${push1(0)}5233${push1(0)}7f${TRANSFER_TOPIC.slice(2)}${push1(32)}${push1(0)}a300`
    const code = `0x${dispatch}${answer}${mint}` as Hex
    if (size(code) !== 71 || dispatch.length / 2 + answer.length / 2 !== 22) throw new Error('odd token code layout changed')
    return concatHex([code, reply])
}

const fidelity: Scenario = {
    id: 'data-fidelity',
    item: 16,
    title: 'name()/symbol() answering 0x, a NUL byte in a name, a transfer of 2^256−1, 500 empty blocks, a log index near 2^32',
    run: () => inWorld({}, async (world) => {
        const { client, url } = world.chain
        const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 7 })
        const wallet = createWalletClient({ account, chain: devnetChain(CHAIN_ID, url), transport: http(url) })
        const tokens = { silent: '0x00000000000000000000000000000000000051e1', nul: '0x000000000000000000000000000000000000a011', huge: '0x0000000000000000000000000000000000001d8e' } as const
        const nulName = 'Nul\u0000Token'
        const setCode = (address: string, code: Hex) => client.request({ method: 'anvil_setCode' as any, params: [address, code] as any })
        await setCode(tokens.silent, oddTokenCode('0x'))
        await setCode(tokens.nul, oddTokenCode(encodeAbiParameters([{ type: 'string' }], [nulName])))
        await setCode(tokens.huge, oddTokenCode('0x'))
        const mint = async (token: string, value: bigint) => {
            const hash = await wallet.sendTransaction({ to: token as Address, data: numberToHex(value, { size: 32 }), maxFeePerGas: 0n, maxPriorityFeePerGas: 0n })
            return client.waitForTransactionReceipt({ hash })
        }
        world.startIndexer()
        await mint(tokens.silent, MAX_UINT256)
        await mint(tokens.nul, 5n)
        await world.waitForChainHead()

        const before = await world.indexedHeight()
        await mineEmptyBlocks(client, 500)
        const emptyOk = await world.waitForChainHead(60_000).then(() => true, () => false)
        const after = await world.indexedHeight()

        const token = async (id: string) => (await world.query('SELECT name, symbol, decimals, total_supply::text AS supply FROM token WHERE id = $1', [id]))[0]
        const silent = await token(tokens.silent)
        const nul = await token(tokens.nul)
        const holder = account.address.toLowerCase()
        const [transfer] = await world.query(`SELECT value::text FROM token_transfer WHERE token = $1`, [tokens.silent])
        const [balance] = await world.query(`SELECT value::text FROM token_balance WHERE token = $1 AND holder = $2`, [tokens.silent, holder])

        // Last, as a refusal may stop ingestion: every log of one token arrives with an index near 2^32.
        world.proxy.rewrite = (call, answer) => {
            if ((call.method !== 'eth_getBlockReceipts' && call.method !== 'eth_getTransactionReceipt') || !answer?.result) return answer
            const mark = (receipt: any) => ({ ...receipt, logs: receipt.logs.map((l: any) => (l.address.toLowerCase() === tokens.huge ? { ...l, logIndex: numberToHex(HUGE_LOG_INDEX) } : l)) })
            return { ...answer, result: Array.isArray(answer.result) ? answer.result.map(mark) : mark(answer.result) }
        }
        const receipt = await mint(tokens.huge, 1n)
        const stored = await waitFor('the huge log index', async () => (await world.query('SELECT index FROM log WHERE block_number = $1', [Number(receipt.blockNumber)]))[0], 30_000, 200)
            .catch(() => undefined)
        const ready = await world.ready()
        const refusal = world.output().split('\n').find((l) => /log index/i.test(l) && /4294967294/.test(l))
        const refusedLoudly = !stored && ready?.status === 503 && /log index/.test(ready.body.status) && refusal !== undefined
        world.proxy.rewrite = undefined

        const checks: Check[] = [
            { name: 'name() and symbol() answering 0x are stored as null', pass: silent?.name === null && silent?.symbol === null, detail: JSON.stringify(silent ?? 'no token row') },
            {
                name: 'a NUL byte in a name does not stall the batch (the name is stored without it)',
                pass: nul !== undefined && typeof nul.name === 'string' && !nul.name.includes('\u0000') && nul.name.length > 0,
                detail: JSON.stringify(nul ?? 'no token row'),
            },
            {
                name: 'a transfer of 2^256−1 round-trips exactly (transfer and balance)',
                pass: transfer?.value === MAX_UINT256.toString() && balance?.value === MAX_UINT256.toString(),
                detail: `transfer ${transfer?.value}, balance ${balance?.value}`,
            },
            { name: '500 empty blocks advance progress', pass: emptyOk && after >= before + 500, detail: `${before} → ${after}` },
            {
                name: 'a log index near 2^32 round-trips, or is refused loudly (fatal log line, /ready 503 saying why)',
                pass: Number(stored?.index) === HUGE_LOG_INDEX || refusedLoudly,
                detail: stored ? `stored ${stored.index}` : `not stored; /ready ${ready ? `${ready.status} ${ready.body.status}` : 'no answer'}; log: ${refusal ? message(refusal) : 'no line naming it'}`,
            },
        ]
        return {
            checks,
            measures: { restarts: world.restarts, 'log index': stored ? 'stored' : refusedLoudly ? 'refused' : 'neither' },
        }
    }),
}

export const CRASH_SCENARIOS: Scenario[] = [postgresRestart(false), postgresRestart(true), sigkill, fidelity]

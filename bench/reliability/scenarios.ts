import { waitFor } from '../../common/processes'
import { expectDatabaseMatchesChain } from '../../test/support/consistency'
import { FaultKind } from '../../test/support/rpc-proxy'
import { sleep, World, WorldOptions } from './harness'

/**
 * The catalogue's checks (docs/RELIABILITY.md), each a scenario against the real indexer process.
 * A scenario returns its checks and what it measured; it passes when every check passes.
 */

export interface Check {
    name: string
    pass: boolean
    detail?: string
    /** A bound on elapsed time that only a quiet machine can be held to: npm run reliability scores it, npm test does not. */
    timing?: boolean
}

export interface Outcome {
    checks: Check[]
    measures: Record<string, string | number>
    /** What the indexer processes printed. */
    output?: string
}

export interface Scenario {
    id: string
    /** The catalogue item's number. */
    item: number
    title: string
    run(options: ScenarioOptions): Promise<Outcome>
}

export interface ScenarioOptions {
    /** How long a fault lasts (the catalogue's 30 s; shorter in the test subset). */
    faultMs: number
    /** How long blocks are mined every 2 s in the head-latency scenario (the catalogue's 5 minutes by default). */
    headMs?: number
    /** How long the node mines nothing in the quiet-head scenario. */
    quietMs?: number
}

/** How soon after the node heals the indexer must write its next block. */
const RESUME_LIMIT_MS = 10_000
/** Fewer requests per second than this multiple of the healthy rate while the node is faulty. */
const BACKOFF_FACTOR = 20
const EXIT_LIMIT_MS = 15_000

export const round = (n: number, digits = 1) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : 'never')
export const message = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0].slice(0, 200)

/** The database against the chain as it finally stands, as a check. */
export async function consistent(world: World, name = 'loses nothing, applies nothing twice'): Promise<Check> {
    try {
        await world.waitForChainHead(120_000)
        await expectDatabaseMatchesChain(world.databaseUrl, world.chain.url)
        return { name, pass: true }
    } catch (err) {
        return { name, pass: false, detail: message(err) }
    }
}

/** GET /ready answered 503 during the fault (`during`) and answers 200 now that the indexer has caught up. */
async function readinessCheck(world: World, during: Awaited<ReturnType<World['ready']>>): Promise<Check> {
    const after = await waitFor('ready', async () => {
        const answer = await world.ready()
        return answer?.status === 200 ? answer : undefined
    }, 15_000, 250).catch(() => world.ready())
    const show = (a: typeof after) => (a ? `${a.status} ${a.body.status}` : 'no answer')
    return {
        name: 'readiness: 503 during the fault, 200 once caught up',
        pass: during?.status === 503 && after?.status === 200,
        detail: `during: ${show(during)}; after: ${show(after)}`,
    }
}

export function survived(world: World): Check {
    return {
        name: 'the process survives',
        pass: world.restarts === 0,
        detail: world.restarts ? `exited ${world.restarts}× (${[...new Set(world.exits)].join(', ')}), restarted by the harness` : undefined,
    }
}

/** Runs body in a fresh world and always tears it down. */
export async function inWorld(options: WorldOptions, body: (world: World) => Promise<Outcome>): Promise<Outcome> {
    const world = await World.start(options)
    try {
        const outcome = await body(world)
        const ready = await world.ready()
        outcome.measures['loop restarts'] = ready?.body.restarts ?? 'n/a'
        return { ...outcome, output: world.output() }
    } finally {
        await world.stop()
    }
}

/**
 * A fault on every request for faultMs, one third into a backfill; the chain keeps growing
 * meanwhile, so there is work waiting when the node heals.
 */
function rpcFault(kind: FaultKind, label: string): Scenario {
    return {
        id: `rpc-${kind}`,
        item: 11,
        title: `${label} for the fault's length, mid-sync`,
        run: ({ faultMs }) => inWorld({ emptyBlocks: 3000 }, async (world) => {
            world.startIndexer()
            const head = await world.head()
            await world.waitForHeight(Math.floor(head / 3))
            const healthy = await world.requestRate(() => sleep(5000))
            const atFault = await world.indexedHeight()
            world.proxy.fault = { kind, every: 1 }
            const faulty = await world.requestRate(async () => {
                const started = Date.now()
                await world.activity(5)
                await sleep(faultMs - (Date.now() - started))
            })
            const duringFault = await world.ready()
            const atHeal = await world.indexedHeight()
            world.proxy.heal()
            const healed = Date.now()
            const resumeMs = await waitFor('progress after healing', async () => (await world.indexedHeight()) > atHeal, 60_000, 50)
                .then(() => Date.now() - healed, () => Infinity)
            const checks: Check[] = [
                survived(world),
                { name: `resumes within ${RESUME_LIMIT_MS / 1000} s of the node healing`, pass: resumeMs <= RESUME_LIMIT_MS, detail: `${round(resumeMs / 1000)} s` },
                {
                    name: `backs off: under ${BACKOFF_FACTOR}× the healthy request rate`,
                    pass: faulty.rate < BACKOFF_FACTOR * healthy.rate,
                    detail: `${round(faulty.rate)} vs ${round(healthy.rate)} req/s`,
                },
                await consistent(world),
                await readinessCheck(world, duringFault),
            ]
            return {
                checks,
                measures: {
                    'resume (s)': round(resumeMs / 1000),
                    'healthy req/s': round(healthy.rate),
                    'fault req/s': round(faulty.rate),
                    restarts: world.restarts,
                    'faulted answers': world.proxy.faulted.get(kind) ?? 0,
                    'mid-sync': atFault < head ? 'yes' : 'no',
                },
            }
        }),
    }
}

const headBack: Scenario = {
    id: 'head-back',
    item: 12,
    title: 'every other answer from a backend 3 blocks behind (head moves backwards) while following',
    run: ({ faultMs }) => inWorld({}, async (world) => {
        world.startIndexer()
        await world.waitForChainHead()
        world.proxy.fault = { kind: 'head-back', every: 2, lag: 3 }
        const started = Date.now()
        await world.activity(10)
        await sleep(faultMs - (Date.now() - started))
        world.proxy.heal()
        await world.activity(2)
        const consistency = await consistent(world)
        const rollbacks = world.output().split('\n').filter((l) => l.includes('chain reorganised')).length
        return {
            checks: [
                survived(world),
                { name: 'no rollback', pass: rollbacks === 0, detail: rollbacks ? `${rollbacks} rollbacks logged` : undefined },
                consistency,
            ],
            measures: { restarts: world.restarts, rollbacks, 'faulted answers': world.proxy.faulted.get('head-back') ?? 0 },
        }
    }),
}

const logsTwice: Scenario = {
    id: 'receipt-logs-twice',
    item: 13,
    title: 'every receipt lists its logs twice during a backfill of the seeded history',
    run: ({ faultMs }) => inWorld({}, async (world) => {
        world.proxy.fault = { kind: 'receipt-logs-twice', every: 1 }
        world.startIndexer()
        const head = await world.head()
        const reached = await world.waitForHeight(head, faultMs).then(() => true, () => false)
        world.proxy.heal()
        const consistency = await consistent(world, 'no second row, no doubled aggregate')
        return {
            checks: [survived(world), consistency],
            measures: {
                restarts: world.restarts,
                'reached head while faulty': reached ? 'yes' : 'no',
                'faulted answers': world.proxy.faulted.get('receipt-logs-twice') ?? 0,
            },
        }
    }),
}

const sigterm: Scenario = {
    id: 'sigterm',
    item: 4,
    title: 'SIGTERM one third into a backfill, then a restart',
    run: () => inWorld({ emptyBlocks: 3000 }, async (world) => {
        world.startIndexer()
        const head = await world.head()
        await world.waitForHeight(Math.floor(head / 3))
        const indexer = world.detach()
        const signalled = Date.now()
        indexer.process.kill('SIGTERM')
        const code = await Promise.race([indexer.process.exited, sleep(EXIT_LIMIT_MS + 5000).then(() => 'still running')])
        const exitMs = Date.now() - signalled
        if (code === 'still running') await indexer.stop()
        const checkpoint = await world.checkpoint()
        const [{ blocks, max }] = await world.query('SELECT count(*)::int AS blocks, max(number) AS max FROM block')
        const [counters] = await world.query('SELECT blocks, last_block FROM chain_counters')
        const [{ hot }] = await world.query('SELECT count(*)::int AS hot FROM squid_processor.hot_block')
        const checkpointOk = blocks === max + 1 && max === checkpoint + hot && counters?.blocks === blocks && counters?.last_block === max
        world.startIndexer()
        const consistency = await consistent(world, 'after a restart: nothing lost, nothing applied twice')
        return {
            checks: [
                { name: `exits 0 within ${EXIT_LIMIT_MS / 1000} s`, pass: code === 0 && exitMs <= EXIT_LIMIT_MS, detail: `exit ${code} after ${round(exitMs / 1000)} s` },
                {
                    name: 'checkpoint consistent with the data',
                    pass: checkpointOk,
                    detail: `checkpoint ${checkpoint}, ${hot} unfinalized, ${blocks} blocks up to ${max}, counters ${counters?.blocks}/${counters?.last_block}`,
                },
                consistency,
            ],
            measures: { 'exit (s)': round(exitMs / 1000), 'blocks re-indexed': hot, checkpoint, restarts: world.restarts },
        }
    }),
}

export const SCENARIOS: Scenario[] = [
    rpcFault('rpc-error', 'JSON-RPC errors (-32603)'),
    rpcFault('rate-limited', 'HTTP 429 with a rate-limit body'),
    rpcFault('bad-gateway', 'HTTP 502'),
    rpcFault('stall', 'requests never answered'),
    headBack,
    logsTwice,
    sigterm,
]

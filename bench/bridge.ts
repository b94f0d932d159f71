import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { Address, createWalletClient, erc20Abi, Hash, http, parseUnits } from 'viem'
import { startEmbeddedPostgres } from '../db/postgres'
import { devnetChain, ZERO_FEES } from '../devnet/deploy'
import { freePort } from '../test/support/ports'
import {
    account, BridgeChains, bridgeEnv, BridgeProcess, ChainName, createSwap, fundVaults, giveTokens, startBridge, startBridgeChains, waitForStatus,
} from '../test/bridge/support'
import { appendBenchmark } from './report'

/** npm run bench:bridge — concurrent swaps on the local chains, timed from deposit to completed in parts: docs/testing.md#benchmarks */

const SWAPS = Number(process.env.BENCH_SWAPS ?? 100)
const MONITOR_MS = Number(process.env.BENCH_MONITOR_MS ?? 1000)

interface Route {
    source: [ChainName, string]
    target: [ChainName, string]
    amount: string
    decimals: number
    user: number
}

/** Four route shapes: token and coin deposits, on chains with and without gas, to four target chains. */
const ROUTES: Route[] = [
    { source: ['BSC', 'USDT'], target: ['NATIVECHAIN', 'NATIVE'], amount: '25', decimals: 18, user: 3 },
    { source: ['NATIVECHAIN', 'NATIVE'], target: ['ETHEREUM', 'USDT'], amount: '0.01', decimals: 18, user: 5 },
    { source: ['ETHEREUM', 'ETH'], target: ['POLYGON', 'USDT'], amount: '0.02', decimals: 18, user: 6 },
    { source: ['NATIVECHAIN', 'STABLE'], target: ['BSC', 'WNATIVE'], amount: '30', decimals: 6, user: 7 },
]

/** The lifecycle events that end each step, in order. */
const STEPS = [
    { event: 'source_token_deposited', label: 'monitor sees the deposit' },
    { event: 'deposit_confirmed', label: 'confirmations' },
    { event: 'rate_locked', label: 'rate lock' },
    { event: 'gathering', label: 'gather sent (a token deposit first gets gas)' },
    { event: 'gathered', label: 'gather mined' },
    { event: 'vault_locking', label: 'vault locking' },
    { event: 'vault_locked', label: 'vault locked' },
    { event: 'payout_processing', label: 'payout sent' },
    { event: 'target_token_sent', label: 'payout final' },
]

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
const seconds = (ms: number) => (ms / 1000).toFixed(2)

interface Sample {
    route: Route
    total: number
    /** Per step of STEPS, in milliseconds. */
    parts: number[]
}

async function main(): Promise<void> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bridge-'))
    const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port: await freePort(), database: 'bridge' })
    let chains: BridgeChains | undefined
    try {
        process.stdout.write('starting four local chains and the bridge...\n')
        chains = await startBridgeChains()
        const w = chains
        // The benchmark is one client on loopback standing for many users: its pending swaps are all of theirs.
        const bridge = await startBridge({ ...bridgeEnv(w, pg.url, dir), BRIDGE_MONITOR_INTERVAL_MS: String(MONITOR_MS), BRIDGE_MAX_PENDING_PER_IP: String(SWAPS) })
        await fundVaults(w, bridge)
        const perRoute = Math.ceil(SWAPS / ROUTES.length) + 1
        for (const r of ROUTES) {
            if (w.chains[r.source[0]].tokens[r.source[1]]) {
                await giveTokens(w.chains[r.source[0]], r.source[1], account(r.user).address, parseUnits(r.amount, r.decimals) * BigInt(perRoute))
            }
        }
        const db = new Client({ connectionString: pg.url })
        await db.connect()
        try {
            // The floor first: one swap per route, nothing else in flight; then the burst.
            process.stdout.write('one swap per route...\n')
            const alone = await wave(w, bridge, db, ROUTES.length)
            process.stdout.write(`${SWAPS} swaps at once...\n`)
            const burst = await wave(w, bridge, db, SWAPS)
            report(alone, burst)
        } finally {
            await db.end()
        }
        await bridge.stop()
    } finally {
        await chains?.stop()
        await pg.stop()
        fs.rmSync(dir, { recursive: true, force: true })
    }
}

/** Creates `count` swaps over the routes in turn, sends every deposit at once, and times each swap's steps once all are completed. */
async function wave(w: BridgeChains, bridge: BridgeProcess, db: Client, count: number): Promise<{ samples: Sample[]; wallMs: number }> {
    const swaps: { id: string; deposit: Address; route: Route }[] = []
    for (let i = 0; i < count; i++) {
        const route = ROUTES[i % ROUTES.length]
        const swap = await createSwap(bridge, {
            source_chain: route.source[0], source_token: route.source[1], target_chain: route.target[0], target_token: route.target[1],
            source_token_amount: route.amount, target_wallet: account(9).address,
        })
        swaps.push({ id: swap.id, deposit: swap.deposit_address, route })
    }
    // Each user sends its deposits back to back (the node orders them by nonce), without waiting in between.
    const minedAt = new Map<string, number>()
    const started = Date.now()
    await Promise.all(ROUTES.map(async (route) => {
        const chain = w.chains[route.source[0]]
        const wallet = createWalletClient({ account: account(route.user), chain: devnetChain(chain.chainId, chain.url), transport: http(chain.url) })
        const mine = swaps.filter((s) => s.route === route)
        const nonce = await chain.client.getTransactionCount({ address: account(route.user).address, blockTag: 'pending' })
        const hashes: Hash[] = []
        for (const [i, s] of mine.entries()) {
            const amount = parseUnits(route.amount, route.decimals)
            const address = chain.tokens[route.source[1]]
            hashes.push(address
                ? await wallet.writeContract({ address, abi: erc20Abi, functionName: 'transfer', args: [s.deposit, amount], nonce: nonce + i, gas: 100_000n, ...ZERO_FEES })
                : await wallet.sendTransaction({ to: s.deposit, value: amount, nonce: nonce + i, gas: 21_000n, ...ZERO_FEES }))
        }
        await Promise.all(hashes.map(async (hash, i) => {
            await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
            minedAt.set(mine[i].id, Date.now())
        }))
    }))
    await Promise.all(swaps.map((s) => waitForStatus(bridge, s.id, ['completed'], 600_000)))
    const wallMs = Date.now() - started

    const { rows } = await db.query(
        `SELECT swap_id, event, created_at FROM bridge_swap_event WHERE swap_id = ANY($1) AND event = ANY($2)`,
        [swaps.map((s) => s.id), STEPS.map((s) => s.event)]
    )
    const at = new Map(rows.map((r) => [`${r.swap_id}:${r.event}`, r.created_at.getTime() as number]))
    // Each step's time ends at its event and starts at the previous one's (the deposit's mining for the first).
    const samples = swaps.map((s) => {
        let previous = minedAt.get(s.id)!
        const parts = STEPS.map((step) => {
            const end = Math.max(previous, at.get(`${s.id}:${step.event}`) ?? previous)
            const part = end - previous
            previous = end
            return part
        })
        return { route: s.route, total: previous - minedAt.get(s.id)!, parts }
    })
    return { samples, wallMs }
}

const routeName = (r: Route) => `${r.source.join(' ')} → ${r.target.join(' ')}`

function report(alone: { samples: Sample[] }, burst: { samples: Sample[]; wallMs: number }): void {
    const samples = burst.samples
    const totals = samples.map((s) => s.total).sort((a, b) => a - b)
    const grand = samples.reduce((n, s) => n + s.total, 0)
    const steps = Object.fromEntries(STEPS.map((step, i) => {
        const times = samples.map((s) => s.parts[i]).sort((a, b) => a - b)
        const share = (100 * times.reduce((n, t) => n + t, 0)) / grand
        return [`step: ${step.label}, median / p95 (share)`, `${seconds(quantile(times, 0.5))} / ${seconds(quantile(times, 0.95))} s (${share.toFixed(1)}%)`]
    }))
    const routes = Object.fromEntries(ROUTES.map((r) => {
        const times = samples.filter((s) => s.route === r).map((s) => s.total).sort((a, b) => a - b)
        const single = alone.samples.find((s) => s.route === r)!
        return [`route ${routeName(r)}: alone / in the burst, median / p95`, `${seconds(single.total)} / ${seconds(quantile(times, 0.5))} / ${seconds(quantile(times, 0.95))} s`]
    }))
    const aloneSteps = Object.fromEntries(ROUTES.map((r) => {
        const single = alone.samples.find((s) => s.route === r)!
        return [`route ${routeName(r)} alone, by step (s)`, single.parts.map((p) => seconds(p)).join(' + ')]
    }))
    const figures = {
        'swaps in flight': SWAPS,
        'monitor cycle': `${MONITOR_MS} ms`,
        'deposit mined → completed, median': `${seconds(quantile(totals, 0.5))} s`,
        'deposit mined → completed, p95': `${seconds(quantile(totals, 0.95))} s`,
        ...steps,
        ...routes,
        ...aloneSteps,
        'all deposits out → all completed': `${seconds(burst.wallMs)} s`,
    }
    process.stdout.write('\n' + Object.entries(figures).map(([k, v]) => `${k.padEnd(52)} ${v}`).join('\n') + '\n')
    appendBenchmark(`Bridge: ${SWAPS} concurrent swaps`, figures, [
        'Four local anvils (native 3009, BSC 56, ETHEREUM 1, POLYGON 137) mining a block a second; finalized = latest − 2; the native chain counts 2 confirmations. Postgres with fsync and synchronous commit on, as in production.',
        `Routes in equal parts: ${ROUTES.map(routeName).join('; ')}.`,
        `First one swap per route (four at once: "alone", the floor of each route), then the burst of ${SWAPS}, on the same bridge and chains.`,
        'Times are per swap from the moment its deposit was mined (receipt seen) to its target_token_sent event; each step ends at its lifecycle event and starts at the one before (the first at the deposit\'s mining), in the order of the step rows. Medians and p95s are per step, so they do not add up to the total\'s.',
    ])
}

main().then(() => process.exit(0), (err) => {
    console.error(err)
    process.exit(1)
})

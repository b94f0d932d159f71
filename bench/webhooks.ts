import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Pool } from 'pg'
import { writeEvent } from '../bridge/engine/lifecycle'
import { loadSwap } from '../bridge/store/swaps'
import { startEmbeddedPostgres } from '../db/postgres'
import { inTransaction } from '../db/transaction'
import { api, startBridge } from '../test/bridge/support'
import { Receiver } from '../test/bridge/webhook-receiver'
import { freePort } from '../test/support/ports'
import { appendBenchmark } from './report'

/** npm run bench:webhooks — a burst of lifecycle events through the real bridge's webhook queue to a receiver on loopback: docs/testing.md#benchmarks */

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000)
const SUBSCRIPTIONS = Number(process.env.BENCH_WEBHOOK_SUBSCRIPTIONS ?? 5)
const PER_TRANSACTION = 100
const TOKEN = 'bench-bridge-admin-token-0123456789'

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]

async function main(): Promise<void> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'))
    const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port: await freePort(), database: 'webhooks' })
    const receiver = new Receiver()
    const pool = new Pool({ connectionString: pg.url, max: 4 })
    pool.on('error', () => undefined)
    try {
        await receiver.start()
        receiver.keep = false
        const expected = EVENTS * SUBSCRIPTIONS
        const lags: number[] = []
        const seen = new Set<string>()
        let duplicates = 0
        let last = 0
        let resolveAll!: () => void
        const all = new Promise<void>((r) => (resolveAll = r))
        receiver.onRequest = (r) => {
            const id = r.headers['x-bridge-delivery'] as string
            if (seen.has(id)) {
                duplicates++
                return
            }
            seen.add(id)
            lags.push(r.at - Date.parse(JSON.parse(r.raw.toString()).timestamp))
            last = r.at
            if (seen.size === expected) resolveAll()
        }

        const bridge = await startBridge({
            NODE_ENV: 'test',
            LOG_LEVEL: 'error',
            DATABASE_URL: pg.url,
            DATA_DIR: dir,
            MASTER_KEY: '55'.repeat(32),
            JWT_SECRET: 'bench-jwt-secret-of-at-least-32-characters',
            BRIDGE_ADMIN_TOKEN: TOKEN,
            // No chain: the native network points at a closed port and the monitor hardly runs.
            RPC_URL: `http://127.0.0.1:${await freePort()}`,
            BRIDGE_MONITOR_INTERVAL_MS: '600000',
            BRIDGE_WEBHOOK_ALLOW_PRIVATE: 'true',
        })
        for (let i = 0; i < SUBSCRIPTIONS; i++) {
            const res = await api(bridge, 'POST', '/api/webhook/subscriptions', { url: receiver.url(`/sub-${i}`), description: `bench ${i}` }, { authorization: `Bearer ${TOKEN}` })
            if (res.status !== 201) throw new Error(`subscription: ${res.status} ${JSON.stringify(res.body)}`)
        }
        // One swap (already finished, so the engine leaves it alone) carries every event.
        const { rows } = await pool.query(
            `INSERT INTO bridge_swap (id, status, source_chain, source_token, target_chain, target_token, source_amount, target_wallet, route_kind, route,
                fee_bps, deposit_family, deposit_index, deposit_address, watch_from_block, expires_at)
             VALUES (gen_random_uuid(), 'expired', 'BSC', 'USDT', 'NATIVECHAIN', 'NATIVE', 100, $1, 'pool', '{}', 250, 'evm', 9000000, $1, 0, now()) RETURNING id`,
            ['0x' + '42'.repeat(20)]
        )
        const swap = (await loadSwap(pool, rows[0].id))!
        const names = ['rate_locked', 'vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent']

        const loadBefore = os.loadavg()
        process.stdout.write(`writing ${EVENTS} events for ${SUBSCRIPTIONS} subscriptions (${expected} deliveries)...\n`)
        const started = Date.now()
        for (let written = 0; written < EVENTS; written += PER_TRANSACTION) {
            await inTransaction(pool, async (client) => {
                for (let i = written; i < Math.min(EVENTS, written + PER_TRANSACTION); i++) {
                    await writeEvent(client, swap, { event: names[i % names.length], txHash: '0x' + i.toString(16).padStart(64, '0'), data: { amount_sent: '1.5' } })
                }
            })
        }
        const writtenIn = Date.now() - started
        const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`only ${seen.size} of ${expected} deliveries after 10 minutes`)), 600_000))
        await Promise.race([all, timeout])
        const wall = last - started
        const loadAfter = os.loadavg()
        // After a clean stop every attempt's result is written.
        await bridge.stop()
        const { rows: states } = await pool.query(`SELECT state, count(*)::int AS n FROM bridge_webhook_delivery GROUP BY state ORDER BY state`)

        lags.sort((a, b) => a - b)
        const figures = {
            events: EVENTS,
            subscriptions: SUBSCRIPTIONS,
            deliveries: expected,
            'events written (s)': (writtenIn / 1000).toFixed(1),
            'first event written → last delivery received (s)': (wall / 1000).toFixed(1),
            'deliveries/s': Math.round(expected / (wall / 1000)),
            'event → delivery lag p50 (ms)': Math.round(quantile(lags, 0.5)),
            'event → delivery lag p95 (ms)': Math.round(quantile(lags, 0.95)),
            'duplicate deliveries': duplicates,
            'delivery states at the end': states.map((s) => `${s.state} ${s.n}`).join(', '),
        }
        process.stdout.write('\n' + Object.entries(figures).map(([k, v]) => `${k.padEnd(50)} ${v}`).join('\n') + '\n')
        appendBenchmark(`Bridge webhooks (npm run bench:webhooks)`, figures, [
            `One bridge process (BRIDGE_WEBHOOK_CONCURRENCY default 50 attempts in flight), its Postgres queue (embedded Postgres with fsync and synchronous commit on, as in production), and a receiver on loopback in the benchmark process answering 200 at once over keep-alive connections; no chain (the engine is idle).`,
            `Events written with the engine's writeEvent, ${PER_TRANSACTION} per transaction, as fast as Postgres takes them (a burst, not a steady rate): the lag includes the time an event waits behind the backlog.`,
            'Lag: receiver clock at arrival minus the event timestamp in the body (the lifecycle row\'s created_at); same machine, same clock.',
            `Load average (1/5/15 min; other processes share the machine): before ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}; after ${loadAfter.map((l) => l.toFixed(2)).join(' / ')}.`,
        ])
    } finally {
        await receiver.stop()
        await pool.end()
        await pg.stop()
        fs.rmSync(dir, { recursive: true, force: true })
    }
}

main().then(() => process.exit(0), (err) => {
    console.error(err)
    process.exit(1)
})

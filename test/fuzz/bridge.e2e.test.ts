import { expect } from 'chai'
import * as fs from 'fs'
import { Client } from 'pg'
import { NO_CONTRACTS } from '../../bench/history-node'
import { contractsEnv } from '../../common/config'
import { api, BridgeProcess, startBridge, tempDir } from '../bridge/support'
import { freePort } from '../support/ports'
import { createTestDatabase } from '../support/postgres'
import { describeCoverage, describeFailures, fuzzApi } from '../support/fuzz/fuzz'
import { fuzzSettings } from '../support/fuzz/settings'

/**
 * The fuzzer over the bridge port's OpenAPI document (bridge API and webhook admin API) on the real
 * bridge process, with a swap row and a webhook subscription. No chain runs: the native network is a
 * closed port, so a quote or a new swap answers its documented 503, which this surface may give.
 * docs/testing.md#fuzzing
 */
describe('fuzz: bridge port (bridge API and webhook admin API)', function () {
    const settings = fuzzSettings({ seed: 20261126, runs: 25 })
    this.timeout(settings.testTimeoutMs)
    const adminToken = 'fuzz-bridge-admin-token-0123456789'
    const wallet = `0x${'42'.repeat(20)}`
    let dir: string
    let bridge: BridgeProcess | undefined
    let swapId: string
    let subscriptionId: string

    before(async () => {
        dir = tempDir()
        const databaseUrl = await createTestDatabase('fuzz_bridge')
        bridge = await startBridge({
            NODE_ENV: 'test',
            LOG_LEVEL: 'warn',
            DATABASE_URL: databaseUrl,
            DATA_DIR: dir,
            MASTER_KEY: '55'.repeat(32),
            JWT_SECRET: 'test-jwt-secret-of-at-least-32-characters',
            BRIDGE_ADMIN_TOKEN: adminToken,
            RPC_URL: `http://127.0.0.1:${await freePort()}`,
            // Addresses where no code lives: the bridge without our contracts is off (docs/own-chain.md), and these routes need none.
            ...contractsEnv(NO_CONTRACTS),
            BRIDGE_MONITOR_INTERVAL_MS: '600000',
            BRIDGE_WEBHOOK_ALLOW_PRIVATE: 'true',
            BRIDGE_CREATE_LIMIT: '1000000',
        })
        // Deliveries go to a closed loopback port: they fail and wait for a retry, and nothing leaves the machine.
        const sub = await api(bridge, 'POST', '/api/webhook/subscriptions', { url: `http://127.0.0.1:${await freePort()}/hook`, description: 'fuzz' }, { authorization: `Bearer ${adminToken}` })
        expect(sub.status, JSON.stringify(sub.body)).to.equal(201)
        subscriptionId = sub.body.id
        const db = new Client({ connectionString: databaseUrl })
        await db.connect()
        try {
            const { rows } = await db.query(
                `INSERT INTO bridge_swap (id, status, source_chain, source_token, target_chain, target_token, source_amount, target_wallet, route_kind, route,
                    fee_bps, deposit_family, deposit_index, deposit_address, watch_from_block, expires_at)
                 VALUES (gen_random_uuid(), 'expired', 'BSC', 'USDT', 'NATIVECHAIN', 'NATIVE', 100, $1, 'pool', $2, 250, 'evm', 9000000, $1, 0, now()) RETURNING id`,
                // The route as the engine stores it (engine/create.ts).
                [wallet, { kind: 'pool', legs: [{ type: 'pool', from: 'USDT', to: 'NATIVE' }], min_amount: '1', max_amount: '1000' }],
            )
            swapId = rows[0].id
        } finally {
            await db.end()
        }
    })

    after(async () => {
        await bridge?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    it('answers every generated request as its document says: no 5xx but documented 503s, documented statuses and bodies', async () => {
        const report = await fuzzApi({
            baseUrl: bridge!.url,
            seed: settings.seed,
            runs: settings.runs,
            replay: settings.replay,
            headers: { authorization: `Bearer ${adminToken}` },
            values: { id: [swapId, subscriptionId], target_wallet: [wallet] },
            expected5xx: [503],
            // A valid subscription URL is any public host: deliveries to it would leave the machine. A valid
            // delete would end the one subscription the other operations read.
            invalidOnly: ['POST /api/webhook/subscriptions', 'PATCH /api/webhook/subscriptions/{id}', 'DELETE /api/webhook/subscriptions/{id}'],
        })
        if (settings.verbose) console.log(describeCoverage(report))
        expect(report.failures.length, describeFailures(report)).to.equal(0)
        if (settings.replay) return
        expect(report.byOperation['GET /api/swap/{id}'][200], 'the seeded swap was read').to.be.greaterThan(0)
    })
})

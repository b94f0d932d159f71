import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import * as http from 'http'
import { AddressInfo } from 'net'
import { Address, parseUnits } from 'viem'
import { giveStable, ONE, PlatformFixture, setNativeBalance, startPlatform, waitForIndexedHead } from '../api/platform/support'
import { account, api, BridgeChains, bridgeEnv, BridgeProcess, fundVaults, startBridge, startBridgeChains, tempDir } from '../bridge/support'
import { createTestDatabase } from '../support/postgres'
import { Example, parseExamples, parseRequest, Request, shapeDifferences } from './examples'

/**
 * The examples of docs/platform-api.md ("Every route by example") and docs/bridge/api.md are true:
 * each request is sent, in the order written, to one real process of the service (the platform:
 * anvil, embedded Postgres, the indexer; the bridge: its four anvils, funded vaults), and each
 * answer must be a success of the documented shape (keys and JSON types, recursively; values differ
 * from run to run). The format of an example: test/docs/examples.ts.
 *
 * Placeholders: each surface's `values` are known at the start (`{{stable}}`, the devnet's STABLE
 * token; `{{hook}}`, a webhook endpoint this test serves); the others are learnt from answers as its
 * `captures` say. The platform wallet created by the first example is funded by the test right
 * after (1000 of the coin, 100 000 STABLE). `{admin token}` in an Authorization header stands for
 * the bridge's BRIDGE_ADMIN_TOKEN.
 *
 * DOCS_EXAMPLES_RECORD=1 writes the answers of this run into the documents instead of comparing
 * (each list cut to its first two elements): how the documented answers were taken from the
 * running services.
 */

const REPO = path.resolve(__dirname, '../../..')

/** A value an answer gives the later examples: taken from the answer to the first request whose first line starts so. */
interface Capture { request: string; name: string; from: (body: any) => string }

/** What the examples of one document need: how a request is sent, the values known at the start, the captures. */
interface Surface {
    send(request: Request): Promise<{ status: number; body: unknown }>
    values: Record<string, string>
    captures: Capture[]
    /** Runs before an example, e.g. to let the indexer catch up with what the one before it did. */
    before?(example: Example, values: Record<string, string>): Promise<void>
    /** Runs once a value is captured, e.g. to fund a wallet just created. */
    captured?(name: string, value: string): Promise<void>
}

const record = process.env.DOCS_EXAMPLES_RECORD === '1'

/**
 * Sends every example of a document in order, and checks each answer: a 2xx of the documented shape.
 * With DOCS_EXAMPLES_RECORD=1 the document's answers are replaced by this run's instead.
 */
async function checkDocument(file: string, surface: Surface, least: number): Promise<void> {
    const markdown = fs.readFileSync(path.join(REPO, file), 'utf8')
    const examples = parseExamples(markdown)
    expect(examples.length).to.be.at.least(least)
    const values = { ...surface.values }
    const answers: unknown[] = []
    for (const example of examples) {
        await surface.before?.(example, values)
        const request = parseRequest(example.request, values)
        const where = `${file}:${example.line}: ${request.method} ${request.path}`
        const res = await surface.send(request)
        expect(res.status, `${where}: ${JSON.stringify(res.body)}`).to.be.within(200, 299)
        answers.push(res.body)
        if (!record) expect(shapeDifferences(res.body, example.answer), where).to.deep.equal([])
        const capture = surface.captures.find((c) => example.request.split('\n')[0].startsWith(c.request))
        if (capture && !(capture.name in values)) {
            values[capture.name] = capture.from(res.body)
            await surface.captured?.(capture.name, values[capture.name])
        }
    }
    if (record) fs.writeFileSync(path.join(REPO, file), withAnswers(markdown, examples, answers))
}

/** Routes answered from the indexer's tables: the test lets it catch up first, so their lists are not empty for want of time. */
const INDEXED = ['GET /api/wallet/tokens', 'GET /api/pools/list']

describe('docs: every platform route by example, each answer of the documented shape', () => {
    let f: PlatformFixture

    before(async () => {
        f = await startPlatform({ indexer: true })
    })

    after(async () => {
        await f?.stop()
    })

    it('docs/platform-api.md', async () => {
        await checkDocument('docs/platform-api.md', {
            send: (r) => f.http.send(r.method, r.path, r.body, r.headers['x-user-pwd']),
            values: { stable: f.chain.contracts.stable },
            captures: [
                { request: 'POST /api/wallet/register_random', name: 'wallet', from: (b) => b.result.address },
                { request: 'POST /api/token/deploy', name: 'token', from: (b) => b.data.contractAddress },
                { request: 'POST /api/wallet/send', name: 'tx', from: (b) => b.hash },
                { request: 'POST /api/pools/add_liquidity', name: 'pair', from: (b) => b.data.pair },
            ],
            before: async (example) => {
                if (INDEXED.some((route) => example.request.startsWith(route))) await waitForIndexedHead(f)
            },
            // The new wallet is funded from outside, as an integrator would fund it.
            captured: async (name, value) => {
                if (name !== 'wallet') return
                await setNativeBalance(f.chain, value as Address, 1000n * ONE)
                await giveStable(f.chain, value as Address, parseUnits('100000', 6))
            },
        }, 30)
    })
})

describe('docs: every bridge route by example, each answer of the documented shape', () => {
    const ADMIN_TOKEN = 'docs-examples-admin-token-0123456789'
    let w: BridgeChains
    let bridge: BridgeProcess
    let dir: string
    let hook: http.Server

    before(async () => {
        const databaseUrl = await createTestDatabase('docs_examples_bridge')
        w = await startBridgeChains()
        dir = tempDir()
        bridge = await startBridge({ ...bridgeEnv(w, databaseUrl, dir), BRIDGE_ADMIN_TOKEN: ADMIN_TOKEN, BRIDGE_WEBHOOK_ALLOW_PRIVATE: 'true' })
        await fundVaults(w, bridge)
        // The endpoint of the example subscription: accepts every delivery.
        hook = http.createServer((_req, res) => void res.end('ok'))
        await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
    })

    after(async () => {
        await new Promise((resolve) => hook?.close(resolve))
        await bridge?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const withAdminToken = (headers: Record<string, string>) =>
        headers.authorization ? { ...headers, authorization: headers.authorization.replace('{admin token}', ADMIN_TOKEN) } : headers

    async function firstDelivery(subscription: string): Promise<void> {
        const deadline = Date.now() + 60_000
        for (;;) {
            const res = await api(bridge, 'GET', `/api/webhook/subscriptions/${subscription}`, undefined, withAdminToken({ authorization: 'Bearer {admin token}' }))
            if (res.body?.last_success_at) return
            if (Date.now() > deadline) throw new Error(`no delivery reached the hook: ${JSON.stringify(res.body)}`)
            await new Promise((resolve) => setTimeout(resolve, 200))
        }
    }

    it('docs/bridge/api.md', async () => {
        await checkDocument('docs/bridge/api.md', {
            send: (r) => api(bridge, r.method, r.path, r.body, withAdminToken(r.headers)),
            values: { hook: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`, wallet: account(6).address, refund: account(5).address },
            // The subscription's answers show its first delivery (last_success_at) once the swap's first event reached the hook.
            before: async (example, values) => {
                if (example.request.startsWith('GET /api/webhook/subscriptions\n')) await firstDelivery(values.subscription)
            },
            captures: [
                { request: 'POST /api/webhook/subscriptions', name: 'subscription', from: (b) => b.id },
                { request: 'POST /api/swap', name: 'swap', from: (b) => b.id },
                { request: 'GET /api/webhook/subscriptions/{{subscription}}/deliveries', name: 'event', from: (b) => b.items[0].event_id },
            ],
        }, 15)
    })
})

/** A long list cut to its first two elements, so a documented answer stays readable (shapes compare the first only). */
function abridged(value: unknown): unknown {
    if (Array.isArray(value)) return value.slice(0, 2).map(abridged)
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, abridged(v)]))
    return value
}

/** The document with each example's answer replaced by the one this run received (lists abridged). */
function withAnswers(markdown: string, examples: Example[], answers: unknown[]): string {
    const lines = markdown.split('\n')
    // From the last, so the earlier line numbers stay right.
    for (let i = examples.length - 1; i >= 0; i--) {
        const { answerStart, answerEnd } = examples[i]
        lines.splice(answerStart, answerEnd - answerStart, ...JSON.stringify(abridged(answers[i]), null, 2).split('\n'))
    }
    return lines.join('\n')
}
